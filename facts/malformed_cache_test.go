package facts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// malformedContents are fact files that do not parse, one per kind of
// parse error the cache must report as a read reports it.
var malformedContents = []struct {
	name, content string
}{
	{"bad yaml", "---\nid: fact-0100\ntype: decision\ntitle: [oops\n---\nbody\n"},
	{"missing title", "---\nid: fact-0100\ntype: decision\n---\nbody\n"},
	{"no front matter", "just text\n"},
	{"conflict markers", "---\nid: fact-0100\ntype: decision\ntitle: Cache malformed\n---\n<<<<<<< HEAD\nOne side.\n=======\nOther side.\n>>>>>>> topic\n"},
}

const malformedPath = Dir + "/fact-0100-cache-malformed.md"

// malformedTree writes n good facts and the malformed file content, all
// dated back, and the memory folder with them, so that a cache written
// now may prove every file current.
func malformedTree(t *testing.T, n int, content string) string {
	t.Helper()
	root := writeTree(t, genFacts(t, n))
	testenv.WriteFile(t, root, malformedPath, content)
	settle(t, root)
	dateBack(t, filepath.Join(root, filepath.FromSlash(Dir)))
	return root
}

// cliSearch runs one search in a fresh store that uses the persisted
// cache, as a CLI process (or, with watch, a freshly spawned server) does,
// and returns the result, the warnings given by the time it returned, the
// store's problems and the number of fact files read.
func cliSearch(t *testing.T, root string, q Query, watch bool) (SearchResult, string, []error, int64) {
	t.Helper()
	cfs := &countingFS{FS: os.DirFS(root)}
	var warn syncBuffer
	s := NewStore(cfs, Options{Root: root, Now: fixedNow, Cache: true, Watch: watch, Warn: &warn})
	defer s.Close()
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	warned, reads := withoutFallback(warn.String()), cfs.reads.Load()
	probs, err := s.Problems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, warned, probs, reads
}

// withoutFallback drops the line a store with Watch says where the
// platform has no watcher (all but Linux): these tests are not about it.
func withoutFallback(warned string) string {
	var b strings.Builder
	for line := range strings.Lines(warned) {
		if !strings.Contains(line, "no file-system events") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// uncached returns the answer, warnings and problems of a store that
// keeps no cache.
func uncached(t *testing.T, root string, q Query) (SearchResult, string, []error) {
	t.Helper()
	var warn syncBuffer
	s := NewStore(os.DirFS(root), Options{Now: fixedNow, Warn: &warn})
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	probs, err := s.Problems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, warn.String(), probs
}

// cacheInfo is the cache file's status: an atomic rewrite changes its
// modification time and makes it another file (os.SameFile).
func cacheInfo(t *testing.T, root string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath)))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestCacheRemembersMalformedFile: a fact file that does not parse is
// recorded in the cache with its parse error, so a second CLI search, and
// a fresh server's first search, read no fact file, do not rewrite the
// cache, and report the same warning and problem as a store without the
// cache; a malformed file edited into a valid one is searchable at once,
// a valid one edited into a malformed one is reported at once.
func TestCacheRemembersMalformedFile(t *testing.T) {
	t.Parallel()
	const n = 30
	q := Query{Text: "migration deploy release", Limit: MaxLimit}
	for _, tt := range malformedContents {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := malformedTree(t, n, tt.content)
			want, wantWarn, wantProbs := uncached(t, root, q)
			if len(wantProbs) != 1 || !strings.HasPrefix(wantWarn, "warning: skip fact file "+malformedPath) {
				t.Fatalf("without the cache: warnings %q, problems %v; want the malformed file's", wantWarn, wantProbs)
			}
			check := func(step string, watch bool, wantReads int64) {
				t.Helper()
				got, warned, probs, reads := cliSearch(t, root, q, watch)
				if reads != wantReads {
					t.Errorf("%s: read %d fact files, want %d", step, reads, wantReads)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: answer (-want +got):\n%s", step, diff)
				}
				if warned != wantWarn {
					t.Errorf("%s: warnings %q, want %q", step, warned, wantWarn)
				}
				if diff := cmp.Diff(wantProbs, probs); diff != "" {
					t.Errorf("%s: problems (-want +got):\n%s", step, diff)
				}
				if errors.Is(probs[0], ErrConflict) != errors.Is(wantProbs[0], ErrConflict) {
					t.Errorf("%s: problem %v matches ErrConflict: %v", step, probs[0], !errors.Is(wantProbs[0], ErrConflict))
				}
			}
			check("first search", false, n+1)
			before := cacheInfo(t, root)
			check("second search", false, 0)
			check("server's first search", true, 0)
			if after := cacheInfo(t, root); !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
				t.Error("a cache that held every file as it is was rewritten")
			}
		})
	}

	t.Run("edits", func(t *testing.T) {
		t.Parallel()
		root := malformedTree(t, n, malformedContents[0].content)
		_, wantWarn, _ := uncached(t, root, q)
		cliSearch(t, root, q, false)
		if _, warned, _, reads := cliSearch(t, root, q, false); reads != 0 || warned != wantWarn {
			t.Fatalf("from the cache: %d reads, warnings %q; want 0 reads and the warning", reads, warned)
		}
		// Touched, unchanged: read again, and reported once, as before.
		now := time.Now()
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(malformedPath)), now, now); err != nil {
			t.Fatal(err)
		}
		if _, warned, probs, reads := cliSearch(t, root, q, false); reads != 1 || warned != wantWarn || len(probs) != 1 {
			t.Fatalf("touched: %d reads, warnings %q, problems %v; want 1 read and %q", reads, warned, probs, wantWarn)
		}
		// Fixed in place.
		fixed := strings.Replace(malformedContents[0].content, "[oops", "Wallaby", 1)
		fixed = strings.Replace(fixed, "body", "bod", 1)
		testenv.WriteFile(t, root, malformedPath, fixed)
		got, warned, probs, _ := cliSearch(t, root, Query{Text: "wallaby"}, false)
		if len(got.Hits) != 1 || got.Hits[0].ID != "fact-0100" || warned != "" || len(probs) != 0 {
			t.Fatalf("after fixing the malformed file: hits %+v, warnings %q, problems %v; want fact-0100 alone", got.Hits, warned, probs)
		}
		// A good fact broken: reported at once, and no longer found.
		good := genFacts(t, n)[3]
		testenv.WriteFile(t, root, good.Path, "---\nid: "+good.ID+"\ntype: decision\n---\nno title\n")
		got, warned, probs, _ = cliSearch(t, root, Query{Text: good.ID}, false)
		want := "warning: skip fact file " + good.Path + ":2: missing title\n"
		if len(got.Hits) != 0 || warned != want || len(probs) != 1 {
			t.Fatalf("after breaking %s: hits %+v, warnings %q, problems %v; want no hit and %q", good.ID, got.Hits, warned, probs, want)
		}
		// And so on from the cache once the files have settled.
		settle(t, root)
		cliSearch(t, root, q, false)
		_, warned, probs, reads := cliSearch(t, root, Query{Text: "wallaby"}, true)
		if reads != 0 || warned != want || len(probs) != 1 {
			t.Errorf("server's first search from the cache: %d reads, warnings %q, problems %v; want 0 reads and %q", reads, warned, probs, want)
		}
	})
}

// TestWholeCacheWithMalformedFile: a malformed file recorded in the cache
// leaves it whole while unchanged, so a first search may be answered from
// the cache's index; edited, it does not.
func TestWholeCacheWithMalformedFile(t *testing.T) {
	t.Parallel()
	for _, edit := range []bool{false, true} {
		root := malformedTree(t, 20, malformedContents[1].content)
		cliSearch(t, root, Query{Text: "deploy"}, false)
		if edit {
			testenv.WriteFile(t, root, malformedPath, malformedContents[1].content+"more\n")
		}
		s := OpenDir(root, Options{Now: fixedNow, Cache: true})
		s.mu.Lock()
		known := make(chan *dirListing, 1)
		s.loadCache(known)
		if s.cache == nil || !s.cache.consistent {
			s.mu.Unlock()
			t.Fatal("the cache just written does not load as consistent")
		}
		infos, _, _, err := s.listMemory(known, nil)
		if err != nil {
			s.mu.Unlock()
			t.Fatal(err)
		}
		if got := s.whole(s.cache, infos); got == edit {
			t.Errorf("malformed file edited %v: whole = %v", edit, got)
		}
		s.mu.Unlock()
	}
}
