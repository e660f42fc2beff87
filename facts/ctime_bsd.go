//go:build darwin || freebsd || netbsd

package facts

import (
	"io/fs"
	"syscall"
)

// ctime returns the status-change time of a working-tree file in
// nanoseconds, 0 when unknown (see the Linux version): without it an edit
// in place that keeps the size and sets the modification time back (cp -p,
// touch -r, rsync -t --inplace) leaves the file's identity unchanged.
func ctime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano()
	}
	return 0
}
