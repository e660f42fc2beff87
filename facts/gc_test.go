package facts

import (
	"runtime/debug"
	"testing"
)

// TestPauseGCNests checks that overlapping pauses restore the program's
// setting once, when the last one ends, and that resuming twice counts
// once.
func TestPauseGCNests(t *testing.T) {
	setting := func() int { // reads the setting by setting it back
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	r1 := pauseGC()
	r2 := pauseGC()
	if got := setting(); got != -1 {
		t.Fatalf("paused twice: GC percent %d, want -1", got)
	}
	r1()
	r1()
	if got := setting(); got != -1 {
		t.Fatalf("one pause of two ended (its resume called twice): GC percent %d, want -1", got)
	}
	r2()
	if got := setting(); got != 77 {
		t.Fatalf("both pauses ended: GC percent %d, want 77", got)
	}
}
