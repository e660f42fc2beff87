package facts

import (
	"context"
	"runtime/metrics"
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
	before := gcPercent()

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
	if now := gcPercent(); now != before {
		t.Fatalf("GC percent %d after the early answer was written and the linking ended, want %d", now, before)
	}
}

// TestFirstAnswerLeavesNoPause checks that a first search answered once its
// facts are linked (no cache to answer from) has left its pause lingering
// by the time the answer reaches the caller, so that the release a server
// makes once it has written the answer resumes collection, however late
// the search's goroutine ends. Not parallel: the GC percent is the
// process's.
func TestFirstAnswerLeavesNoPause(t *testing.T) {
	root := writeTree(t, genFacts(t, 40))
	before := gcPercent()

	reached, release := make(chan struct{}), make(chan struct{})
	pause.Install(func(_ context.Context, name string) {
		if name == "facts.after-answer" {
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
	if _, err := s.Search(ctx, Query{Text: "deploy"}); err != nil {
		t.Fatal(err)
	}
	<-reached        // answered; the search's goroutine has not ended
	gcpace.Release() // the server has written the answer
	now := gcPercent()
	close(release)
	if _, err := s.Facts(ctx); err != nil { // the goroutine has ended
		t.Fatal(err)
	}
	if now != before {
		t.Fatalf("GC percent %d once the answer was written, want %d", now, before)
	}
}

// gcPercent reads the process's GC percent without setting it, which
// would race with a pause beginning or ending.
func gcPercent() int {
	m := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(m)
	return int(m[0].Value.Uint64())
}

// TestEarlyAnswerWrittenBeforeLinking checks that a first search answered
// from the cache leaves no pause lingering when the server writes the
// answer (and releases what lingers) while the facts are still being
// linked: a pause that began lingering after that release would last
// until the server's next message. Not parallel: the GC percent is the
// process's.
func TestEarlyAnswerWrittenBeforeLinking(t *testing.T) {
	root, _ := earlyTree(t)
	cachedSearch(t, root, Query{Text: "quokka"})
	before := gcPercent()

	released := make(chan struct{})
	pause.Install(func(_ context.Context, name string) {
		if name == "facts.early-answered" {
			<-released
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
	gcpace.Release() // the server has written the answer; linking has not begun
	close(released)
	if _, err := s.Facts(ctx); err != nil { // waits for the linking
		t.Fatal(err)
	}
	if now := gcPercent(); now != before {
		t.Fatalf("GC percent %d after the early answer was written and the linking ended, want %d", now, before)
	}
}
