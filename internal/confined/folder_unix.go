//go:build unix

package confined

import (
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openFD opens the folder through its root once more, for the descriptor
// that ReadRegular opens files from.
func (f *Folder) openFD() { f.open, f.fd = openDirFD(f.sub) }

// openDirFD opens root's folder once more and returns it with its
// descriptor, or nil and -1 where it cannot.
func openDirFD(root *os.Root) (*os.File, int) {
	d, err := root.Open(".")
	if err != nil {
		return nil, -1
	}
	// Control, not Fd: Fd would switch the descriptor to blocking mode,
	// two more system calls for nothing.
	fd := -1
	rc, err := d.SyscallConn()
	if err == nil {
		err = rc.Control(func(u uintptr) { fd = int(u) })
	}
	if err != nil {
		d.Close()
		return nil, -1
	}
	return d, fd
}

// ReadRegular reads name, a file directly in the folder, whole, in the
// common case of a bulk read: a regular file, not a link, not empty, of at
// most max bytes and within the root's limit for it, as big when read as
// when opened. Then it costs four system calls (open, fstat, read, close)
// and no [os.File], whose opening on Linux also tries to register a
// regular file with the network poller (one failing epoll_ctl per file).
// In every other case, errors and a nil Folder ([FolderOf]) included, ok
// is false and nothing is returned: the caller reads the file through
// [Folder.Open] or its file system, whose answer decides (a link followed
// within the root, a limit reported, a file that grew bounded). The file
// is opened without following a link and without blocking, so neither a
// link out of the root nor a named pipe is ever read here.
func (f *Folder) ReadRegular(name string, max int64) (b []byte, ok bool) {
	if f == nil || f.open == nil || !fs.ValidPath(name) || strings.Contains(name, "/") || name == "." {
		return nil, false
	}
	max = min(max, LimitFor(f.full(name)).Max)
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(f.fd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG || st.Size <= 0 || st.Size > max {
		return nil, false
	}
	// One byte more than the size, to tell a file that grew: the general
	// path then reads on within the bound.
	b = make([]byte, st.Size+1)
	n, err := ignoringEINTR(func() (int, error) { return unix.Read(fd, b) })
	if err != nil || int64(n) != st.Size {
		return nil, false
	}
	return b[:n], true
}

// ignoringEINTR calls fn again while a signal interrupts it.
func ignoringEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != unix.EINTR {
			return n, err
		}
	}
}
