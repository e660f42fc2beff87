package hugepages

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// hugePageSize returns the size of the huge pages the kernel backs memory
// with where a program asks for them, or 0 when asking changes nothing:
// no transparent huge pages, the "never" setting, or "always", under
// which every large enough stretch of heap gets them unasked. It reads
// the kernel's settings once.
var hugePageSize = sync.OnceValue(func() uintptr {
	mode, ok := readSys("/sys/kernel/mm/transparent_hugepage/enabled")
	if !ok || !bytes.Contains(mode, []byte("[madvise]")) {
		return 0
	}
	size, ok := readSys("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if !ok {
		return 0
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(size)), 10, 64)
	if err != nil || n == 0 || n&(n-1) != 0 || n > MaxBytes {
		return 0
	}
	return uintptr(n)
})

// readSys reads a short kernel setting: one bounded read, since a file of
// /sys reports its size as 4,096 whatever it holds.
func readSys(name string) ([]byte, bool) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, 128)
	n, err := f.Read(buf)
	if err != nil || n == len(buf) {
		return nil, false
	}
	return buf[:n], true
}

// advise marks the addresses [lo, hi) of the heap for huge pages, or, with
// huge false, withdraws the mark: huge pages already there stay, and no
// more are made. It takes addresses, not a slice: when the mark is
// withdrawn, the object it was made on is long gone, and the memory is the
// heap's, mapped for the process's life.
func advise(lo, hi uintptr, huge bool) {
	if lo >= hi {
		return
	}
	advice := syscall.MADV_NOHUGEPAGE
	if huge {
		advice = syscall.MADV_HUGEPAGE
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, uintptr(advice))
}
