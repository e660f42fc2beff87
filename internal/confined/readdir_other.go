//go:build !unix

package confined

import "io/fs"

// readDir lists the folder name of the root, sorted.
func (r *Root) readDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(projectFS{r}, name)
}
