package facts

import (
	"context"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/testenv"
)

// BenchmarkFirstSearch10k measures what a freshly spawned server does for
// its first memory_search over 10,000 facts with the persisted cache
// current: list and stat the folder, read the cache, build the live state
// and the index from it, rank; process start-up aside. The machine is
// shared, so besides the wall time it reports the processor time of the
// whole process per search (cpu-ms/op), which other load inflates less,
// and the time until the search is answered (answer-ms/op): the live state
// may be completed after the answer (see Store.rankFirst).
func BenchmarkFirstSearch10k(b *testing.B) {
	root := writeTree(b, genFacts(b, 10000))
	ctx := context.Background()
	if _, err := OpenDir(root, Options{Now: fixedNow, Cache: true}).Search(ctx, Query{Text: benchQueries[0]}); err != nil {
		b.Fatal(err)
	}
	cpu0 := testenv.CPUTime()
	var answer time.Duration
	for b.Loop() {
		s := OpenDir(root, Options{Now: fixedNow, Cache: true, Watch: true})
		t0 := time.Now()
		if _, err := s.Search(ctx, Query{Text: benchQueries[0]}); err != nil {
			b.Fatal(err)
		}
		answer += time.Since(t0)
		_ = s.Close() // once the live state is complete
	}
	b.ReportMetric(float64(testenv.CPUTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(answer)/float64(time.Millisecond)/float64(b.N), "answer-ms/op")
}
