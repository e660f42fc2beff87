package blackboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestWriteClearsOncePerInterval: a board given Clearings (a server's)
// clears a folder of stale temp files on its first write there, not again
// until ClearInterval has passed on its clock, and then does; a board
// without (a one-shot command) clears on every write. Nothing younger than
// StaleAge goes either way.
func TestWriteClearsOncePerInterval(t *testing.T) {
	t.Parallel()
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	old := time.Now().Add(-2 * confined.StaleAge)
	plant := func(t *testing.T, root, p string, mtime time.Time) {
		t.Helper()
		testenv.WriteFile(t, root, p, "half")
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(p)), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(root, p string) bool {
		_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	waveTemp := ".foundry/blackboard/w/" + confined.TempPrefix + "a.json-1"
	lockTemp := LockDir + "/" + confined.TempPrefix + "finding.v1-2"
	otherTemp := ".foundry/blackboard/x/" + confined.TempPrefix + "a.json-3"
	freshTemp := ".foundry/blackboard/w/" + confined.TempPrefix + "b.json-4"

	tests := []struct {
		name      string
		clearings bool
		advance   time.Duration // the clock's step before the second write
		wantGone  bool          // the temps planted after the first write, by the second
	}{
		{"server within the interval", true, ClearInterval - time.Second, false},
		{"server once the interval passed", true, ClearInterval, true},
		{"server, clock set back", true, -time.Minute, true},
		{"one-shot", false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := newProject(t)
			clock := time.Now()
			var opts Options
			opts.Root = root
			if tt.clearings {
				opts.Clearings = NewClearings(func() time.Time { return clock })
			}
			b := Open(os.DirFS(root), opts)
			write := func(wave string) {
				t.Helper()
				if _, err := b.Write(context.Background(), WriteRequest{Wave: wave, Agent: "a", Schema: "finding.v1", Data: valid}); err != nil {
					t.Fatal(err)
				}
			}
			write("w")
			plant(t, root, waveTemp, old)
			plant(t, root, lockTemp, old)
			plant(t, root, freshTemp, time.Now())
			clock = clock.Add(tt.advance)
			write("w")
			if got := !exists(root, waveTemp); got != tt.wantGone {
				t.Errorf("wave's stale temp gone = %v, want %v", got, tt.wantGone)
			}
			if got := !exists(root, lockTemp); got != tt.wantGone {
				t.Errorf("lock's stale temp gone = %v, want %v", got, tt.wantGone)
			}
			if !exists(root, freshTemp) {
				t.Error("a temp younger than StaleAge was removed")
			}
			// The first write to another wave clears that wave, whenever
			// its neighbour was cleared.
			plant(t, root, otherTemp, old)
			write("x")
			if exists(root, otherTemp) {
				t.Error("the first write to wave x left its stale temp")
			}
		})
	}
}

// TestClearingsConcurrent: writes sharing one Clearings from many
// goroutines note each folder cleared, and race with nothing (run it with
// -race).
func TestClearingsConcurrent(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	b := Open(os.DirFS(root), Options{Root: root, Clearings: NewClearings(nil)})
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			_, err := b.Write(context.Background(), WriteRequest{Wave: fmt.Sprintf("w%d", i%2), Agent: fmt.Sprintf("a%d", i), Schema: "finding.v1", Data: valid})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c := b.opts.Clearings
	for _, dir := range []string{Dir + "/w0", Dir + "/w1", LockDir} {
		if c.due(root, dir) {
			t.Errorf("%s: due again right after the writes cleared it", dir)
		}
	}
}
