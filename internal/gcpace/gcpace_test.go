package gcpace

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/foundryhq/foundry/internal/gcpace/gcpacetest"
)

// TestPauseNests checks that overlapping pauses restore the program's
// setting once, when the last one ends, and that resuming twice counts
// once.
func TestPauseNests(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	r1 := Pause()
	r2 := Pause()
	if got := gcpacetest.Percent(); got != -1 {
		t.Fatalf("paused twice: GC percent %d, want -1", got)
	}
	r1()
	r1()
	if got := gcpacetest.Percent(); got != -1 {
		t.Fatalf("one pause of two ended (its resume called twice): GC percent %d, want -1", got)
	}
	r2()
	if got := gcpacetest.Percent(); got != 77 {
		t.Fatalf("both pauses ended: GC percent %d, want 77", got)
	}
}

// TestBound checks that a bound sets the GC percent, holds across a pause
// that began before it and one that begins after it, and that restoring
// it brings back the setting it found, even during a pause.
func TestBound(t *testing.T) {
	t.Setenv("GOGC", "") // Bound reads the environment; GOGC may be set around the tests
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	restore := Bound(ServerPercent)
	if got := gcpacetest.Percent(); got != ServerPercent {
		t.Fatalf("bound: GC percent %d, want %d", got, ServerPercent)
	}
	resume := Pause()
	resume()
	if got := gcpacetest.Percent(); got != ServerPercent {
		t.Fatalf("bound, after a pause: GC percent %d, want %d", got, ServerPercent)
	}
	restore()
	restore()
	if got := gcpacetest.Percent(); got != 100 {
		t.Fatalf("bound restored: GC percent %d, want 100", got)
	}

	resume = Pause()
	restore = Bound(30)
	if got := gcpacetest.Percent(); got != -1 {
		t.Fatalf("bound during a pause: GC percent %d, want -1 until the pause ends", got)
	}
	resume()
	if got := gcpacetest.Percent(); got != 30 {
		t.Fatalf("pause that began before the bound ended: GC percent %d, want 30", got)
	}
	resume = Pause()
	restore()
	resume()
	if got := gcpacetest.Percent(); got != 100 {
		t.Fatalf("bound restored during a pause: GC percent %d after it, want 100", got)
	}
}

// TestBoundLeavesGOGC checks that a GOGC in the environment wins.
func TestBoundLeavesGOGC(t *testing.T) {
	t.Setenv("GOGC", "200")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	restore := Bound(ServerPercent)
	if got := gcpacetest.Percent(); got != 100 {
		t.Fatalf("GOGC=200 set: GC percent %d, want 100 left alone", got)
	}
	restore()
	if got := gcpacetest.Percent(); got != 100 {
		t.Fatalf("restore without a bound: GC percent %d, want 100", got)
	}
}

// TestPauseSetsCeiling checks that a pause sets PauseCeiling as the memory
// limit when the program has none, leaves a limit the program set, and
// restores the limit it found when the last pause ends.
func TestPauseSetsCeiling(t *testing.T) {
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	r1 := Pause()
	r2 := Pause()
	if got := debug.SetMemoryLimit(-1); got != PauseCeiling {
		t.Fatalf("paused: memory limit %d, want PauseCeiling %d", got, PauseCeiling)
	}
	r1()
	if got := debug.SetMemoryLimit(-1); got != PauseCeiling {
		t.Fatalf("one pause of two ended: memory limit %d, want PauseCeiling %d", got, PauseCeiling)
	}
	r2()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("both pauses ended: memory limit %d, want none", got)
	}

	debug.SetMemoryLimit(1 << 30) // as GOMEMLIMIT=1GiB would
	r := Pause()
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("paused under the program's limit: memory limit %d, want 1 GiB kept", got)
	}
	r()
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("pause ended: memory limit %d, want 1 GiB", got)
	}
}

// TestLinger checks that a pause ended with Linger ends at once without a
// hold, lasts until the next Release during one, and that ending the hold
// resumes what still lingers.
func TestLinger(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"no hold", func(t *testing.T) {
			Release() // nothing lingers: a no-op
			Linger(Pause())
			if got := gcpacetest.Percent(); got != 77 {
				t.Fatalf("lingered without a hold: GC percent %d, want 77", got)
			}
		}},
		{"hold, then release", func(t *testing.T) {
			end := Hold()
			defer end()
			Release() // nothing lingers yet
			Linger(Pause())
			Linger(Pause())
			if got := gcpacetest.Percent(); got != -1 {
				t.Fatalf("lingering during a hold: GC percent %d, want -1", got)
			}
			Release()
			if got := gcpacetest.Percent(); got != 77 {
				t.Fatalf("released: GC percent %d, want 77", got)
			}
			Linger(Pause()) // the hold goes on
			if got := gcpacetest.Percent(); got != -1 {
				t.Fatalf("lingering after a release: GC percent %d, want -1", got)
			}
			Release()
		}},
		{"hold ended", func(t *testing.T) {
			end := Hold()
			Linger(Pause())
			end()
			end()
			if got := gcpacetest.Percent(); got != 77 {
				t.Fatalf("hold ended: GC percent %d, want 77", got)
			}
			Linger(Pause())
			if got := gcpacetest.Percent(); got != 77 {
				t.Fatalf("lingered after the hold: GC percent %d, want 77", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}
