package facts

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testpause"
)

// typoQueries returns queries one edit away from words of x's vocabulary,
// each kind of edit, and the retrieval corpus's typo queries.
func typoQueries(t *testing.T, x *liveIndex) []string {
	t.Helper()
	c, _, _ := loadRetrievalCorpus(t)
	var qs []string
	for _, q := range c.Queries {
		if q.Kind == "typo" {
			qs = append(qs, q.Q)
		}
	}
	x.buildVocab()
	for i := 0; i < len(x.vocab); i += 41 {
		w := []rune(x.vocab[i])
		if len(w) < minTypoRunes || len(w) > 12 {
			continue
		}
		k := i % (len(w) - 1)
		sub := slices.Clone(w)
		sub[k] = 'q'
		swap := slices.Clone(w)
		swap[k], swap[k+1] = swap[k+1], swap[k]
		qs = append(qs,
			string(sub), string(swap), // substitution, transposition
			string(slices.Delete(slices.Clone(w), k, k+1)),   // deletion
			string(slices.Insert(slices.Clone(w), k, w[k])),  // a doubled letter
			string(slices.Insert(slices.Clone(w), k+1, 'ß')), // a non-ASCII insertion
			string(w)+"s "+string(sub),                       // two words
		)
	}
	// A word of maxTypoRunes runes one edit from one longer than that:
	// the longer one is matched as it is and by prefix only.
	qs = append(qs, longWord[:maxTypoRunes], longWord[1:])
	return append(qs, "zzzzzz", "webhok", "naïvety", "straße", "strasse", "ünicodes")
}

// longWord is a word of maxTypoRunes+1 letters, one more than typo
// matching takes.
var longWord = strings.Repeat("abcdefghij", 4)[:maxTypoRunes+1]

// TestTypoScanMatchesLookup: looking typos up by scanning the vocabulary
// (a one-shot process, a server's first searches) expands a query into the
// same terms, with the same weights, in the same order, as the deletion
// map a server builds once typos prove common.
func TestTypoScanMatchesLookup(t *testing.T) {
	t.Parallel()
	fs := genFacts(t, 600)
	fs[3].Body += " Naïve straße ünicode naïveté strase " + longWord
	x := newLiveIndex()
	memo := map[string]string{}
	for _, f := range fs {
		x.add(newEntry(f), memo)
	}
	qs := typoQueries(t, x)
	scanned := make([][]queryTerm, len(qs))
	typos := 0
	for i, q := range qs {
		scanned[i] = x.expand(q)
		if slices.ContainsFunc(scanned[i], func(qt queryTerm) bool { return qt.weight == typoWeight }) {
			typos++
		}
	}
	if x.deletions != nil {
		t.Fatal("expand built the deletion map")
	}
	if typos < len(qs)/2 {
		t.Fatalf("only %d of %d queries matched one typo away", typos, len(qs))
	}
	for _, q := range []string{longWord[:maxTypoRunes], longWord[1:]} {
		for _, qt := range x.expand(q) {
			if qt.weight == typoWeight {
				t.Errorf("query %q matches %q one typo away: a word of more than %d runes", q, qt.term, maxTypoRunes)
			}
		}
	}
	x.buildDeletions()
	for i, q := range qs {
		if diff := cmp.Diff(scanned[i], x.expand(q), cmp.AllowUnexported(queryTerm{})); diff != "" {
			t.Errorf("query %q: scanned (-) and looked up (+) terms differ:\n%s", q, diff)
		}
	}
}

// TestTypoMapBuiltOnceCommon: a store looks typos up by scanning for its
// first typoScansBeforeMap queries that have one, builds the deletion map
// for the next, and answers alike throughout; a query without a typo
// counts for nothing.
func TestTypoMapBuiltOnceCommon(t *testing.T) {
	t.Parallel()
	root := writeTree(t, genFacts(t, 300))
	s := OpenDir(root, Options{Now: fixedNow})
	ctx := context.Background()
	search := func(q string) SearchResult {
		t.Helper()
		res, err := s.Search(ctx, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want := search("webhok")
	if len(want.Hits) == 0 {
		t.Fatal(`"webhok" finds nothing`)
	}
	for i := 2; i <= typoScansBeforeMap+1; i++ {
		search("webhook") // no typo
		got := search("webhok")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("typo search %d differs from the first:\n%s", i, diff)
		}
		s.mu.RLock()
		built := s.idx.deletions != nil
		s.mu.RUnlock()
		if built != (i > typoScansBeforeMap) {
			t.Errorf("after %d typo searches the deletion map is built: %t, want %t", i, built, i > typoScansBeforeMap)
		}
	}
}

// TestTypoMapNotBuiltUnderReadLock: a watched store ranks a search whose
// index is ready under its lock held for reading, side by side with
// others; a typo search that passed that check while the count of typo
// scans stood one short of typoScansBeforeMap, and ranks after another
// took it there, still only scans: the deletion map is built under the
// lock held for writing, never by two searches at once.
func TestTypoMapNotBuiltUnderReadLock(t *testing.T) {
	s, _ := watchedStore(t, 300)
	ctx := context.Background()
	for range typoScansBeforeMap - 1 {
		if _, err := s.Search(ctx, Query{Text: "webhok"}); err != nil {
			t.Fatal(err)
		}
	}
	// Two typo searches pass the check under the read lock and wait; the
	// first ranks (the count reaches typoScansBeforeMap), then the second.
	arrived := make(chan struct{}, 2)
	release := []chan struct{}{make(chan struct{}), make(chan struct{})}
	next := make(chan int, 2)
	next <- 0
	next <- 1
	pause.Install(func(_ context.Context, name string) {
		if name == "facts.ranking" {
			i := <-next
			arrived <- struct{}{}
			<-release[i]
		}
	})
	defer testpause.Enable()
	done := make(chan error, 2)
	for range 2 {
		go func() { _, err := s.Search(ctx, Query{Text: "webhok"}); done <- err }()
		<-arrived
	}
	for i := range release {
		close(release[i])
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	built, scans := s.idx.deletions != nil, s.idx.typoScans.Load()
	s.mu.Unlock()
	if built || scans != typoScansBeforeMap+1 {
		t.Errorf("after two searches under the read lock: deletion map built %t, %d typo scans; want false, %d", built, scans, typoScansBeforeMap+1)
	}
	testpause.Enable()
	if _, err := s.Search(ctx, Query{Text: "webhok"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	built = s.idx.deletions != nil
	s.mu.Unlock()
	if !built {
		t.Error("the next typo search, under the lock held for writing, did not build the deletion map")
	}
}
