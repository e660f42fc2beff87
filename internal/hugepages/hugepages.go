// Package hugepages has the kernel back a heap that is about to grow large
// with huge pages (2 MiB on x86-64) instead of 4 KiB ones.
//
// The first touch of each page of new heap is a page fault, and under a
// hypervisor a fault costs far more than on bare metal: 11 µs on the
// machine the benchmarks run on, a guest of the PVM hypervisor, where a
// CLI search over 10,000 facts took 5,100 faults and spent about half its
// time on them. Linux backs memory with huge pages where a program asks
// for them (madvise(MADV_HUGEPAGE) under the "madvise" setting of
// transparent huge pages, the default of most distributions), one fault
// per 2 MiB, but the Go runtime asks only for its own metadata. [Prepare]
// asks for a stretch of heap before the process's first large build: that
// search then takes 1,400 faults and 56 ms instead of 88.
//
// Prepare allocates one object of the build's size, which the runtime maps
// fresh and does not touch, advises the kernel to back it with huge pages,
// and frees it with a collection of the still small heap. The runtime
// hands out free pages, lowest address first, before it maps new ones, so
// the build's objects land in the advised stretch. When the build ends,
// the advice is withdrawn (MADV_NOHUGEPAGE): the huge pages the build
// filled stay, but the kernel's background collapsing (khugepaged) does
// not refill the pages the runtime later returns to it, which would let a
// long-lived server's resident size creep up. This is why the Go runtime
// itself stopped advising its heap (golang/go#61718, #64332), and why
// Prepare works once per process, around one build.
//
// It is a hint. Where the kernel declines, the heap is what it would have
// been; under the "madvise" setting of the kernel's defrag, a fault in the
// stretch may first compact memory to find a huge page.
//
// The state kept here (what was prepared) is the process's, as its heap
// is.
package hugepages

import (
	"runtime"
	"sync"
	"unsafe"
)

// minBytes is the least build [Prepare] prepares for. Preparing costs a
// garbage collection of a small heap, 1 to 3 ms where it was measured;
// 4 MiB of heap in 4 KiB pages is 1,024 faults, 11 ms there.
const minBytes = 4 << 20

// MaxBytes bounds what [Prepare] maps at once, so that an estimate from
// hostile input cannot become an allocation the machine cannot give. It
// is below gcpace.PauseCeiling: the prepared stretch, free but kept,
// counts towards the memory limit a paused build runs under.
const MaxBytes = 128 << 20

// prepared records the process's one preparation: whether it happened,
// and the stretch advised, [lo, hi) (0, 0 when none was).
var prepared struct {
	sync.Mutex
	done   bool
	lo, hi uintptr
}

// Prepare readies about n bytes of heap backed by huge pages for a build
// about to allocate that much, and returns the function that ends the
// advice when the build is done. It acts once per process, at the first
// call whose n is at least 4 MiB, where the kernel gives huge pages on
// request; n over [MaxBytes] prepares MaxBytes. Otherwise, and for every
// later call, it does nothing and returns a function that does nothing.
func Prepare(n int64) (end func()) {
	n = min(n, MaxBytes)
	size := hugePageSize()
	if n < minBytes || size == 0 {
		return func() {}
	}
	prepared.Lock()
	defer prepared.Unlock()
	if prepared.done {
		return func() {}
	}
	prepared.done = true
	b := make([]byte, n) // mapped fresh for an object this large: untouched
	lo, hi := stretch(uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(n), size)
	advise(lo, hi, true)
	// b's last use: the collection frees it for the build to take.
	runtime.KeepAlive(b)
	runtime.GC()
	prepared.lo, prepared.hi = lo, hi
	return func() { advise(lo, hi, false) }
}

// stretch returns the part [lo, hi) of the n bytes at base that whole
// huge pages of size bytes cover, as addresses; lo == hi when none does.
func stretch(base, n, size uintptr) (lo, hi uintptr) {
	lo = (base + size - 1) &^ (size - 1)
	hi = (base + n) &^ (size - 1)
	if hi < lo {
		return lo, lo
	}
	return lo, hi
}
