package confined

// This file defines Folder: many reads in one folder of a Root, each name
// resolved from the folder instead of from the root.

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// RootOf returns the Root that fsys reads when fsys is its [Root.FS], and
// nil for any other file system.
func RootOf(fsys fs.FS) *Root {
	if b, ok := fsys.(boundedFS); ok {
		return b.root
	}
	return nil
}

// Folder is one folder of a [Root], opened once for many reads: os.Root
// opens every folder of a path on the way to a file, so reading n files of
// .foundry/blackboard/wave-1 through the root costs 4n opens, and through
// the folder n. Names are relative to the folder. The files, their size
// limits and every error are those of the root's FS for the joined path: a
// name the folder cannot resolve on its own (a link to a sibling folder,
// say) is read again through the root, whose confinement decides. Hold a
// Folder for one batch of reads and close it: a long-lived one would keep
// reading a folder that was moved away meanwhile.
type Folder struct {
	dir  string
	sub  *os.Root
	root boundedFS
	// fd is the folder's descriptor for [Folder.ReadRegular], -1 where
	// there is none (outside unix, or when opening it failed).
	fd   int
	open *os.File // holds fd
}

var _ fs.StatFS = (*Folder)(nil)

// OpenFolder opens the folder dir, a slash path relative to the root.
func (r *Root) OpenFolder(dir string) (*Folder, error) {
	dir, err := Clean(dir)
	if err != nil {
		return nil, err
	}
	var sub *os.Root
	err = projectFS{r}.do(dir, func(root *os.Root, rel string) (err error) { sub, err = root.OpenRoot(rel); return err })
	if err == nil && dir == FoundryDir && r.under == "" {
		// The files directly in .foundry are read from sub, not through
		// [Root.at]: sub must not be the project's own folder either.
		if err = r.notProject(sub); err != nil {
			sub.Close()
			err = &fs.PathError{Op: "open", Path: dir, Err: err}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", dir, escaped(dir, err))
	}
	f := &Folder{dir: dir, sub: sub, root: r.FS().(boundedFS), fd: -1}
	f.openFD()
	return f, nil
}

// FolderOf opens the folder dir of fsys for many reads, when fsys is a
// [Root.FS]; it returns nil for any other file system (a git view), or
// when the folder cannot be opened: the caller then reads through fsys.
func FolderOf(fsys fs.FS, dir string) *Folder {
	root := RootOf(fsys)
	if root == nil {
		return nil
	}
	f, err := root.OpenFolder(dir)
	if err != nil {
		return nil
	}
	return f
}

// Close releases the folder's descriptors. A nil Folder (see [FolderOf])
// has none.
func (f *Folder) Close() error {
	if f == nil {
		return nil
	}
	if f.open != nil {
		f.open.Close()
	}
	return f.sub.Close()
}

func (f *Folder) full(name string) string {
	if f.dir == "." {
		return name
	}
	return f.dir + "/" + name
}

// Stat returns the file information of name, as the root's FS would.
func (f *Folder) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if strings.Contains(name, "/") {
		return f.root.Stat(f.full(name)) // which may lie in .foundry: see Open
	}
	if fi, err := f.sub.Stat(name); err == nil {
		return fi, nil
	}
	return f.root.Stat(f.full(name))
}

// Open opens name for reading, held to its size limit, as the root's FS
// would, with one difference that makes a stat before opening unneeded:
// the file is opened non-blocking, so opening a named pipe or a device
// whose open would wait returns at once and the caller can refuse it from
// the open file's Stat. That Stat answers as of the opening.
func (f *Folder) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	full := f.full(name)
	if strings.Contains(name, "/") {
		// A path below the folder may enter .foundry from a folder outside
		// it, whose own root would not confine it to .foundry.
		return f.root.Open(full)
	}
	file, err := f.sub.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return f.root.Open(full)
	}
	fi, err := file.Stat()
	if err == nil {
		err = check(full, fi)
	}
	switch {
	case err != nil:
		file.Close()
		return nil, err
	case fi.IsDir(): // rare: the root's file names it as the root does
		file.Close()
		return f.root.Open(full)
	}
	return bounded(file, full, fi), nil
}
