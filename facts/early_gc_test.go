package facts

import (
	"context"
	"testing"

	"github.com/foundryhq/foundry/internal/gcpace"
	"github.com/foundryhq/foundry/internal/gcpace/gcpacetest"
	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testpause"
)

// TestFirstSearchLeavesNoPause checks that a store's first search, which
// pauses collection while it builds the live state, leaves it running once
// the build ends, in a server that holds lingering pauses (gcpace.Hold)
// and releases them once it has written the answer (gcpace.Release): no
// later message is needed to resume it, however the build's goroutine and
// the server's writing interleave. The goroutine is held at a pause point
// while the server writes and releases. Not parallel: the GC percent is
// the process's.
func TestFirstSearchLeavesNoPause(t *testing.T) {
	earlyRoot := func(t *testing.T) string {
		root, _ := earlyTree(t)
		cachedSearch(t, root, Query{Text: "quokka"})
		return root
	}
	for _, tt := range []struct {
		name  string
		root  func(*testing.T) string
		query string
		point string // where the build's goroutine waits while the server writes
		// held: collection must already run while the goroutine waits
		// (the build has ended); else only once it has gone on.
		held bool
	}{
		// Answered once the facts are linked (no cache to answer from):
		// the pause lingers before the answer leaves.
		{"answered after the build", func(t *testing.T) string { return writeTree(t, genFacts(t, 40)) }, "deploy", "facts.after-answer", true},
		// Answered from the cache, the facts linked after the answer.
		{"written before the linking", earlyRoot, "quokka", "facts.early-answered", false},
		{"written after the linking", earlyRoot, "quokka", "facts.after-early-answer", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := tt.root(t)
			before := gcpacetest.Percent()
			reached, release := make(chan struct{}), make(chan struct{})
			pause.Install(func(_ context.Context, name string) {
				if name == tt.point {
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
			if _, err := s.Search(ctx, Query{Text: tt.query}); err != nil {
				t.Fatal(err)
			}
			<-reached
			gcpace.Release() // the server has written the answer
			held := gcpacetest.Percent()
			close(release)
			if _, err := s.Facts(ctx); err != nil { // waits for the build to end
				t.Fatal(err)
			}
			if tt.held && held != before {
				t.Errorf("GC percent %d while the build's goroutine waited after the answer, want %d", held, before)
			}
			if now := gcpacetest.Percent(); now != before {
				t.Errorf("GC percent %d once the answer was written and the build ended, want %d", now, before)
			}
		})
	}
}
