package confined

import "os"

// OpenDir opens the folder name for listing: a symbolic link on the way is
// followed only to a target inside the root, and inside .foundry for a
// folder in it. A caller that stats the entries relative to the descriptor
// (fstatat of one name, without following links) stays inside the folder.
func (r *Root) OpenDir(name string) (*os.File, error) {
	f, err := projectFS{r}.open(name)
	return f, escaped(name, err)
}
