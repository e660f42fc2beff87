//go:build !unix

package confined

// openFD leaves the folder without a descriptor: ReadRegular is unix-only.
func (f *Folder) openFD() {}

// ReadRegular reports false: outside unix every read goes through
// [Folder.Open].
func (f *Folder) ReadRegular(name string, max int64) ([]byte, bool) { return nil, false }
