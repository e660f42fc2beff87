//go:build linux || openbsd || dragonfly || solaris || illumos

package facts

import (
	"io/fs"
	"syscall"
)

// ctime returns the status-change time of a working-tree file in
// nanoseconds, 0 when unknown. Every write, rename onto the file and
// metadata change sets it, and unlike the modification time no tool sets it
// back.
func ctime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
