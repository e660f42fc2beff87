package blackboard

import (
	"sync"
	"time"
)

// ClearInterval is how long a process that keeps a [Clearings] lets pass
// before its writes remove the stale temp files of a folder again. A temp
// file is removed once it is [confined.StaleAge] old, whenever a folder is
// cleared; clearing less often only lets a killed writer's leftover wait
// longer: it goes at most StaleAge plus ClearInterval after it was
// written, at the first write to its folder after that.
const ClearInterval = 10 * time.Minute

// Clearings remembers when a long-running process last removed the stale
// temp files of each folder a write clears (a wave's and the contracts
// lock's), so that a write lists a large wave at most once per
// [ClearInterval] instead of on every call. A server keeps one for the
// life of its project and passes it in [Options]; without one (a one-shot
// command), every write clears. It is safe for concurrent use.
type Clearings struct {
	now  func() time.Time
	mu   sync.Mutex
	last map[string]time.Time // by project root and folder
}

// NewClearings returns a Clearings that reads the time from now
// (time.Now when nil).
func NewClearings(now func() time.Time) *Clearings {
	if now == nil {
		now = time.Now
	}
	return &Clearings{now: now, last: map[string]time.Time{}}
}

// due reports whether the folder dir of the project root is to be cleared
// now, and when it is, notes it cleared: true on the first call for a
// folder, and once ClearInterval has passed since it was last due. A nil
// Clearings clears every time.
func (c *Clearings) due(root, dir string) bool {
	if c == nil {
		return true
	}
	now := c.now()
	key := root + "\x00" + dir
	c.mu.Lock()
	defer c.mu.Unlock()
	// A clock set back (no monotonic reading) clears at once rather than
	// waiting for it to catch up.
	if last, ok := c.last[key]; ok && !now.Before(last) && now.Sub(last) < ClearInterval {
		return false
	}
	c.last[key] = now
	return true
}
