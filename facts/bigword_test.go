package facts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/hugepages"
)

// bigWordFacts returns n facts whose bodies are each one random word of
// size lowercase letters: the hostile memory of facts just under the size
// limit that no word of a query can match.
func bigWordFacts(n, size int) []Fact {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]Fact, n)
	for i := range out {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		id := FormatID(i + 1)
		title := fmt.Sprintf("Big fact %d", i+1)
		out[i] = Fact{ID: id, Type: Risk, Title: title, Scope: "project", Confidence: High, Source: "x",
			Created: "2025-01-01", Status: Active, Body: string(b), Path: path.Join(Dir, FileName(id, title))}
	}
	return out
}

// TestBigWordFactsMemory holds a search over facts of one 60,000-letter
// word each to what their text costs: reading each file once, keeping its
// text once, and nothing per word in the index or the cache. Words longer
// than MaxWordBytes were stemmed, memoised, indexed, cached and copied at
// each step: a search allocated ten times the memory's size and kept four
// times it, 1.2 GB for 2,000 such facts. It is not parallel: it reads the
// process's allocation figures.
func TestBigWordFactsMemory(t *testing.T) {
	const n, size = 100, 60000
	root := writeTree(t, bigWordFacts(n, size))
	corpus := uint64(n * size)
	ctx := context.Background()
	// A process readies its heap in huge pages once (hugepages.Prepare),
	// with one object allocated and freed at once, untouched: readied
	// here, before the measurement, its bytes are not counted against the
	// store, which would ready MaxBytes for this tree (24 times its 6 MB,
	// capped).
	defer hugepages.Prepare(hugepages.MaxBytes)()
	for _, step := range []string{"first search, writing the cache", "next search, reading it"} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := OpenDir(root, Options{Now: fixedNow, Cache: true})
		res, err := s.Search(ctx, Query{Text: "big fact", Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != MaxLimit || len(res.Hits[0].Body) != size {
			t.Fatalf("%s: %d hits, want %d with their %d-letter bodies", step, len(res.Hits), MaxLimit, size)
		}
		// A word of a typo's length with no match is looked up one typo away.
		if res, err := s.Search(ctx, Query{Text: "zzzzzz"}); err != nil || len(res.Hits) != 0 {
			t.Fatalf("%s: search zzzzzz = %d hits, %v; want none", step, len(res.Hits), err)
		}
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(s)
		t.Logf("%s: allocated %.1f MB, kept %.1f MB, for %.1f MB of facts", step, float64(alloc)/1e6, float64(kept)/1e6, float64(corpus)/1e6)
		if alloc > 3*corpus {
			t.Errorf("%s: allocated %d bytes for %d bytes of facts, want at most 3 times", step, alloc, corpus)
		}
		if kept > int64(corpus)*3/2 {
			t.Errorf("%s: kept %d bytes for %d bytes of facts, want at most 1.5 times", step, kept, corpus)
		}
	}
}

// TestMaxWordBytes: a word of MaxWordBytes is a term, a longer one is not,
// in a fact or a query.
func TestMaxWordBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{strings.Repeat("x", MaxWordBytes), []string{strings.Repeat("x", MaxWordBytes)}},
		{strings.Repeat("x", MaxWordBytes+1), nil},
		{"short " + strings.Repeat("é", MaxWordBytes/2) + " words", []string{"short", strings.Repeat("é", MaxWordBytes/2), "word"}},
		{"short " + strings.Repeat("é", MaxWordBytes/2+1) + " words", []string{"short", "word"}},
		{strings.Repeat("Ab", 40000) + " deploy", []string{"deploy"}},
	}
	for _, tt := range tests {
		got := terms(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("terms(%.20q…) = %.40q, want %.40q", tt.in, got, tt.want)
		}
	}
}

// TestEncodeCacheStopsAtLimit: the cache is written in chunks and not at
// all past its size limit, so a memory too large to cache costs neither
// a buffer of its size nor a file no read accepts.
func TestEncodeCacheStopsAtLimit(t *testing.T) {
	t.Parallel()
	root := writeTree(t, genFacts(t, 500))
	s := OpenDir(root, Options{Now: fixedNow})
	if _, err := s.Search(context.Background(), Query{Text: "deploy"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var whole bytes.Buffer
	if err := s.encodeCache(&whole, 1<<30); err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeCache(whole.Bytes()); !ok {
		t.Fatalf("the cache of %d bytes does not decode", whole.Len())
	}
	for _, max := range []int64{int64(whole.Len()), int64(whole.Len()) - 1, int64(whole.Len()) / 2, 100} {
		w := &countingWriter{}
		err := s.encodeCache(w, max)
		switch {
		case max >= int64(whole.Len()) && err != nil:
			t.Errorf("limit %d: %v, want the whole file of %d bytes", max, err, whole.Len())
		case max < int64(whole.Len()) && !errors.Is(err, errCacheTooLarge):
			t.Errorf("limit %d: %v, want errCacheTooLarge for a file of %d bytes", max, err, whole.Len())
		}
		if w.n > max {
			t.Errorf("limit %d: wrote %d bytes", max, w.n)
		}
		if w.writes > 1 && w.max > 2*cacheChunk {
			t.Errorf("limit %d: a write of %d bytes, want chunks of about %d", max, w.max, cacheChunk)
		}
	}
}

// countingWriter counts what is written to it.
type countingWriter struct{ n, max, writes int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.max = max(w.max, int64(len(p)))
	w.writes++
	return len(p), nil
}

// BenchmarkSearchBigWordsCold is BenchmarkSearch10kCold over the hostile
// memory of 500 facts of one 60,000-letter word each.
func BenchmarkSearchBigWordsCold(b *testing.B) {
	root := writeTree(b, bigWordFacts(500, 60000))
	ctx := context.Background()
	for b.Loop() {
		s := OpenDir(root, Options{Now: fixedNow, Cache: true})
		if _, err := s.Search(ctx, Query{Text: "zzzzzz"}); err != nil {
			b.Fatal(err)
		}
	}
}
