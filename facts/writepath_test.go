package facts

import (
	stdcmp "cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// movingClock is a clock a test advances.
type movingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *movingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *movingClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestIndexIncrementalMatchesRebuild checks that INDEX.md as a store keeps
// it current, one change at a time, has the bytes of BuildIndex over all
// facts after every write, supersession, link, retirement, hand edit,
// removal and expiry, with a budget small enough to omit facts.
func TestIndexIncrementalMatchesRebuild(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			facts := genFacts(t, 120)
			for i := range facts {
				if i%7 == 0 {
					facts[i].Expires = fixedNow().AddDate(0, 0, i/7+1).Format(DateLayout)
				}
			}
			root := writeTree(t, facts)
			clock := &movingClock{now: fixedNow()}
			const budget = 900
			s := OpenDir(root, Options{Now: clock.Now, Watch: watch, IndexBudget: budget})
			t.Cleanup(func() { _ = s.Close() })
			check := func(step string) {
				t.Helper()
				if _, got := indexMatchesRebuild(t, s, budget, step); got.Omitted == 0 {
					t.Fatalf("%s: the budget omits nothing; the test needs it to", step)
				}
			}
			write := func(step string, req WriteRequest) WriteResult {
				t.Helper()
				res, err := s.Write(ctx, req)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if on := readFile(t, root, IndexPath); res.Action == Created {
					if on != string(res.Index.Content) {
						t.Fatalf("%s: INDEX.md on disk is not the index the write reports", step)
					}
					all, err := s.Facts(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if want := BuildIndex(all, s.Today(), budget); on != string(want.Content) {
						t.Fatalf("%s: INDEX.md the write put in place differs from a rebuild (-rebuild +written):\n%s", step, cmp.Diff(string(want.Content), on))
					}
				}
				check(step)
				return res
			}
			check("start")
			for i := range 12 {
				write(fmt.Sprintf("write %d", i), WriteRequest{Title: fmt.Sprintf("Payment retries back off %d times", i), Type: []Type{Constraint, Decision, Glossary}[i%3], Body: decisionBody(fmt.Sprintf("Rule %d.", i)), Confidence: []Confidence{High, Low}[i%2]})
			}
			res := write("same title, new body", WriteRequest{Title: "Payment retries back off 3 times", Type: Constraint, Body: decisionBody("Rule three, revised.")})
			if res.Supersedes == "" {
				t.Fatal("a new body under the same title superseded nothing")
			}
			write("explicit supersede", WriteRequest{Title: "Refunds go through the ledger service", Type: Decision, Body: decisionBody("Ledger."), Supersedes: facts[3].ID})
			later := write("unlinked", WriteRequest{Title: "Queue consumers are idempotent by key", Type: Convention, Body: "Key on the message id."})
			write("link", WriteRequest{Title: "Queue consumers are idempotent by key", Type: Convention, Body: "Key on the message id.", Supersedes: facts[5].ID})
			if _, err := s.Retire(ctx, later.ID, "the queue was removed"); err != nil {
				t.Fatal(err)
			}
			check("retire")
			if _, err := s.Retire(ctx, facts[0].ID, "no longer true"); err != nil {
				t.Fatal(err)
			}
			check("retire a listed fact")
			edited := facts[10]
			edited.Title, edited.Type, edited.Confidence = "Hand edited to the top of the index", Constraint, High
			testenv.WriteFile(t, root, edited.Path, string(Format(edited)))
			check("hand edit")
			// Two files of one id whose keys tie: only their lines order them.
			twin := edited
			twin.Title, twin.Path = "A twin written on another branch", Dir+"/"+FileName(edited.ID, "A twin written on another branch")
			testenv.WriteFile(t, root, twin.Path, string(Format(twin)))
			check("a twin of one id")
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(facts[11].Path))); err != nil {
				t.Fatal(err)
			}
			check("removal")
			for day := range 20 {
				clock.advance(24 * time.Hour)
				check(fmt.Sprintf("day %d", day+1))
			}
			write("after expiries", WriteRequest{Title: "Nightly export finishes before six", Type: Metric, Body: "Measured nightly."})
			// A new store orders every fact at once, by one sort.
			s = OpenDir(root, Options{Now: clock.Now, Watch: watch, IndexBudget: budget})
			t.Cleanup(func() { _ = s.Close() })
			check("a new store")
		})
	}
}

// TestIndexTwinLinesMatchRebuild checks INDEX.md against BuildIndex when
// two files hold facts of one index line (one id, type, confidence, date
// and title: a fact copied on two branches), which the index order ranks
// equal: each is a line of its own, and a change to one takes that one
// out of the order, not its twin. The twins differ in what the line does
// not show: one of them expires. The twins are read from their files, or
// taken from the search cache.
func TestIndexTwinLinesMatchRebuild(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ watch, cached bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
		watch := tc.watch
		t.Run(fmt.Sprintf("watch=%v/cached=%v", tc.watch, tc.cached), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			facts := genFacts(t, 20)
			a := facts[4]
			a.Type, a.Confidence = Constraint, High
			facts[4] = a
			b := a
			b.Path = Dir + "/" + a.ID + "-copied-on-a-branch.md"
			b.Expires = fixedNow().AddDate(0, 0, 2).Format(DateLayout)
			if indexLine(a) != indexLine(b) || a.Path == b.Path {
				t.Fatal("the twins must be two files of one index line")
			}
			root := writeTree(t, append(facts, b))
			clock := &movingClock{now: fixedNow()}
			if tc.cached {
				// The twins come from the search cache a first process saved,
				// not from reading their files.
				cachedSearch(t, root, Query{Text: a.Title})
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath))); err != nil {
					t.Fatalf("no search cache saved: %v", err)
				}
			}
			s := OpenDir(root, Options{Now: clock.Now, Watch: watch, Cache: tc.cached})
			t.Cleanup(func() { _ = s.Close() })
			check := func(step string, twins int) {
				t.Helper()
				all, got := indexMatchesRebuild(t, s, 0, step)
				if n := strings.Count(string(got.Content), indexLine(a)+"\n"); n != twins {
					t.Fatalf("%s: the twins' line is listed %d times, want %d", step, n, twins)
				}
				current := 0
				for _, f := range all {
					if f.current() {
						current++
					}
				}
				s.mu.Lock()
				defer s.mu.Unlock()
				if n := len(orderEntries(s.ixOrder)); n != current {
					t.Fatalf("%s: the order holds %d facts, want the %d current", step, n, current)
				}
			}
			check("start", 2)
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(a.Path))); err != nil {
				t.Fatal(err)
			}
			check("one twin removed", 1)
			testenv.WriteFile(t, root, a.Path, string(Format(a)))
			check("the twin back", 2)
			if _, err := s.Write(ctx, WriteRequest{Title: "Nightly export finishes before six", Type: Metric, Body: "Measured nightly."}); err != nil {
				t.Fatal(err)
			}
			check("a write beside the twins", 2)
			edited := b
			edited.Title = "The copy, edited on its branch"
			testenv.WriteFile(t, root, b.Path, string(Format(edited)))
			check("one twin edited", 1)
			testenv.WriteFile(t, root, b.Path, string(Format(b)))
			check("the edit undone", 2)
			clock.advance(3 * 24 * time.Hour)
			check("one twin expired", 1)
		})
	}
}

// TestIndexOrderTwins checks that an index order holds two entries of one
// line as two, and that removing one removes exactly it, once.
func TestIndexOrderTwins(t *testing.T) {
	t.Parallel()
	f := genFacts(t, 1)[0]
	one, two := newEntry(f), newEntry(f)
	two.raw.Path = Dir + "/" + f.ID + "-copied-on-a-branch.md"
	o := newIndexOrder([]*entry{one})
	o.add(two)
	lineBytes := len(one.line()) + 1
	if got := orderEntries(o); len(got) != 2 || o.bytes != 2*lineBytes {
		t.Fatalf("the order holds %d entries of %d bytes, want 2 of %d", len(got), o.bytes, 2*lineBytes)
	}
	for _, e := range []*entry{one, two} {
		o := newIndexOrder([]*entry{one, two})
		if !o.remove(e) {
			t.Fatal("remove of an entry in the order reports it was not there")
		}
		if got := orderEntries(o); len(got) != 1 || got[0] == e || o.bytes != lineBytes {
			t.Errorf("after removing one twin the order holds %d entries (the removed one: %v), %d bytes", len(got), slices.Contains(got, e), o.bytes)
		}
		if o.remove(e) {
			t.Error("remove of an entry removed already reports it was there")
		}
	}
}

// TestNearDuplicatesIndexedMatchesScan checks that the similar-title check,
// through the title index (by term and number of terms) and through the
// search index's postings before it is built, finds exactly the facts a
// comparison with every fact finds, and dedup's lookups exactly those a
// scan finds.
func TestNearDuplicatesIndexedMatchesScan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	facts := genFacts(t, 600)
	for i := range facts {
		switch i % 11 {
		case 0:
			facts[i].Expires = "2025-01-01" // expired
		case 1:
			facts[i].Status, facts[i].RetiredReason = Retired, "gone"
		}
	}
	s := OpenDir(writeTree(t, facts), Options{Now: fixedNow})
	if _, err := s.Search(ctx, Query{Text: "warm up"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var titles []string
	for _, f := range facts {
		ws := strings.Fields(f.Title)
		titles = append(titles, f.Title, strings.Join(ws[:max(1, len(ws)-1)], " "), strings.Join(ws[:max(1, len(ws)/2)], " "))
		rng.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
		titles = append(titles, strings.Join(ws, " ")+" extra words here")
	}
	titles = append(titles, "", "the and of", "zzzz unknown words only")
	s.mu.Lock()
	defer s.mu.Unlock()
	found, same := 0, 0
	built := s.titleLookup()
	for _, title := range titles {
		skip := facts[rng.IntN(len(facts))].ID
		// Through the search index's postings, the title index not built
		// and the budget of visits left, then through the title index.
		s.byTitle, s.dupVisits = nil, 0
		viaPostings := s.nearDuplicates(title, skip, "2025-03-14")
		if s.byTitle != nil {
			t.Fatalf("title %q: the title index was built within the budget of visits", title)
		}
		sameViaPostings := s.sameTitle(title) // builds it for a title of stop words alone
		s.byTitle = built
		indexed := s.nearDuplicates(title, skip, "2025-03-14")
		if !cmp.Equal(indexed, viaPostings) {
			t.Fatalf("title %q: the title index found %d similar facts, the search index %d", title, len(indexed), len(viaPostings))
		}
		// Every fact compared, kept in fact order among equal similarity,
		// the most similar first.
		type hit struct {
			f Fact
			j float64
		}
		var hits []hit
		for _, e := range s.sorted {
			f := e.fact()
			if !isActive(f, "2025-03-14") || f.ID == skip {
				continue
			}
			if j := jaccardSorted(s.title(f.Title).terms, s.title(title).terms); j >= nearDuplicate {
				hits = append(hits, hit{f, j})
			}
		}
		slices.SortStableFunc(hits, func(a, b hit) int { return stdcmp.Compare(b.j, a.j) })
		var scanned []Fact
		for _, h := range hits {
			scanned = append(scanned, h.f)
		}
		if !cmp.Equal(indexed, scanned) {
			t.Fatalf("title %q: indexed check found %d facts, a scan %d", title, len(indexed), len(scanned))
		}
		found += len(indexed)
		byNorm := s.sameTitle(title)
		var sameScan []*entry
		for _, e := range slices.Backward(s.sorted) {
			if e.current() && normTitle(e.raw.Title) == normTitle(title) {
				sameScan = append(sameScan, e)
			}
		}
		if !slices.Equal(sameScan, byNorm) || !slices.Equal(sameScan, sameViaPostings) {
			t.Fatalf("title %q: %d facts of the same title by normalised title, %d through the search index, %d by a scan", title, len(byNorm), len(sameViaPostings), len(sameScan))
		}
		same += len(byNorm)
	}
	if found < len(facts) {
		t.Errorf("only %d similar facts over %d titles; the test does not exercise the check", found, len(titles))
	}
	// The budget spent, the next check that visits a posting builds the
	// title index.
	s.byTitle, s.dupVisits = nil, titleIndexCost*len(s.sorted)
	s.nearDuplicates(facts[0].Title, "", "2025-03-14")
	if s.byTitle == nil {
		t.Error("the title index was not built once the visits passed the number of facts")
	}
	if same < len(facts)/2 {
		t.Errorf("only %d facts of the same title over %d titles; the test does not exercise dedup", same, len(titles))
	}
}

// TestStoreWriteKeepsLiveStateCurrent checks that dedup and id allocation,
// which look facts up instead of scanning them, follow hand edits and
// removals, with and without file-system events.
func TestStoreWriteKeepsLiveStateCurrent(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := t.TempDir()
			s := OpenDir(root, Options{Now: fixedNow, Watch: watch})
			t.Cleanup(func() { _ = s.Close() })
			write := func(title, body string) WriteResult {
				t.Helper()
				res, err := s.Write(ctx, WriteRequest{Title: title, Body: body, Type: Convention})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			a := write("Services log in structured JSON", "One object per line.")
			write("Feature flags live in the config service", "Not in env vars.")
			c := write("Migrations run before the deploy starts", "Always.")
			// The title edited by hand: dedup knows the new one, not the old.
			f, err := s.Get(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			f.Title = "Services log in plain text lines"
			testenv.WriteFile(t, root, a.Path, string(Format(f)))
			if got := write("Services log in plain text lines", "One object per line."); got.Action != Unchanged || got.ID != a.ID {
				t.Errorf("same title and body as the edited fact: %+v", got)
			}
			if got := write("Services log in structured JSON", "One object per line."); got.Action != Created || got.Supersedes != "" {
				t.Errorf("the title before the edit: %+v", got)
			}
			// The fact with the highest id removed: its id is free again.
			last := write("Caches expire within five minutes", "TTL 300s.")
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(last.Path))); err != nil {
				t.Fatal(err)
			}
			if got := write("Retries use exponential backoff with jitter", "Base 100ms."); got.ID != last.ID {
				t.Errorf("id after removing %s = %s, want it again", last.ID, got.ID)
			}
			// A file claiming a higher id by name only.
			testenv.WriteFile(t, root, ".foundry/memory/fact-0090-hand.md", string(Format(Fact{ID: c.ID, Type: Domain, Title: "Copied by hand under a new name", Body: "b"})))
			if got := write("Alerts page the on-call engineer first", "Then the lead."); got.ID != "fact-0091" {
				t.Errorf("id after a file named fact-0090 = %s, want fact-0091", got.ID)
			}
		})
	}
}

// TestStoreWriteClearsStaleTemps checks that a long-running store removes
// the temp files a killed writer left, present at start or appearing while
// it runs, on its next write, with and without file-system events, and
// leaves a file merely named like a temp file in another folder alone.
func TestStoreWriteClearsStaleTemps(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := t.TempDir()
			mem := filepath.Join(root, filepath.FromSlash(Dir))
			testenv.WriteFile(t, root, Dir+"/"+confined.TempPrefix+"fact-0001-a.md-0ld", "left before the store started\n")
			s := OpenDir(root, Options{Now: fixedNow, Watch: watch})
			t.Cleanup(func() { _ = s.Close() })
			write := func(title string) {
				t.Helper()
				if _, err := s.Write(ctx, WriteRequest{Title: title, Body: "b", Type: Domain}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Search(ctx, Query{Text: "warm"}); err != nil {
				t.Fatal(err)
			}
			write("First fact clears the folder")
			if _, err := os.Stat(filepath.Join(mem, confined.TempPrefix+"fact-0001-a.md-0ld")); !os.IsNotExist(err) {
				t.Errorf("temp file present at start not removed by the first write: %v", err)
			}
			for i, name := range []string{"fact-0009-x.md-dead", "INDEX.md-dead"} {
				tmp := filepath.Join(mem, confined.TempPrefix+name)
				testenv.WriteFile(t, root, Dir+"/"+filepath.Base(tmp), "left by a killed writer\n")
				testenv.WriteFile(t, root, ".foundry/"+confined.TempPrefix+name, "not in the memory folder\n")
				write(fmt.Sprintf("Fact number %d after a killed writer", i+2))
				if _, err := os.Stat(tmp); !os.IsNotExist(err) {
					t.Errorf("temp file %s not removed by the next write: %v", name, err)
				}
				if _, err := os.Stat(filepath.Join(root, ".foundry", confined.TempPrefix+name)); err != nil {
					t.Errorf("a file outside the memory folder was removed: %v", err)
				}
			}
			left, err := filepath.Glob(filepath.Join(mem, confined.TempPrefix+"*"))
			if err != nil || len(left) > 0 {
				t.Errorf("temp files left after the writes: %v, %v", left, err)
			}
		})
	}
}

// TestVocabularyKeptCurrent checks that the sorted vocabulary and the typo
// lookup, kept current as facts with new words are indexed, equal the ones
// built from scratch afterwards.
func TestVocabularyKeptCurrent(t *testing.T) {
	t.Parallel()
	facts := genFacts(t, 300)
	x := newLiveIndex()
	memo := map[string]string{}
	for _, f := range facts[:200] {
		x.add(newEntry(f), memo)
	}
	x.buildDeletions() // and the vocabulary
	if x.vocab == nil || x.deletions == nil {
		t.Fatal("buildDeletions built no vocabulary or typo lookup")
	}
	for i, f := range facts[200:] {
		// "quokkaed" is a word as written whose term, "quokka", differs:
		// it joins the vocabulary too.
		f.Body += fmt.Sprintf(" Newword%d aab zyx%d quokkaed", i, i%7)
		x.add(newEntry(f), memo)
	}
	if r := x.forms["quokkaed"]; r == nil || r.term != "quokka" {
		t.Fatalf(`forms["quokkaed"] = %+v, want the term "quokka"`, r)
	}
	vocab, deletions := x.vocab, x.deletions
	x.vocab, x.deletions = nil, nil
	x.buildDeletions()
	if diff := cmp.Diff(x.vocab, vocab); diff != "" {
		t.Errorf("vocabulary kept current differs from a rebuild (-rebuild +kept):\n%s", diff)
	}
	if diff := cmp.Diff(x.deletions, deletions); diff != "" {
		t.Errorf("typo lookup kept current differs from a rebuild (-rebuild +kept):\n%s", diff)
	}
}

// TestStoreWriteAfterMemoryFolderReplaced checks that a store holding the
// memory folder open writes into the folder at its path when that one was
// moved away, replaced, removed or made a symbolic link since.
func TestStoreWriteAfterMemoryFolderReplaced(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := t.TempDir()
			s := OpenDir(root, Options{Now: fixedNow, Watch: watch})
			t.Cleanup(func() { _ = s.Close() })
			write := func(title string) (WriteResult, error) {
				return s.Write(ctx, WriteRequest{Title: title, Body: "b", Type: Domain})
			}
			if _, err := write("First fact fills the folder"); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, filepath.FromSlash(Dir))
			if err := os.Rename(dir, dir+".moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			res, err := write("Second fact goes to the new folder")
			if err != nil {
				t.Fatal(err)
			}
			if got := factFiles(t, root); len(got) != 1 || got[0] != filepath.Base(res.Path) {
				t.Errorf("facts in the folder now at %s: %v, want only %s", Dir, got, res.Path)
			}
			if !strings.Contains(readFile(t, root, IndexPath), res.ID) {
				t.Errorf("INDEX.md of the new folder does not list %s", res.ID)
			}
			if es, _ := os.ReadDir(dir + ".moved"); len(es) != 3 { // fact, INDEX.md, .lock
				t.Errorf("the folder moved away has %d entries, want the 3 it had", len(es))
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if res, err = write("Third fact recreates the folder"); err != nil {
				t.Fatal(err)
			}
			if got := factFiles(t, root); len(got) != 1 || got[0] != filepath.Base(res.Path) {
				t.Errorf("facts after the folder was removed: %v, want only %s", got, res.Path)
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dir+".moved", dir); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			if _, err := write("Fourth fact must not follow the link"); !errors.Is(err, ErrSymlink) {
				t.Errorf("write through a linked memory folder: %v, want ErrSymlink", err)
			}
			if es, _ := os.ReadDir(dir + ".moved"); len(es) != 3 {
				t.Errorf("the linked folder has %d entries, want the 3 it had", len(es))
			}
		})
	}
}

// TestIndexSizesComputed checks the sizes INDEX.md's budget is solved with
// against the lines they stand for.
func TestIndexSizesComputed(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 1000000, -1, -10} {
		for _, budget := range []int{1, 70, 4000, 100000} {
			if got, want := omittedLineLen(n, budget), len(omittedLine(n, budget)); got != want {
				t.Errorf("omittedLineLen(%d, %d) = %d, want %d", n, budget, got, want)
			}
		}
		for _, r := range []IndexResult{{Listed: n, Active: n}, {Listed: n, Active: 2*n + 3, Omitted: n + 3, Tokens: n * 17}, {Listed: 0, Active: n, Omitted: n, Tokens: 4000}} {
			if got, want := r.summaryLen(), len(r.Summary()); got != want {
				t.Errorf("summaryLen of %+v = %d, want %d", r, got, want)
			}
		}
	}
}

// TestTypoLookupBounded checks that a hostile fact holding one long word
// without repeats does not blow up the typo lookup: a word of n runes has
// n+1 deletion keys of about n bytes, quadratic in a fact's size, so words
// longer than maxTypoRunes are left out of it, and words longer than
// MaxWordBytes out of the index altogether.
func TestTypoLookupBounded(t *testing.T) {
	t.Parallel()
	long := make([]rune, 3000)
	for i := range long {
		long[i] = rune('a' + (i*7+i/26)%26)
	}
	f := genFacts(t, 1)[0]
	f.Body += " " + string(long)
	x := newLiveIndex()
	x.add(newEntry(f), map[string]string{})
	if got := x.expand(string(long)); len(got) != 0 {
		t.Errorf("a word of %d runes is looked up: %d terms", len(long), len(got))
	}
	for term := range x.postings {
		if len(term) > MaxWordBytes {
			t.Errorf("a term of %d bytes is indexed", len(term))
		}
	}
	x.buildDeletions()
	keyBytes := 0
	for k := range x.deletions {
		keyBytes += len(k)
	}
	if keyBytes > 64<<10 {
		t.Errorf("the typo lookup holds %d bytes of keys for one fact; a long word was expanded", keyBytes)
	}
	// A word of maxTypoRunes+1 runes, indexed, is left out of typo
	// matching, scanned or looked up: TestTypoScanMatchesLookup.
}

// TestWriteIndexWhenSettlingDoesMore: a write renders INDEX.md before its
// files are in place, assuming its new fact comes into the index and the
// fact it supersedes goes out. Where settling the change does more, the
// INDEX.md it puts in place is still a rebuild's: a fact already naming
// the new id as the one it supersedes (a dangling link) keeps the new fact
// out, and a superseded id that two files hold takes both out.
func TestWriteIndexWhenSettlingDoesMore(t *testing.T) {
	t.Parallel()
	fact := func(id, title string, edit func(*Fact)) Fact {
		f := Fact{ID: id, Type: Convention, Title: title, Scope: "project", Confidence: High, Source: "conversation",
			Created: "2025-03-01", Status: Active, Body: "Stated."}
		if edit != nil {
			edit(&f)
		}
		f.Path = Dir + "/" + FileName(f.ID, f.Title)
		return f
	}
	for _, tt := range []struct {
		name  string
		facts []Fact
		req   WriteRequest
	}{
		{"a dangling link names the new id", []Fact{
			fact("fact-0001", "Alpha queue consumers retry", func(f *Fact) { f.Supersedes = "fact-0002" }),
		}, WriteRequest{Title: "Beta exports finish nightly", Type: Metric, Body: "Measured."}},
		{"two files hold the superseded id", []Fact{
			fact("fact-0001", "Queue consumers retry twice", nil),
			fact("fact-0001", "Exports run nightly at two", nil),
		}, WriteRequest{Title: "Queue consumers retry twice", Type: Convention, Body: "Retry twice, then park."}},
	} {
		for _, watch := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/watch=%v", tt.name, watch), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				root := t.TempDir()
				for _, f := range tt.facts {
					testenv.WriteFile(t, root, f.Path, string(Format(f)))
				}
				s := OpenDir(root, Options{Now: fixedNow, Watch: watch})
				t.Cleanup(func() { _ = s.Close() })
				if _, err := s.Index(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Write(ctx, tt.req); err != nil {
					t.Fatal(err)
				}
				all, err := s.Facts(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := BuildIndex(all, s.Today(), DefaultIndexBudget)
				if on := readFile(t, root, IndexPath); on != string(want.Content) {
					t.Errorf("INDEX.md on disk differs from a rebuild (-rebuild +disk):\n%s", cmp.Diff(string(want.Content), on))
				}
			})
		}
	}
}

// TestIndexWithLeavesTheOrder: rendering the index ahead of a write leaves
// the order as it found it, even for a fact to supersede that is marked
// as listed but is not in the order.
func TestIndexWithLeavesTheOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := OpenDir(writeTree(t, genFacts(t, 5)), Options{Now: fixedNow})
	if _, err := s.Index(ctx); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.ixOrder
	stray := o.list[0]
	o.remove(stray)
	stray.inOrder = true // marked as listed, not in the list
	before := slices.Clone(o.list)
	s.indexWith(Fact{ID: "fact-0100", Type: Decision, Title: "A fact rendered ahead of its write", Scope: "project",
		Confidence: High, Source: "conversation", Created: "2025-03-14", Status: Active, Body: "Ahead."}, stray, s.today())
	if !slices.Equal(o.list, before) {
		t.Errorf("the order changed: %d facts before, %d after", len(before), len(o.list))
	}
}

// orderEntries returns the entries of an index order, in its order.
func orderEntries(o *indexOrder) []*entry { return slices.Clone(o.list) }

// indexMatchesRebuild fails the test unless the index s keeps incrementally
// is the one BuildIndex makes of its facts with budget, and returns the
// facts and the index.
func indexMatchesRebuild(t *testing.T, s *Store, budget int, step string) ([]Fact, IndexResult) {
	t.Helper()
	ctx := context.Background()
	all, err := s.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := BuildIndex(all, s.Today(), budget)
	got, err := s.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want.Content), string(got.Content)); diff != "" {
		t.Fatalf("%s: incremental index differs from a rebuild (-rebuild +incremental):\n%s", step, diff)
	}
	return all, got
}
