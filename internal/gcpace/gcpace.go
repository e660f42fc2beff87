// Package gcpace paces the garbage collector of Foundry's processes. It
// pauses collection while a bulk build allocates state that all stays
// ([Pause]), and it bounds the heap of a long-lived server closer to its
// live heap than the default pacing does ([Bound]).
//
// Why a bound: the server's heap is mostly its warm memory index, which
// lives as long as the process, and each search allocates a little
// garbage. With the default pacing (GOGC=100) the heap grows to twice the
// live heap before each collection, so the resident size climbs over the
// first thousands of searches to about twice what the server keeps:
// measured with scripts/bench-mcp on 50,000 facts, 130 to 150 MB live, a
// 285 MB heap goal, 240 MiB resident when warm and 287 to 308 MiB after
// 20,000 searches. Collecting when the heap is half as large again as the
// live heap keeps it under the peak the warm-up reaches anyway (240 MiB,
// flat over 20,000 searches).
//
// A soft memory limit derived from the live heap was measured too and
// rejected: a first build with collection paused leaves its live objects
// spread over spans that the garbage shared, so the resident size stays
// well above live + headroom and the collector ran back to back (24% of
// the CPU) trying to meet a limit it could not.
package gcpace

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// state is the process's pacing: the pauses under way.
var state struct {
	sync.Mutex
	paused  int   // pauses under way
	percent int   // the GC percent to restore when the last pause ends
	limit   int64 // the memory limit to restore when the last pause ends

	holds int      // holds under way (see Hold)
	held  []func() // resumes of pauses that lingered, until the next Release
}

// PauseCeiling is the memory limit a pause sets, when the program has none:
// collection stays off while the heap is below it and runs as it nears it.
// Ordinary builds stay under it (10,000 facts: about 45 MiB; 50,000 facts
// from the search cache: about 220 MiB, which then pays a few collections),
// but a hostile repository of 2,000 facts of 60 KB each grew a paused first
// search to 1.1 GB: the ceiling keeps a pause from holding every byte of
// garbage a build of any size makes.
const PauseCeiling = 192 << 20

// Pause pauses garbage collection until the returned function is called.
//
// The first scan of a store builds its whole live state at once: every
// fact, entry and posting list it allocates stays. A collection while the
// state grows finds next to no garbage and marks the part already built,
// again at every doubling of the heap: about a quarter of a fresh server's
// first search over 10,000 facts. So collection pauses while the scan runs
// and resumes, at the program's setting, when it ends. Pauses that overlap
// (stores in one process) pause it once.
func Pause() (resume func()) {
	state.Lock()
	if state.paused == 0 {
		state.percent = debug.SetGCPercent(-1)
		state.limit = debug.SetMemoryLimit(-1) // reads it
		if state.limit == math.MaxInt64 {      // none: neither GOMEMLIMIT nor a program setting
			debug.SetMemoryLimit(PauseCeiling)
		}
	}
	state.paused++
	state.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			state.Lock()
			defer state.Unlock()
			if state.paused--; state.paused == 0 {
				debug.SetGCPercent(state.percent)
				debug.SetMemoryLimit(state.limit)
			}
		})
	}
}

// ServerPercent is the GC percent of a long-lived server: collect when the
// heap has grown by half the live heap. Against the default of 100 it
// costs about twice as many collections per search, each marking the live
// heap: on 50,000 facts, over 8,300 requests (GODEBUG=gctrace=1), 950 ms
// of collection against 486 ms, some 0.06 ms a request on searches of 0.6
// to 8 ms.
const ServerPercent = 50

// Bound sets the GC percent of the process to percent (a long-lived
// server's, or a bulk run's), also across later pauses. A GOGC in the environment is the user's choice:
// Bound then does nothing. It returns a function that restores the
// setting it found.
func Bound(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	state.Lock()
	defer state.Unlock()
	var prev int
	if state.paused > 0 {
		prev, state.percent = state.percent, percent
	} else {
		prev = debug.SetGCPercent(percent)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			state.Lock()
			defer state.Unlock()
			if state.paused > 0 {
				state.percent = prev
			} else {
				debug.SetGCPercent(prev)
			}
		})
	}
}

// anyHeld reports that state.held is not empty, so that Release, called on every message
// a server writes, costs a load when nothing lingers.
var anyHeld atomic.Bool

// Linger ends a pause (calls resume) now, unless a hold is under way
// ([Hold]): then the pause lingers until the next [Release].
//
// A server answers a request after the build that paused collection has
// returned: the answer is ranked, marshalled, checked and written then.
// Resuming at the build's end starts a collection at once, the heap having
// grown from a few megabytes to the whole live state since the last one
// (measured on a fresh server's first search over 10,000 facts: a cycle
// marking 24 MB, its assists and background work competing with the
// answer). Lingering until the answer is written moves that cycle after
// it. The pause's memory ceiling ([PauseCeiling]) still bounds the heap
// meanwhile.
func Linger(resume func()) {
	state.Lock()
	if state.holds == 0 {
		state.Unlock()
		resume()
		return
	}
	state.held = append(state.held, resume)
	anyHeld.Store(true)
	state.Unlock()
}

// Hold makes the pauses ended with [Linger] last until the next [Release]:
// for a server, which calls Release once it has written a message. It
// returns a function that ends the hold and resumes what lingers.
func Hold() (end func()) {
	state.Lock()
	state.holds++
	state.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			state.Lock()
			state.holds--
			state.Unlock()
			Release()
		})
	}
}

// Release resumes the pauses that linger (see [Linger]); it is cheap when
// none does.
func Release() {
	if !anyHeld.Load() {
		return
	}
	state.Lock()
	held := state.held
	state.held = nil
	anyHeld.Store(false)
	state.Unlock()
	for _, resume := range held {
		resume()
	}
}
