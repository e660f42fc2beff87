//go:build linux || openbsd || dragonfly || solaris || illumos

package fileid

import (
	"io/fs"
	"syscall"
)

// Ctime returns a file's status-change time in nanoseconds, 0 when the
// FileInfo does not come from the operating system. Every write, rename
// onto the file and metadata change sets it, and unlike the modification
// time no tool sets it back.
func Ctime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
