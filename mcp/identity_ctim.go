//go:build linux || openbsd || dragonfly || solaris || illumos

package mcp

import (
	"io/fs"
	"syscall"
)

// sysIdentity returns a file's status-change time in nanoseconds, its
// device and inode, from the FileInfo the operating system gave; zeros
// when it gave none. Every write, rename onto the file and metadata change
// sets the status-change time, and no tool sets it back.
func sysIdentity(fi fs.FileInfo) (ctime int64, dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano(), uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // Dev is uint32 on some platforms
	}
	return 0, 0, 0
}
