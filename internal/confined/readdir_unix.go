//go:build unix

package confined

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
)

// readDir lists the folder name of the root, sorted, with each entry's type
// as the folder itself records it. os.Root's ReadDir lstats every entry
// (a Root's file cannot stat lazily by path), which for a folder of 10,000
// artifacts is 10,000 system calls nobody asked for: here the folder is
// opened through the root and read through a duplicate of its descriptor,
// and an entry's Info is an lstat through the root when it is called.
func (r *Root) readDir(name string) ([]fs.DirEntry, error) {
	f, err := r.OpenDir(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	syscall.CloseOnExec(fd)
	d := os.NewFile(uintptr(fd), name)
	defer d.Close()
	es, err := d.ReadDir(-1)
	out := make([]fs.DirEntry, len(es))
	for i, e := range es {
		out[i] = dirEntry{root: r, dir: name, name: e.Name(), typ: e.Type()}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if err != nil {
		return out, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return out, nil
}

// dirEntry is an entry of [Root.readDir]: its Info lstats it through the
// root, never by an OS path that could lead elsewhere.
type dirEntry struct {
	root      *Root
	dir, name string
	typ       fs.FileMode
}

func (e dirEntry) Name() string      { return e.name }
func (e dirEntry) IsDir() bool       { return e.typ.IsDir() }
func (e dirEntry) Type() fs.FileMode { return e.typ }
func (e dirEntry) Info() (fs.FileInfo, error) {
	return projectFS{e.root}.Lstat(path.Join(e.dir, e.name))
}
func (e dirEntry) String() string { return fs.FormatDirEntry(e) }
