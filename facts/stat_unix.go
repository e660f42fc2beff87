//go:build unix

package facts

import (
	"io/fs"
	"syscall"
)

// inode returns the device and inode of a working-tree file, when the
// FileInfo comes from the operating system.
func inode(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // Dev is int32 on some platforms
}

// linkCount returns the number of names a working-tree file has (its hard
// links), 1 when unknown.
func linkCount(fi fs.FileInfo) uint64 {
	if k, ok := fi.(interface{ nlink() uint64 }); ok { // listFacts's
		return k.nlink()
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // Nlink is uint16 or uint32 on some platforms
	}
	return 1
}
