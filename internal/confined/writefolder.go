package confined

// This file defines WriteFolder: a folder of a Root held open for writes,
// so that writing a file in it walks no path.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrReplaced marks a folder that was replaced while it was being opened.
var ErrReplaced = errors.New("was replaced while it was opened")

// WriteFolder is a folder of a [Root] held open for writing. It is itself
// a Root rooted at the folder, so every name given to its methods is
// relative to the folder and a file directly in it is reached without
// opening the folders above it again: a long-running writer holds one
// instead of walking .foundry/memory for each of its system calls. Unlike
// a [Folder], it may be held for long: the folder may be removed or
// replaced behind it, and [WriteFolder.Current] says whether it still is
// the one at its path. It is safe for concurrent use.
type WriteFolder struct {
	*Root
	parent *Root
	name   string
	fi     fs.FileInfo // of the folder held, for os.SameFile
}

// OpenWriteFolder opens the existing folder name, reached through no symbolic
// link (see [Root.NoFollow]).
func (r *Root) OpenWriteFolder(name string) (*WriteFolder, error) {
	name, err := Clean(name)
	if err != nil {
		return nil, err
	}
	if err := r.NoFollow(name); err != nil {
		return nil, err
	}
	want, err := r.r.Lstat(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if !want.IsDir() {
		return nil, fmt.Errorf("open %s: %w", name, ErrNotDir)
	}
	sub, err := r.r.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	fi, err := sub.Stat(".")
	if err == nil && !os.SameFile(want, fi) {
		err = ErrReplaced
	}
	if err != nil {
		sub.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	w := &WriteFolder{Root: &Root{dir: r.Path(name), r: sub, under: r.shown(name)}, parent: r, name: name, fi: fi}
	w.holdFD()
	return w, nil
}

// Name returns the folder's slash path under the Root it was opened from.
func (f *WriteFolder) Name() string { return f.name }

// Current reports whether the folder's path still leads, through no
// symbolic link, to the folder held: false once it was removed, renamed or
// replaced. A few system calls: it walks the path once, and compares the
// folder the walk ends on.
func (f *WriteFolder) Current() bool {
	fi, err := f.parent.noFollowStat(f.name)
	return err == nil && fi != nil && os.SameFile(fi, f.fi)
}
