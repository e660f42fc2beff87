//go:build darwin || freebsd || netbsd

package fileid

import (
	"io/fs"
	"syscall"
)

// Ctime returns a file's status-change time in nanoseconds, 0 when the
// FileInfo does not come from the operating system (see the Linux file).
func Ctime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano()
	}
	return 0
}
