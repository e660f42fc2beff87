//go:build unix

package facts

import (
	"io/fs"
	"syscall"
)

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
