package hugepages

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestPrepareAdvises checks that the heap Prepare readies is what a build
// allocates next, that the kernel was advised to back it with huge pages
// while the build runs, and that the advice is withdrawn when it ends: so
// /proc/self/smaps says of the mapping that holds it.
//
// It runs in a process of its own, whose heap is young, as the heap of the
// first build a process prepares is: in a test process that has run other
// tests (or this one, with -count), a free run of pages below the stretch
// can take the build's first allocation.
func TestPrepareAdvises(t *testing.T) {
	skipWithoutHugePages(t)
	if os.Getenv(freshEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrepareAdvises$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), freshEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestPrepareAdvises") {
			t.Fatalf("in a fresh process: %v\n%s", err, out)
		}
		return
	}
	const n = 32 << 20
	end := Prepare(n)
	lo, hi := preparedStretch()
	if hi-lo < n-2*hugePageSize() {
		t.Fatalf("prepared [%#x, %#x), %d bytes, want at least %d", lo, hi, hi-lo, n-2*hugePageSize())
	}
	b := make([]byte, n/2)
	mid := uintptr(unsafe.Pointer(unsafe.SliceData(b))) + n/4
	if mid < lo || mid >= hi {
		t.Fatalf("the build's first allocation holds %#x, outside the prepared [%#x, %#x)", mid, lo, hi)
	}
	if flags := vmFlags(t, mid); !slices.Contains(flags, "hg") {
		t.Errorf("while the build runs, the mapping that holds %#x has flags %v, want hg (advised)", mid, flags)
	}
	end()
	if flags := vmFlags(t, mid); !slices.Contains(flags, "nh") || slices.Contains(flags, "hg") {
		t.Errorf("after the build, the mapping that holds %#x has flags %v, want nh (advice withdrawn)", mid, flags)
	}
	runtime.KeepAlive(b)
	if Prepare(n)(); !samePrepared(lo, hi) {
		t.Error("a second Prepare in the process prepared again")
	}
}

// freshEnv, set, says that TestPrepareAdvises runs in the process its
// parent started for it.
const freshEnv = "FOUNDRY_TEST_HUGEPAGES_FRESH"

// TestPrepareLimits checks that Prepare leaves a build under 4 MiB alone
// and prepares no more than MaxBytes.
func TestPrepareLimits(t *testing.T) {
	skipWithoutHugePages(t)
	Prepare(minBytes - 1)()
	if lo, hi := preparedStretch(); lo != 0 || hi != 0 {
		t.Errorf("Prepare(%d) prepared [%#x, %#x), want nothing", minBytes-1, lo, hi)
	}
	Prepare(2 * MaxBytes)()
	if lo, hi := preparedStretch(); hi-lo > MaxBytes || hi == lo {
		t.Errorf("Prepare(%d) prepared %d bytes, want some, at most MaxBytes (%d)", 2*MaxBytes, hi-lo, MaxBytes)
	}
}

// skipWithoutHugePages skips where the kernel gives no huge pages on
// request, and otherwise forgets the process's preparation, so that the
// test prepares its own (with -count too).
func skipWithoutHugePages(t *testing.T) {
	if hugePageSize() == 0 {
		t.Skip("the kernel gives no transparent huge pages on request (/sys/kernel/mm/transparent_hugepage/enabled is not [madvise])")
	}
	prepared.Lock()
	prepared.done, prepared.lo, prepared.hi = false, 0, 0
	prepared.Unlock()
}

func preparedStretch() (lo, hi uintptr) {
	prepared.Lock()
	defer prepared.Unlock()
	return prepared.lo, prepared.hi
}

func samePrepared(lo, hi uintptr) bool {
	l, h := preparedStretch()
	return l == lo && h == hi
}

// vmFlags returns the VmFlags that /proc/self/smaps gives the mapping that
// holds addr.
func vmFlags(t *testing.T, addr uintptr) []string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
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
			return f[1:]
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
	return nil
}
