package hugepages

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Advisable returns the size of the huge pages the kernel backs memory
// with where a program asks for them, or 0 when asking changes nothing:
// no transparent huge pages, the "never" setting, or "always", under
// which every large enough stretch of heap gets them unasked.
func Advisable() uintptr { return advisable() }

var advisable = sync.OnceValue(func() uintptr {
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

// advise asks the kernel to back the huge pages that b wholly covers with
// huge pages.
func advise(b []byte, size uintptr) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (base+size-1)&^(size-1) - base
	hi := (base+uintptr(len(b)))&^(size-1) - base
	if lo < hi {
		_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	}
}
