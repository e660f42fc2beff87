package confined

// This file defines the confinement of .foundry: a symbolic link inside it
// is followed only to a target inside it.

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// FoundryDir is the folder of a project's Foundry files, under its root.
const FoundryDir = ".foundry"

// ErrOutsideFoundry marks a symbolic link inside .foundry whose target is
// not inside .foundry, or a climb out of it: Foundry reads what .foundry
// holds as artifacts, facts and contracts, and prints them, so a committed
// link to .git/config or to an untracked .env must not make their secrets
// part of the memory. It matches [ErrOutside] for errors.Is.
var ErrOutsideFoundry error = outsideFoundry{}

type outsideFoundry struct{}

func (outsideFoundry) Error() string        { return "leads outside " + FoundryDir }
func (outsideFoundry) Is(target error) bool { return target == ErrOutside }

// ErrFoundryIsProject marks a read inside a .foundry that is a symbolic
// link to the project's own folder (".", "sub/.."): such a .foundry holds
// the whole project, .git/config and an untracked .env included, so
// nothing is read through it. It matches [ErrOutsideFoundry] and
// [ErrOutside] for errors.Is.
var ErrFoundryIsProject error = foundryIsProject{}

type foundryIsProject struct{}

func (foundryIsProject) Error() string {
	return ErrOutsideFoundry.Error() + ": " + FoundryDir + " is the project's own folder"
}
func (foundryIsProject) Is(target error) bool {
	return target == ErrOutsideFoundry || target == ErrOutside
}

// InFoundry reports whether name, a clean slash path relative to a
// project's root, names something inside .foundry (not .foundry itself).
func InFoundry(name string) bool { return strings.HasPrefix(name, FoundryDir+"/") }

// at returns the os.Root that reads name, a slash path, and name relative
// to it. A name inside .foundry is read from .foundry opened as a root of
// its own, so a symbolic link in .foundry is followed only to a target
// inside .foundry, which the git views hold to as well. .foundry itself,
// when it is a link, is followed as any link of the project is: to a
// folder inside the project, but not to the project's own folder
// ([ErrFoundryIsProject]). Every other name is read from r. The caller
// closes the root returned when it is not r.r. The root of a folder under
// the project's ([Root.OpenWriteFolder]) is its own confinement.
func (r *Root) at(name string) (*os.Root, string, error) {
	if r.under != "" || !InFoundry(name) {
		return r.r, name, nil
	}
	sub, err := r.r.OpenRoot(FoundryDir)
	if err != nil {
		// A .foundry that leads out of the project is refused as any
		// link out of it is.
		return nil, "", escaped(name, err)
	}
	if err := r.notProject(sub); err != nil {
		sub.Close()
		return nil, "", &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return sub, name[len(FoundryDir)+1:], nil
}

// notProject returns [ErrFoundryIsProject] when sub, .foundry opened as a
// root, is the project's own folder, which would confine nothing, or the
// error of telling; one fstat.
func (r *Root) notProject(sub *os.Root) error {
	fi, err := sub.Stat(".")
	if err == nil && os.SameFile(fi, r.self) {
		err = ErrFoundryIsProject
	}
	return err
}

// inFoundry names name in err, an error of reading it from the root [at]
// gave; sub says that root was .foundry's, where every refusal of a link
// that leaves it, as os.Root words it or as [escaped] has named it, is
// [ErrOutsideFoundry] (the project root's is left to [escaped], which makes
// it [ErrOutside]).
func inFoundry(name string, err error, sub bool) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = name
		if sub && (pe.Err == ErrOutside || escapesParent(pe.Err)) {
			pe.Err = ErrOutsideFoundry
		}
	}
	return err
}

// projectFS is the file system of a project's Root: os.Root's, with every
// name inside .foundry read through .foundry's own root ([Root.at]).
type projectFS struct{ r *Root }

var (
	_ fs.StatFS     = projectFS{}
	_ fs.ReadLinkFS = projectFS{}
)

// do runs op on the root that reads name, with name relative to it.
func (p projectFS) do(name string, op func(root *os.Root, rel string) error) error {
	if !fs.ValidPath(name) || strings.IndexByte(name, 0) >= 0 {
		// Refused before .foundry is looked up, as the git views refuse
		// it: a path's validity does not depend on what .foundry is.
		return &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	root, rel, err := p.r.at(name)
	if err != nil {
		return err
	}
	if root != p.r.r {
		defer root.Close()
	}
	return inFoundry(name, op(root, rel), root != p.r.r)
}

// open is Open as an *os.File.
func (p projectFS) open(name string) (f *os.File, err error) {
	err = p.do(name, func(root *os.Root, rel string) (err error) { f, err = openNonBlocking(root, rel); return err })
	return f, err
}

// nonBlockingFS is the file system of an os.Root whose Open never waits:
// a named pipe, or a device whose opening would wait, opens at once, as a
// file whose reads end at once, for [check] to refuse from its Stat. A
// check before the opening cannot see a file replaced meanwhile.
type nonBlockingFS struct{ root *os.Root }

func (f nonBlockingFS) Open(name string) (fs.File, error) { return openNonBlocking(f.root, name) }

func (f nonBlockingFS) Stat(name string) (fs.FileInfo, error) { return f.root.Stat(name) }

// openNonBlocking opens name of root for reading without waiting.
func openNonBlocking(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

func (p projectFS) Open(name string) (fs.File, error) {
	f, err := p.open(name) // do refuses an invalid name
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (p projectFS) Stat(name string) (fi fs.FileInfo, err error) {
	err = p.do(name, func(root *os.Root, rel string) (err error) { fi, err = fs.Stat(root.FS(), rel); return err })
	return fi, err
}

func (p projectFS) Lstat(name string) (fi fs.FileInfo, err error) {
	err = p.do(name, func(root *os.Root, rel string) (err error) { fi, err = fs.Lstat(root.FS(), rel); return err })
	return fi, err
}

func (p projectFS) ReadLink(name string) (target string, err error) {
	err = p.do(name, func(root *os.Root, rel string) (err error) { target, err = fs.ReadLink(root.FS(), rel); return err })
	return target, err
}

// ErrNoFoundry means the project's .foundry folder is not there (or is no
// folder): a checkout of a branch without the project removed it, say,
// under a running server. A write, or the search cache, must not create
// it again, which would leave untracked files that stop the checkout back.
var ErrNoFoundry = errors.New("is not there: the project's folder is gone (a checkout of a branch without it?); foundry init creates it again")

// CheckFoundry returns nil when the root's .foundry is a folder (through a
// link too), and else an error naming it that matches [ErrNoFoundry].
func (r *Root) CheckFoundry() error {
	fi, err := fs.Stat(r.FS(), FoundryDir)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && !fi.IsDir():
		return &fs.PathError{Op: "write", Path: r.Path(FoundryDir), Err: ErrNoFoundry}
	}
	return err
}
