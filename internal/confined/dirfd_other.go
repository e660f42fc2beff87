//go:build !unix

package confined

import (
	"io/fs"
	"os"
)

// holdFD holds nothing: outside unix every call goes through os.Root.
func (r *Root) holdFD() {}

func (r *Root) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return r.r.OpenFile(name, flag, perm)
}

func (r *Root) rename(oldname, newname string) error { return r.r.Rename(oldname, newname) }

func (r *Root) syncHeld() bool { return false }
