//go:build unix

package confined

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// LockDirs takes an exclusive flock(2) on each folder at paths, on the
// folder itself: each is opened read-only as a directory, a symbolic link
// in its last component never followed, so no file is created anywhere.
// The folders are locked one after the other in the order of their device
// and inode, a folder named twice (or by two paths) once, so two callers
// whose sets overlap, named in any order, never deadlock. It waits while
// another description holds one of them, giving up when ctx is done. Once
// all are held, each path is checked to still name the folder locked: a
// folder removed or replaced meanwhile is released and its path opened
// again, and one no longer there is an error matching [fs.ErrNotExist].
// The kernel drops the locks when the holder dies. It returns the
// function that releases them all. Outside unix, and where a folder's file
// system cannot flock a folder (NFS), it returns an error matching
// [errors.ErrUnsupported].
func LockDirs(ctx context.Context, paths ...string) (unlock func() error, err error) {
	for {
		dirs, err := openDirs(paths)
		if err != nil {
			return nil, err
		}
		// Closing a folder's only descriptor drops its lock.
		release := func() error { return closeDirs(dirs) }
		for _, d := range dirs {
			if err := lockFile(ctx, d.f); err != nil {
				_ = release()
				if unsupported(err) {
					return nil, fmt.Errorf("lock %s: %w (%w)", d.path, errors.ErrUnsupported, err)
				}
				return nil, fmt.Errorf("lock %s: %w", d.path, err)
			}
		}
		if slices.IndexFunc(dirs, (*lockedDir).moved) < 0 {
			return release, nil
		}
		_ = release()
	}
}

// unsupported reports whether err, from flock(2) on a folder, says the
// folder's file system cannot lock it so: NFS emulates flock with byte-range
// locks, which need a file open for writing (EBADF), or has no lock
// service (ENOLCK); others refuse it outright.
func unsupported(err error) bool {
	return errors.Is(err, unix.EBADF) || errors.Is(err, unix.ENOLCK) || errors.Is(err, unix.EOPNOTSUPP) ||
		errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL)
}

// lockedDir is one folder of [LockDirs], open, with its identity.
type lockedDir struct {
	path     string
	f        *os.File
	dev, ino uint64
}

// closeDirs closes the folders of dirs, and returns the first error.
func closeDirs(dirs []*lockedDir) error {
	var first error
	for _, d := range dirs {
		if err := d.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openDirs opens the folders at paths, once each, sorted by identity.
func openDirs(paths []string) (_ []*lockedDir, err error) {
	var dirs []*lockedDir
	defer func() {
		if err != nil {
			_ = closeDirs(dirs) // those opened before the failure
		}
	}()
	for _, p := range paths {
		fd, err := ignoringEINTR(func() (int, error) {
			return unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		})
		if err != nil {
			// O_NOFOLLOW on a link: ELOOP, or ENOTDIR with O_DIRECTORY (Linux).
			if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				err = fmt.Errorf("%w: a symbolic link is not locked through", err)
			}
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return nil, &fs.PathError{Op: "fstat", Path: p, Err: err}
		}
		d := &lockedDir{path: p, dev: uint64(st.Dev), ino: uint64(st.Ino)}
		if slices.ContainsFunc(dirs, d.same) {
			unix.Close(fd)
			continue
		}
		// A blocking descriptor: NewFile registers nothing with the poller.
		d.f = os.NewFile(uintptr(fd), p)
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(a, b *lockedDir) int {
		return cmp.Or(cmp.Compare(a.dev, b.dev), cmp.Compare(a.ino, b.ino))
	})
	return dirs, nil
}

// same reports whether d and e are the same folder.
func (d *lockedDir) same(e *lockedDir) bool { return d.dev == e.dev && d.ino == e.ino }

// moved reports whether d's path no longer names the folder d holds open.
func (d *lockedDir) moved() bool {
	var st unix.Stat_t
	if err := unix.Lstat(d.path, &st); err != nil {
		return true
	}
	return uint64(st.Dev) != d.dev || uint64(st.Ino) != d.ino
}
