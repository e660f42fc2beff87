//go:build unix

package fileid

import (
	"io/fs"
	"syscall"
)

// Inode returns a file's device and inode, and ok when the FileInfo comes
// from the operating system.
func Inode(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // Dev is int32 on some platforms
}
