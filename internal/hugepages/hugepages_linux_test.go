package hugepages

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestPrepareAdvises checks that the heap Prepare readies is what a build
// allocates next, and that the kernel was advised to back it with huge
// pages: /proc/self/smaps says so of the mapping that holds it.
func TestPrepareAdvises(t *testing.T) {
	if Advisable() == 0 {
		t.Skip("the kernel gives no transparent huge pages on request (/sys/kernel/mm/transparent_hugepage/enabled is not [madvise])")
	}
	const n = 32 << 20
	Prepare(n)
	if got := preparedBytes(); got < n {
		t.Fatalf("prepared %d bytes, want %d", got, n)
	}
	b := make([]byte, n/2)
	mid := uintptr(unsafe.Pointer(unsafe.SliceData(b))) + n/4
	ok, err := advised(mid)
	runtime.KeepAlive(b)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Errorf("the mapping that holds %#x, in a build's first allocation after Prepare, was not advised to use huge pages", mid)
	}
}

// TestPrepareSmall checks the builds Prepare leaves alone: under MinBytes,
// or no larger than one it prepared.
func TestPrepareSmall(t *testing.T) {
	before := preparedBytes()
	for _, n := range []int{-1, 0, MinBytes - 1, before} {
		Prepare(n)
		if got := preparedBytes(); got != before {
			t.Errorf("Prepare(%d) prepared %d bytes, want it to leave %d", n, got, before)
		}
	}
}

func preparedBytes() int {
	prepared.Lock()
	defer prepared.Unlock()
	return prepared.n
}

// advised reports whether the mapping that holds addr was advised to use
// huge pages: whether /proc/self/smaps lists "hg" among its VmFlags.
func advised(addr uintptr) (bool, error) {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return false, err
	}
	in := false
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && !strings.HasSuffix(f[0], ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(l) <= uint64(addr) && uint64(addr) < h
			continue
		}
		if in && f[0] == "VmFlags:" {
			return slices.Contains(f[1:], "hg"), nil
		}
	}
	return false, fmt.Errorf("no mapping in /proc/self/smaps holds %#x", addr)
}
