//go:build !linux

package hugepages

// Advisable returns 0: huge pages are asked for on Linux only.
func Advisable() uintptr { return 0 }

func advise([]byte, uintptr) {}
