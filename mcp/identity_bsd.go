//go:build darwin || freebsd || netbsd

package mcp

import (
	"io/fs"
	"syscall"
)

// sysIdentity returns a file's status-change time in nanoseconds, its
// device and inode (see the Linux version).
func sysIdentity(fi fs.FileInfo) (ctime int64, dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano(), uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // Dev is int32 on some platforms
	}
	return 0, 0, 0
}
