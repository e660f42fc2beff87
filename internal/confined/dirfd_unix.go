//go:build unix

package confined

import (
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// holdFD opens the root's folder once more, for the descriptor its files
// are opened, renamed and synced from with the *at system calls: a
// [WriteFolder] writes a few files per change, and os.Root would open the
// folder again for each call, register each regular file with the network
// poller (a failing epoll_ctl and four fcntl calls per file) and look at a
// rename's target first.
func (r *Root) holdFD() { r.held, r.fd = openDirFD(r.r) }

// direct reports whether name, a clean path, is reached from the held
// descriptor: a file directly in the folder.
func (r *Root) direct(name string) bool {
	return r.held != nil && name != "." && !strings.Contains(name, "/")
}

// openFile is r.r.OpenFile with a link in the last component never
// followed; a file directly in a held folder is opened from its descriptor.
func (r *Root) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if !r.direct(name) {
		return r.r.OpenFile(name, flag, perm)
	}
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(r.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	})
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	// A blocking descriptor: NewFile registers nothing with the poller.
	return os.NewFile(uintptr(fd), r.Path(name)), nil
}

// rename is r.r.Rename for clean names publish checked.
func (r *Root) rename(oldname, newname string) error {
	if !r.direct(oldname) || !r.direct(newname) {
		return r.r.Rename(oldname, newname)
	}
	_, err := ignoringEINTR(func() (int, error) { return 0, unix.Renameat(r.fd, oldname, r.fd, newname) })
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// syncHeld syncs the held folder itself, and reports whether there was
// one. It is the folder the renames went into (they were made from the
// same descriptor), so syncing it makes them durable exactly as syncing a
// descriptor opened anew would: fsync applies to the folder, not to the
// descriptor it is called on.
func (r *Root) syncHeld() bool {
	if r.held == nil {
		return false
	}
	_, _ = ignoringEINTR(func() (int, error) { return 0, unix.Fsync(r.fd) })
	return true
}
