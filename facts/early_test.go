package facts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// earlyTree writes a memory whose links the early answer must get right: a
// fact superseded by another's supersedes, one that says it is superseded,
// a retired one and an expired one, besides plain facts. It returns the
// root and the facts.
func earlyTree(t testing.TB) (string, []Fact) {
	t.Helper()
	facts := genFacts(t, 40)
	facts[1].Supersedes = facts[0].ID // fact 1 supersedes fact 0
	facts[2].SupersededBy = facts[3].ID
	facts[2].Status = Superseded
	facts[4].Status, facts[4].RetiredReason = Retired, "no longer true"
	facts[5].Expires = "2025-01-01" // before fixedNow
	facts[6].Status = ""            // active by default
	for i := range 8 {
		facts[i].Title += " Quokka"
	}
	return writeTree(t, facts), facts
}

// TestWholeCache: a cache written by a search is consistent and, with
// nothing changed, the listing proves it whole; any change to a fact file
// after it was written (an edit in place of the same size and time, a new
// file, a removed one) makes it not whole.
func TestWholeCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, root string, facts []Fact)
		whole  bool
	}{
		{"unchanged", func(*testing.T, string, []Fact) {}, true},
		{"edit in place, same size and time", func(t *testing.T, root string, facts []Fact) {
			p := filepath.Join(root, filepath.FromSlash(facts[7].Path))
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			if err := os.WriteFile(p, []byte(strings.Replace(string(data), "Quokka", "Wombat", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"new file", func(t *testing.T, root string, facts []Fact) {
			f := facts[9]
			f.ID, f.Path = FormatID(99), Dir+"/"+FileName(FormatID(99), f.Title)
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f.Path)), Format(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"removed file", func(t *testing.T, root string, facts []Fact) {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(facts[9].Path))); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, facts := earlyTree(t)
			cachedSearch(t, root, Query{Text: "quokka"})
			tt.change(t, root, facts)
			s := OpenDir(root, Options{Now: fixedNow, Cache: true})
			s.mu.Lock()
			defer s.mu.Unlock()
			known := make(chan *dirListing, 1)
			s.loadCache(known)
			if s.cache == nil {
				t.Fatal("the cache just written does not load")
			}
			if !s.cache.consistent {
				t.Error("the cache just written is not consistent")
			}
			infos, _, _, err := s.listMemory(known, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.whole(s.cache, infos); got != tt.whole {
				t.Errorf("whole = %v, want %v", got, tt.whole)
			}
		})
	}
}

// TestFirstSearchFromCache: a first search answered from a whole cache,
// before the facts are linked, answers as a search without the cache, for
// plain, filtered, forgiving and id queries, with supersession, retirement
// and expiry derived; the store's next calls see the complete live state,
// and changes made after the answer.
func TestFirstSearchFromCache(t *testing.T) {
	t.Parallel()
	root, facts := earlyTree(t)
	// writeTree dated the folder back, so the cache records its listing
	// and the next first search may be answered from the cache's index.
	cachedSearch(t, root, Query{Text: "quokka"})
	ctx := context.Background()
	for _, q := range []Query{
		{Text: "quokka", Limit: MaxLimit},
		{Text: "quokka", Type: facts[7].Type, Limit: MaxLimit},
		{Text: "quokk", Limit: MaxLimit},
		{Text: "quokkka", Limit: MaxLimit},
		{Text: strings.ToUpper(facts[3].ID)},
		{Text: "migration deploy release"},
	} {
		t.Run(q.Text, func(t *testing.T) {
			want := plainSearch(t, root, q)
			s := OpenDir(root, Options{Now: fixedNow, Cache: true, Watch: true})
			defer s.Close()
			got, err := s.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("first search (-want +got):\n%s", diff)
			}
			all, err := s.Facts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			wantAll, err := NewStore(os.DirFS(root), Options{Now: fixedNow}).Facts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantAll, all); diff != "" {
				t.Fatalf("facts after the first search (-want +got):\n%s", diff)
			}
			if got, err := s.Get(ctx, facts[0].ID); err != nil || got.Status != Superseded || got.SupersededBy != facts[1].ID {
				t.Fatalf("get %s: %+v, %v; want superseded by %s", facts[0].ID, got, err, facts[1].ID)
			}
		})
	}

	// A change made right after the answer is seen by the next search.
	s := OpenDir(root, Options{Now: fixedNow, Cache: true, Watch: true})
	defer s.Close()
	if _, err := s.Search(ctx, Query{Text: "quokka"}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, filepath.FromSlash(facts[7].Path))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "Quokka", "Numbat", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, Query{Text: "numbat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Hits) != 1 || got.Hits[0].ID != facts[7].ID {
		t.Fatalf("search after an edit: %+v, want %s", got.Hits, facts[7].ID)
	}
}

// TestCacheConsistency: a cache whose index disagrees with its records'
// own links (an indexed fact that its fields, or another record's
// supersedes, say is not current) decodes, but not as consistent, so no
// search is answered from its index before the facts are linked.
func TestCacheConsistency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(s *Store, byID map[string]*entry)
		want   bool
	}{
		{"as written", func(*Store, map[string]*entry) {}, true},
		{"indexed but retired", func(_ *Store, byID map[string]*entry) {
			byID[FormatID(10)].raw.Status = Retired
		}, false},
		{"indexed but superseded by its own field", func(_ *Store, byID map[string]*entry) {
			byID[FormatID(10)].raw.SupersededBy = FormatID(11)
		}, false},
		{"indexed but superseded by another record", func(_ *Store, byID map[string]*entry) {
			byID[FormatID(11)].raw.Supersedes = FormatID(10)
		}, false},
		{"current but not indexed", func(_ *Store, byID map[string]*entry) {
			byID[FormatID(2)].raw.Supersedes = "" // it superseded fact-0001
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, _ := earlyTree(t)
			s := OpenDir(root, Options{Now: fixedNow})
			if _, err := s.Search(context.Background(), Query{Text: "quokka"}); err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			byID := map[string]*entry{}
			for _, c := range s.files {
				c.settled = true
				byID[c.e.raw.ID] = c.e
			}
			tt.change(s, byID)
			var buf bytes.Buffer
			if err := s.encodeCache(&buf, maxCacheBytes); err != nil {
				t.Fatal(err)
			}
			c, ok := decodeCache(buf.Bytes())
			if !ok {
				t.Fatal("cache does not decode")
			}
			if c.consistent != tt.want {
				t.Errorf("consistent = %v, want %v", c.consistent, tt.want)
			}
		})
	}
}

// TestEarlyAnswerWithoutStatusLine: a fact file with no status line (as
// a person may write it; Format always writes one) is active, and a first
// search answered from the cache's index, before settle runs, says so:
// the cache's decoding derives it as settle would.
func TestEarlyAnswerWithoutStatusLine(t *testing.T) {
	root, facts := earlyTree(t)
	p := filepath.Join(root, filepath.FromSlash(facts[6].Path))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	stripped := strings.Replace(string(data), "status: active\n", "", 1)
	if stripped == string(data) {
		t.Fatalf("no status line to strip in:\n%s", data)
	}
	if err := os.WriteFile(p, []byte(stripped), 0o644); err != nil {
		t.Fatal(err)
	}
	dateBack(t, p, filepath.Join(root, Dir))
	raw, err := NewStore(os.DirFS(root), Options{Now: fixedNow}).RawFacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range raw {
		if f.ID == facts[6].ID && f.Status != "" {
			t.Fatalf("raw status of %s = %q, want empty", f.ID, f.Status)
		}
	}
	q := Query{Text: "quokka", Limit: MaxLimit}
	cachedSearch(t, root, q)
	want := plainSearch(t, root, q)
	s := OpenDir(root, Options{Now: fixedNow, Cache: true, Watch: true})
	defer s.Close()
	got, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("first search from the cache (-want +got):\n%s", diff)
	}
	found := false
	for _, h := range got.Hits {
		if h.ID == facts[6].ID {
			found = true
			if h.Status != Active {
				t.Errorf("hit %s status %q, want active", h.ID, h.Status)
			}
		}
	}
	if !found {
		t.Errorf("%s not among the hits", facts[6].ID)
	}
}

// TestEarlyAnswerPanics: a first search whose early answer panics while
// it is ranked (here: the clock, read for today's date) has sent no
// answer, so its caller panics as rank would have, instead of waiting
// for an answer that never comes.
func TestEarlyAnswerPanics(t *testing.T) {
	t.Parallel()
	root, _ := earlyTree(t)
	cachedSearch(t, root, Query{Text: "quokka"})
	var calls atomic.Int32
	ranking := make(chan struct{})
	now := func() time.Time {
		if calls.Add(1) == 1 {
			close(ranking)
			panic("clock failed")
		}
		return fixedNow()
	}
	s := OpenDir(root, Options{Now: now, Cache: true})
	defer s.Close()
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		_, _ = s.Search(context.Background(), Query{Text: "quokka"})
	}()
	<-ranking
	s.mu.Lock()   // the search's goroutine holds s.mu until it has ended
	s.mu.Unlock() //nolint:staticcheck // SA2001: the empty section waits for that
	select {
	case p := <-panicked:
		if p != "clock failed" {
			t.Fatalf("search panicked with %v, want the ranking's panic", p)
		}
	case <-time.After(time.Minute): // its goroutine has ended: the answer is in or never comes
		t.Fatal("the search never returned after its early ranking panicked")
	}
}
