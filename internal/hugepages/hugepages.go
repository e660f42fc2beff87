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
// asks for a stretch of heap before a large build: that search then takes
// 1,700 faults and 51 ms instead of 85.
//
// It allocates one object of the build's size, which the runtime maps
// fresh and does not touch, advises the kernel to back it with huge pages,
// and frees it with a collection. The runtime hands out free pages, lowest
// address first, before it maps new ones, so the build's objects land in
// the advised stretch. It is a hint: where the kernel declines (no huge
// page free), the heap is what it would have been.
package hugepages

import (
	"runtime"
	"sync"
)

// MinBytes is the least build [Prepare] prepares for. Preparing costs a
// garbage collection of a small heap, 1 to 3 ms where it was measured;
// 4 MiB of heap in 4 KiB pages is 1,024 faults, 11 ms there.
const MinBytes = 4 << 20

// MaxBytes bounds what [Prepare] maps at once, so that an estimate from
// hostile input cannot become an allocation the machine cannot give. It
// is below gcpace.PauseCeiling: the prepared stretch, free but kept,
// counts towards the memory limit a paused build runs under.
const MaxBytes = 128 << 20

// prepared is the largest stretch prepared so far in the process.
var prepared struct {
	sync.Mutex
	n int
}

// Prepare readies about n bytes of heap backed by huge pages, for a build
// about to allocate that much, where the kernel gives huge pages on
// request (see [Advisable]). It does nothing for n under [MinBytes], or
// when a stretch at least as large was prepared already; n over
// [MaxBytes] prepares MaxBytes.
func Prepare(n int) {
	n = min(n, MaxBytes)
	if n < MinBytes {
		return
	}
	size := Advisable()
	if size == 0 {
		return
	}
	prepared.Lock()
	defer prepared.Unlock()
	if n <= prepared.n {
		return
	}
	b := make([]byte, n) // mapped fresh for an object this large: untouched
	advise(b, size)
	runtime.KeepAlive(b) // b's last use: the collection below frees it
	runtime.GC()
	prepared.n = n
}
