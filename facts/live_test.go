package facts

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// checkAgainstReference compares every search of queries against the
// ranking the live index replaced, computed from scratch on the store's
// current facts.
func checkAgainstReference(t *testing.T, s *Store, queries []string, step string) {
	t.Helper()
	ctx := context.Background()
	all, err := s.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.RawFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sorted := append([]Fact(nil), raw...)
	sortFacts(sorted)
	if diff := cmp.Diff(sorted, raw); diff != "" {
		t.Fatalf("%s: raw facts not in id order (-want +got):\n%s", step, diff)
	}
	if diff := cmp.Diff(DeriveStatus(raw), all); diff != "" {
		t.Fatalf("%s: derived status differs from deriving it afresh (-want +got):\n%s", step, diff)
	}
	today := s.today()
	idx, err := s.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := BuildIndex(all, today, s.opts.IndexBudget); string(want.Content) != string(idx.Content) || want.Active != idx.Active {
		t.Fatalf("%s: kept index order renders\n%s\nwant (BuildIndex)\n%s", step, idx.Content, want.Content)
	}
	ref := refBuildSearchIndex(all, nil)
	for _, qt := range queries {
		for _, typ := range []Type{"", Decision, Constraint} {
			for _, limit := range []int{1, 8, MaxLimit} {
				q := Query{Text: qt, Type: typ, Limit: limit}
				got, err := s.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				want := refRankFacts(all, ref, q, today)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s: search %+v differs from the reference (-want +got):\n%s", step, q, diff)
				}
			}
		}
	}
}

// TestLiveRankingMatchesReference checks that the live index, built at once
// or kept current through a sequence of changes, ranks exactly as sorting
// every match did: same hits, same order, same scores, same active count.
func TestLiveRankingMatchesReference(t *testing.T) {
	t.Parallel()
	c, m, _ := loadRetrievalCorpus(t)
	var queries []string
	for _, q := range c.Queries {
		queries = append(queries, q.Q)
	}
	// Broad queries match most facts, so ties and the heap's bound matter.
	queries = append(queries, "the service uses a team", "migration tool", "deploy production release", "stagin", "stagibg")

	s := NewStore(m, Options{Now: fixedNow})
	checkAgainstReference(t, s, queries, "initial")

	// Changes one at a time, each followed by the comparison: an edited
	// body, a supersession by a later fact, one named by superseded_by, an
	// expired fact, a removal, a fact restored, a malformed file.
	names := make([]string, 0, len(m))
	for p := range m {
		names = append(names, p)
	}
	fact := func(p string) Fact {
		f, err := Parse(p, m[p].Data)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	sortStrings(names)
	n := len(names)
	steps := []struct {
		name string
		do   func()
	}{
		{"edit body", func() {
			f := fact(names[3])
			f.Body += " Migration tool deploy release stage."
			m[names[3]] = &fstest.MapFile{Data: Format(f)}
		}},
		{"new fact superseding another", func() {
			old := fact(names[5])
			f := old
			f.ID, f.Supersedes, f.Body = FormatID(n+1), old.ID, "Replaced: migration tool changed."
			m[path.Join(Dir, FileName(f.ID, f.Title))] = &fstest.MapFile{Data: Format(f)}
		}},
		{"superseded_by in the file", func() {
			f := fact(names[7])
			f.Status, f.SupersededBy = Superseded, FormatID(n+1)
			m[names[7]] = &fstest.MapFile{Data: Format(f)}
		}},
		{"expired", func() {
			f := fact(names[9])
			f.Expires = "2025-01-01"
			m[names[9]] = &fstest.MapFile{Data: Format(f)}
		}},
		{"removed", func() { delete(m, names[11]) }},
		{"removed superseding fact", func() {
			for p := range m {
				if strings.HasPrefix(path.Base(p), FormatID(n+1)) {
					delete(m, p)
				}
			}
		}},
		{"removed the only fact saying staging", func() {
			// "stage" stays, from the edited body: a word of a removed
			// fact must no longer lead to it.
			for p, mf := range m {
				if strings.Contains(string(mf.Data), "staging") {
					delete(m, p)
				}
			}
		}},
		{"malformed", func() { m[names[13]] = &fstest.MapFile{Data: []byte("---\nid: [\n---\n")} }},
		{"same id twice", func() {
			f := fact(names[15])
			f.Title = "Another fact under the same id about migration"
			m[path.Join(Dir, FileName(f.ID, f.Title))] = &fstest.MapFile{Data: Format(f)}
		}},
	}
	for _, st := range steps {
		st.do()
		checkAgainstReference(t, s, queries, st.name)
	}

	// Enough removals to compact the index keep it exact too.
	big := genFacts(t, 2500)
	mb := fstest.MapFS{}
	for _, f := range big {
		mb[f.Path] = &fstest.MapFile{Data: Format(f)}
	}
	sb := NewStore(mb, Options{Now: fixedNow})
	checkAgainstReference(t, sb, queries[:5], "2500 facts")
	for _, f := range big[:2000] {
		delete(mb, f.Path)
	}
	checkAgainstReference(t, sb, queries[:5], "2000 removed")
	if len(sb.idx.docs) >= 2500 || len(sb.idx.docs)-sb.idx.dead != 500 {
		t.Errorf("index not compacted: %d slots, %d dead", len(sb.idx.docs), sb.idx.dead)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestVocabulary(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{}
	f := Fact{ID: "fact-0001", Type: Decision, Title: "Migrations use Flyway", Status: Active, Body: "Plain SQL."}
	m[path.Join(Dir, FileName(f.ID, f.Title))] = &fstest.MapFile{Data: Format(f)}
	s := NewStore(m, Options{Now: fixedNow})
	got, err := s.Vocabulary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"flyway", "migrat", "plain", "sql"}; !cmp.Equal(got, want) {
		t.Errorf("vocabulary = %q, want %q", got, want)
	}
	delete(m, path.Join(Dir, FileName(f.ID, f.Title)))
	if got, _ := s.Vocabulary(context.Background()); len(got) != 0 {
		t.Errorf("vocabulary after removal = %q, want none", got)
	}
}

// gitCmd runs git in dir.
func gitCmd(t *testing.T, gitBin, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(gitBin, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestStoreSeesEveryChangeAtOnce changes memory in every way a user, git or
// Foundry does and searches right after, with no wait: the answer must
// reflect the change. It runs with the watcher (events drained at the start
// of the request) and without (revalidation by file identity).
func TestStoreSeesEveryChangeAtOnce(t *testing.T) {
	t.Parallel()
	gitBin := testenv.Git(t)
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := t.TempDir()
			warn := &syncBuffer{}
			s := OpenDir(root, Options{Now: fixedNow, Warn: warn, Watch: watch})
			t.Cleanup(func() { _ = s.Close() })
			search := func(q string) []string {
				t.Helper()
				res, err := s.Search(ctx, Query{Text: q, Limit: MaxLimit})
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, h := range res.Hits {
					ids = append(ids, h.ID+":"+h.Title)
				}
				return ids
			}
			expect := func(step, q string, want ...string) {
				t.Helper()
				if got := search(q); !cmp.Equal(got, want) {
					t.Fatalf("%s: search %q = %q, want %q", step, q, got, want)
				}
			}
			write := func(title, body string) WriteResult {
				t.Helper()
				r, err := s.Write(ctx, WriteRequest{Title: title, Body: body, Type: Convention})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}

			expect("empty", "flyway")
			a := write("Migrations use Flyway", "Plain SQL files.")
			expect("write through foundry", "flyway", "fact-0001:Migrations use Flyway")
			b := write("Queue is Kafka", "Ordered per partition.")
			expect("second write", "kafka", "fact-0002:Queue is Kafka")

			pa := filepath.Join(root, filepath.FromSlash(a.Path))
			data, err := os.ReadFile(pa)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(pa)

			// Same inode, same size, same modification time.
			edited := strings.Replace(string(data), "Plain SQL files.", "Plain XQL files.", 1)
			if err := os.WriteFile(pa, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(pa, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
			expect("edit in place", "xql", "fact-0001:Migrations use Flyway")
			expect("edit in place", "sql")

			// New inode: written beside and renamed over.
			tmp := pa + ".new"
			if err := os.WriteFile(tmp, []byte(strings.Replace(edited, "Plain XQL files.", "Plain YQL files.", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, pa); err != nil {
				t.Fatal(err)
			}
			expect("new inode", "yql", "fact-0001:Migrations use Flyway")

			// Truncated: the file no longer parses and drops out.
			if err := os.Truncate(pa, 0); err != nil {
				t.Fatal(err)
			}
			expect("truncate", "flyway")
			if err := os.WriteFile(pa, data, 0o644); err != nil {
				t.Fatal(err)
			}
			expect("restore", "flyway", "fact-0001:Migrations use Flyway")

			// Deleted.
			pb := filepath.Join(root, filepath.FromSlash(b.Path))
			if err := os.Remove(pb); err != nil {
				t.Fatal(err)
			}
			expect("delete", "kafka")

			// git checkout of another branch, and back.
			gitCmd(t, gitBin, root, "init", "-q")
			gitCmd(t, gitBin, root, "add", ".foundry")
			gitCmd(t, gitBin, root, "commit", "-qm", "main")
			gitCmd(t, gitBin, root, "checkout", "-qb", "other")
			other := strings.Replace(string(data), "Plain SQL files.", "Plain ZQL files.", 1)
			if err := os.WriteFile(pa, []byte(other), 0o644); err != nil {
				t.Fatal(err)
			}
			write("Cache is Redis", "Evicts least recently used.")
			gitCmd(t, gitBin, root, "add", "-A", ".foundry")
			gitCmd(t, gitBin, root, "commit", "-qm", "other")
			expect("on other", "zql", "fact-0001:Migrations use Flyway")
			gitCmd(t, gitBin, root, "checkout", "-q", "main")
			expect("checkout main", "zql")
			expect("checkout main", "redis")
			expect("checkout main", "sql", "fact-0001:Migrations use Flyway")
			gitCmd(t, gitBin, root, "checkout", "-q", "other")
			expect("checkout other", "redis", "fact-0002:Cache is Redis")

			// The whole memory folder removed and recreated.
			if err := os.RemoveAll(filepath.Join(root, Dir)); err != nil {
				t.Fatal(err)
			}
			expect("folder removed", "redis")
			gitCmd(t, gitBin, root, "checkout", "-q", "--", ".foundry")
			expect("folder restored", "redis", "fact-0002:Cache is Redis")
			if err := os.WriteFile(filepath.Join(root, Dir, "fact-0009-late.md"),
				Format(Fact{ID: "fact-0009", Type: Risk, Title: "Late fact about quokkas", Status: Active, Body: "Seen."}), 0o644); err != nil {
				t.Fatal(err)
			}
			expect("recreated folder watched", "quokkas", "fact-0009:Late fact about quokkas")

			// Linux has the watcher; elsewhere the store says once that it
			// has none, as it should, and revalidates.
			if got := warn.String(); strings.Contains(got, "no file-system events") && runtime.GOOS == "linux" {
				t.Errorf("unexpected fallback warning: %s", got)
			}
		})
	}
}

// TestStoreWatchUnavailable: where the memory folder cannot be watched the
// store says so once and stays correct by revalidating.
func TestStoreWatchUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	// A symlinked memory folder is not watched (the watch does not follow
	// links), but reads through it work. The link is relative and stays in
	// .foundry: reads follow a link there only to a target inside .foundry
	// (package confined).
	real := filepath.Join(root, ".foundry", "elsewhere")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(root, Dir)); err != nil {
		t.Skip("no symlinks:", err)
	}
	warn := &syncBuffer{}
	s := OpenDir(root, Options{Now: fixedNow, Warn: warn, Watch: true})
	t.Cleanup(func() { _ = s.Close() })
	for i := range 3 {
		f := Fact{ID: FormatID(i + 1), Type: Risk, Title: fmt.Sprintf("Risk number %d about wombats", i), Status: Active, Body: "Seen."}
		if err := os.WriteFile(filepath.Join(real, FileName(f.ID, f.Title)), Format(f), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := s.Search(ctx, Query{Text: "wombats"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != i+1 {
			t.Fatalf("after %d files: %d hits", i+1, len(res.Hits))
		}
	}
	if got := strings.Count(warn.String(), "no file-system events"); got != 1 {
		t.Errorf("fallback said %d times, want once:\n%s", got, warn.String())
	}
}

// TestWarmSearchReadsNothing: with the watcher, a search with no change
// lists no folder and reads no file.
func TestWarmSearchReadsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := writeTree(t, genFacts(t, 50))
	cfs := &countingFS{FS: os.DirFS(root)}
	s := NewStore(cfs, Options{Root: root, Now: fixedNow, Watch: true})
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Search(ctx, Query{Text: "migration"}); err != nil {
		t.Fatal(err)
	}
	before := cfs.reads.Load()
	for range 5 {
		if _, err := s.Search(ctx, Query{Text: "migration"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := cfs.reads.Load() - before; got != 0 {
		t.Errorf("warm searches read %d files, want 0", got)
	}
	// One edited file: one read.
	f := genFacts(t, 50)[7]
	f.Body = "Edited by hand: quokka."
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f.Path)), Format(f), 0o644); err != nil {
		t.Fatal(err)
	}
	before = cfs.reads.Load()
	res, err := s.Search(ctx, Query{Text: "quokka"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 {
		t.Errorf("edited fact not found: %+v", res)
	}
	if got := cfs.reads.Load() - before; got != 1 {
		t.Errorf("search after one edit read %d files, want 1", got)
	}
	_ = time.Now
}

// TestEmptied holds emptied to its promise: the map it returns is empty,
// and a map that held more than a few entries is replaced rather than
// cleared, so that its table, sized for a whole scan, is not ranged over
// again by every later change (settle ranges over s.pending per sync).
func TestEmptied(t *testing.T) {
	for _, n := range []int{0, 1, emptiedInPlace, emptiedInPlace + 1, 10_000} {
		m := make(map[string]bool, n)
		for i := range n {
			m[strconv.Itoa(i)] = true
		}
		got := emptied(m)
		if len(got) != 0 {
			t.Errorf("%d entries: emptied left %d", n, len(got))
		}
		got["x"] = true // still a map one can write to
		same := sameMap(got, m)
		if want := n <= emptiedInPlace; same != want {
			t.Errorf("%d entries: kept the same map = %v, want %v", n, same, want)
		}
	}

	// settle empties its pending ids so: a scan pends every fact.
	s := OpenDir(t.TempDir(), Options{})
	s.mu.Lock()
	defer s.mu.Unlock()
	scanned := s.pending
	for i := range 10 * emptiedInPlace {
		scanned[FormatID(i+1)] = true
	}
	s.settle()
	if len(s.pending) != 0 || sameMap(s.pending, scanned) {
		t.Errorf("settle kept the table of %d pending ids (%d left in it)", 10*emptiedInPlace, len(s.pending))
	}
}

// TestChangeLeavesIndexReady: a fact added to or removed from the index
// leaves nothing that the next search would recompute for every fact (the
// BM25 length norms follow the average length, which every change moves):
// the index stays ready to rank, and ranks as the reference does.
func TestChangeLeavesIndexReady(t *testing.T) {
	t.Parallel()
	all := genFacts(t, 40)
	x := newLiveIndex()
	memo := map[string]string{}
	entries := make([]*entry, len(all))
	for i, f := range all[:30] {
		entries[i] = newEntry(f)
		x.add(entries[i], memo)
	}
	const q = "which migration tool do we use"
	x.prepare(q)
	if !x.ready(q) {
		t.Fatal("not ready after prepare")
	}
	for i, f := range all[30:] {
		entries[30+i] = newEntry(f)
		x.add(entries[30+i], memo)
		if !x.ready(q) {
			t.Fatalf("adding fact %d left the index to be prepared again", 30+i)
		}
	}
	x.remove(entries[3])
	if !x.ready(q) {
		t.Fatal("removing a fact left the index to be prepared again")
	}
	got := x.rankReady(Query{Text: q, Limit: 10}, "2025-03-14")
	var left []Fact
	for i, f := range all {
		if i != 3 {
			left = append(left, f)
		}
	}
	want := refRankFacts(left, refBuildSearchIndex(left, nil), Query{Text: q, Limit: 10}, "2025-03-14")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ranking after changes differs from the reference (-want +got):\n%s", diff)
	}
}

// TestShrunk: a map that a call ranges over is copied once it holds under
// a quarter of the most it held, past emptiedInPlace entries, so that the
// call is not charged for the table of its largest content.
func TestShrunk(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		peak, left int
		copied     bool
	}{
		{0, 0, false},
		{emptiedInPlace, 0, false},
		{emptiedInPlace + 1, 0, true},
		{400, 100, false},
		{400, 99, true},
		{10_000, 1, true},
	} {
		m := map[string]bool{}
		peak := 0
		for i := range tt.peak {
			m[strconv.Itoa(i)] = true
		}
		if got := shrunk(m, &peak); !sameMap(got, m) || peak != tt.peak {
			t.Fatalf("peak %d: a map at its peak was copied, or the peak not kept (%d)", tt.peak, peak)
		}
		for i := tt.left; i < tt.peak; i++ {
			delete(m, strconv.Itoa(i))
		}
		got := shrunk(m, &peak)
		if copied := !sameMap(got, m); copied != tt.copied {
			t.Errorf("peak %d, %d left: copied = %v, want %v", tt.peak, tt.left, copied, tt.copied)
		}
		if len(got) != tt.left || tt.left > 0 && !got["0"] {
			t.Errorf("peak %d, %d left: the copy holds %d entries", tt.peak, tt.left, len(got))
		}
		if tt.copied && peak != tt.left {
			t.Errorf("peak %d, %d left: the copy's peak is %d", tt.peak, tt.left, peak)
		}
	}
}
