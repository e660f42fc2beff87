//go:build !linux

package hugepages

// hugePageSize returns 0: huge pages are asked for on Linux only.
func hugePageSize() uintptr { return 0 }

func advise(lo, hi uintptr, huge bool) {}
