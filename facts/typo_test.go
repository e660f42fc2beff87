package facts

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	return append(qs, "zzzzzz", "webhok", "naïvety", "straße", "strasse", "ünicodes")
}

// TestTypoScanMatchesLookup: looking typos up by scanning the vocabulary
// (a one-shot process, a server's first searches) expands a query into the
// same terms, with the same weights, in the same order, as the deletion
// map a server builds once typos prove common.
func TestTypoScanMatchesLookup(t *testing.T) {
	t.Parallel()
	fs := genFacts(t, 600)
	fs[3].Body += " Naïve straße ünicode naïveté strase"
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
