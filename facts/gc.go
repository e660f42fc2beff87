package facts

import (
	"runtime/debug"
	"sync"
)

// The first scan of a store builds its whole live state at once: every
// fact, entry and posting list it allocates stays. A collection while the
// state grows finds next to no garbage and marks the part already built,
// again at every doubling of the heap: about a quarter of a fresh server's
// first search over 10,000 facts. So collection pauses while the scan
// runs and resumes, at the program's setting, when it ends. Scans that
// overlap (stores in one process) pause it once.
var bulk struct {
	sync.Mutex
	n       int // scans under way
	percent int // the setting to restore
}

// pauseGC pauses garbage collection until the returned function is called.
func pauseGC() (resume func()) {
	bulk.Lock()
	if bulk.n == 0 {
		bulk.percent = debug.SetGCPercent(-1)
	}
	bulk.n++
	bulk.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			bulk.Lock()
			if bulk.n--; bulk.n == 0 {
				debug.SetGCPercent(bulk.percent)
			}
			bulk.Unlock()
		})
	}
}
