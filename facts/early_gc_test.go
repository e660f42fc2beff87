package facts

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/foundryhq/foundry/internal/gcpace"
	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testpause"
)

// TestEarlyAnswerLeavesNoPause checks that a first search answered from
// the cache before its facts are linked leaves collection running once the
// linking ends, in a server that holds lingering pauses (gcpace.Hold) and
// has written that answer: no later message is needed to resume it. Not
// parallel: the GC percent is the process's.
func TestEarlyAnswerLeavesNoPause(t *testing.T) {
	root, _ := earlyTree(t)
	cachedSearch(t, root, Query{Text: "quokka"})
	before := debug.SetGCPercent(-1)
	debug.SetGCPercent(before)

	reached, release := make(chan struct{}), make(chan struct{})
	pause.Install(func(_ context.Context, name string) {
		if name == "facts.after-early-answer" {
			close(reached)
			<-release
		}
	})
	defer testpause.Enable()
	end := gcpace.Hold()
	defer end()

	ctx := context.Background()
	s := OpenDir(root, Options{Now: fixedNow, Cache: true, Watch: true})
	defer s.Close()
	if _, err := s.Search(ctx, Query{Text: "quokka"}); err != nil {
		t.Fatal(err)
	}
	<-reached                               // answered early; the facts are still being linked
	gcpace.Release()                        // the server has written the answer
	close(release)                          // the linking ends
	if _, err := s.Facts(ctx); err != nil { // waits for it
		t.Fatal(err)
	}
	now := debug.SetGCPercent(-1)
	debug.SetGCPercent(now)
	if now != before {
		t.Fatalf("GC percent %d after the early answer was written and the linking ended, want %d", now, before)
	}
}
