package facts

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/tokens"
)

// genFacts returns n realistic facts: the retrieval corpus repeated with
// varied titles and bodies, so term statistics look like a real memory.
func genFacts(t testing.TB, n int) []Fact {
	t.Helper()
	c, _, _ := loadRetrievalCorpus(t)
	var vocab []string
	for _, f := range c.Facts {
		vocab = append(vocab, words(f.Title+" "+f.Body)...)
	}
	out := make([]Fact, 0, n)
	for i := range n {
		base := c.Facts[i%len(c.Facts)]
		title := base.Title
		if i >= len(c.Facts) {
			suffix := fmt.Sprintf(" (%s %d)", vocab[(i*7)%len(vocab)], i)
			if len(title)+len(suffix) > MaxTitleChars {
				title = title[:MaxTitleChars-len(suffix)]
			}
			title += suffix
		}
		body := base.Body
		if i >= len(c.Facts) {
			body += fmt.Sprintf(" See also %s %s %s.", vocab[(i*13)%len(vocab)], vocab[(i*31)%len(vocab)], vocab[(i*57)%len(vocab)])
		}
		id := FormatID(i + 1)
		out = append(out, Fact{
			ID: id, Type: base.Type, Title: title, Scope: "project", Tags: base.Tags,
			Confidence: []Confidence{High, Medium, Low}[i%3], Source: "conversation",
			Created: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%400).Format(DateLayout),
			Status:  Active, Body: body, Path: path.Join(Dir, FileName(id, title)),
		})
	}
	return out
}

// writeTree writes facts as files under a new project root, with settled
// modification times, and returns the root.
func writeTree(t testing.TB, facts []Fact) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range facts {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.WriteFile(p, Format(f), 0o644); err != nil {
			t.Fatal(err)
		}
		dateBack(t, p)
	}
	dateBack(t, filepath.Join(root, Dir)) // the folder too
	return root
}

var benchQueries = []string{"which migration tool do we use", "checkout latency budget", "refunding gift cards", "how often do we deploy to production"}

// BenchmarkSearch10k measures memory_search in a long-running process over
// 10,000 fact files in a working tree: every call revalidates the cache
// (one stat per file) and ranks.
func BenchmarkSearch10k(b *testing.B) {
	root := writeTree(b, genFacts(b, 10000))
	s := OpenDir(root, Options{Now: fixedNow})
	ctx := context.Background()
	if _, err := s.Search(ctx, Query{Text: "warm up"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Search(ctx, Query{Text: benchQueries[i%len(benchQueries)]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch10kWatched is BenchmarkSearch10k in a store that learns
// changes from file-system events, as the MCP server's does: a call with no
// change touches no file.
func BenchmarkSearch10kWatched(b *testing.B) {
	root := writeTree(b, genFacts(b, 10000))
	s := OpenDir(root, Options{Now: fixedNow, Watch: true})
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Search(ctx, Query{Text: "warm up"}); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if _, err := s.Search(ctx, Query{Text: benchQueries[i%len(benchQueries)]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch10kCold measures a first call: read and parse 10,000 files,
// build the search index, rank (what a one-shot CLI call pays).
func BenchmarkSearch10kCold(b *testing.B) {
	root := writeTree(b, genFacts(b, 10000))
	ctx := context.Background()
	for b.Loop() {
		s := OpenDir(root, Options{Now: fixedNow})
		if _, err := s.Search(ctx, Query{Text: benchQueries[0]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch10kRanking isolates ranking from file checks: 10,000 facts
// already in the live index.
func BenchmarkSearch10kRanking(b *testing.B) {
	x := newLiveIndex()
	memo := map[string]string{}
	for _, f := range genFacts(b, 10000) {
		x.add(newEntry(f), memo)
	}
	for i := 0; b.Loop(); i++ {
		res := x.rank(Query{Text: benchQueries[i%len(benchQueries)], Limit: DefaultLimit}, "2025-03-14")
		if len(res.Hits) == 0 {
			b.Fatal("no hits")
		}
	}
}

// BenchmarkSearch10kRankingRef is BenchmarkSearch10kRanking with the ranking
// the live index replaced (sort every match), for comparison.
func BenchmarkSearch10kRankingRef(b *testing.B) {
	facts := genFacts(b, 10000)
	idx := refBuildSearchIndex(facts, map[string]string{})
	for i := 0; b.Loop(); i++ {
		res := refRankFacts(facts, idx, Query{Text: benchQueries[i%len(benchQueries)], Limit: DefaultLimit}, "2025-03-14")
		if len(res.Hits) == 0 {
			b.Fatal("no hits")
		}
	}
}

// BenchmarkBuildIndex10k measures rendering INDEX.md for 10,000 facts.
func BenchmarkBuildIndex10k(b *testing.B) {
	facts := genFacts(b, 10000)
	for b.Loop() {
		res := BuildIndex(facts, "2025-03-14", DefaultIndexBudget)
		if res.Active != 10000 {
			b.Fatal(res.Active)
		}
	}
}

// BenchmarkWrite measures memory_write throughput into a memory of 1,000
// facts: lock, revalidate, dedup, write, rebuild INDEX.md.
func BenchmarkWrite(b *testing.B) {
	root := writeTree(b, genFacts(b, 1000))
	s := OpenDir(root, Options{Now: fixedNow})
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		req := WriteRequest{Title: fmt.Sprintf("Benchmark fact number %d is stored", i), Type: Domain, Body: fmt.Sprintf("Body %d.", i)}
		if _, err := s.Write(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTokenFigures measures what memory_search saves: the tokens of a
// typical answer against the tokens of every memory file, for 200 facts and,
// when present, for the example project. Run with -v to see the figures.
func TestTokenFigures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	report := func(label, root string, queries []string) {
		s := OpenDir(root, Options{Now: fixedNow})
		if _, err := s.RebuildIndex(ctx); err != nil {
			t.Fatal(err)
		}
		all := 0
		err := fs.WalkDir(os.DirFS(root), Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			info, err := d.Info()
			all += int(info.Size())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		idx, _ := s.Index(ctx)
		var sizes []int
		if queries == nil {
			// Queries a reader of this memory would type: the two longest
			// words of each active fact's title.
			fs, _ := s.List(ctx, ListOptions{})
			for _, f := range fs {
				ws := words(f.Title)
				sort.SliceStable(ws, func(i, j int) bool { return len(ws[i]) > len(ws[j]) })
				queries = append(queries, strings.Join(ws[:min(2, len(ws))], " "))
			}
		}
		for _, q := range queries {
			res, err := s.Search(ctx, Query{Text: q})
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, tokens.Estimate(len(res.Render())))
		}
		sort.Ints(sizes)
		median := sizes[len(sizes)/2]
		if median >= tokens.Estimate(all) {
			t.Errorf("%s: a search answer (~%d tokens) is not smaller than all memory files (~%d)", label, median, tokens.Estimate(all))
		}
		t.Logf("%s: all memory files ~%d tokens (%d bytes); INDEX.md ~%d tokens; median memory_search answer (limit 8, %d queries) ~%d tokens, max ~%d; index + answer is %.1f%% of loading everything",
			label, tokens.Estimate(all), all, idx.Tokens, len(sizes), median, sizes[len(sizes)-1],
			100*float64(idx.Tokens+median)/float64(tokens.Estimate(all)))
	}
	report("200 facts", writeTree(t, genFacts(t, 200)), loadQueries(t))
	demo := filepath.Join("..", "examples", "demo")
	if _, err := os.Stat(filepath.Join(demo, Dir)); err == nil {
		tmp := t.TempDir()
		if err := os.CopyFS(tmp, os.DirFS(demo)); err != nil {
			t.Fatal(err)
		}
		report("examples/demo", tmp, nil)
	} else {
		t.Logf("examples/demo has no memory yet; figure for it not measured")
	}
}

func loadQueries(t *testing.T) []string {
	c, _, _ := loadRetrievalCorpus(t)
	var qs []string
	for _, q := range c.Queries {
		qs = append(qs, q.Q)
	}
	return qs
}

// warmStore10k returns a watched store over 10,000 facts whose live index
// is built, as the MCP server's is after its first search.
func warmStore10k(b *testing.B) *Store {
	b.Helper()
	root := writeTree(b, genFacts(b, 10000))
	s := OpenDir(root, Options{Now: fixedNow, Watch: true})
	b.Cleanup(func() { _ = s.Close() })
	if _, err := s.Search(context.Background(), Query{Text: "warm up"}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Index(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchWrite is the i-th fact a write benchmark stores: a new title each
// time, similar to no other (two code words of its own among four terms,
// a Jaccard index of 1/3 with any other), so every write creates a fact
// and warns about none.
func benchWrite(i int) WriteRequest {
	return WriteRequest{Title: fmt.Sprintf("Quokkas store kwbench%05d beside kwpair%05d", i, i), Body: "Measured.", Type: Convention}
}

// BenchmarkWrite10k measures memory_write into 10,000 facts in a
// long-running, warm process (the MCP server's store): lock, dedup, id,
// the fact written atomically, INDEX.md updated (goal P10: within 3x of
// BenchmarkWriteFileFloor).
func BenchmarkWrite10k(b *testing.B) {
	s := warmStore10k(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		res, err := s.Write(ctx, benchWrite(i))
		if err != nil {
			b.Fatal(err)
		}
		if res.Action != Created || len(res.Warnings) > 0 {
			b.Fatalf("write %d: %s, %d warnings", i, res.Action, len(res.Warnings))
		}
	}
}

// BenchmarkSearchAfterWrite10k measures the search right after a
// memory_write into 10,000 facts, the write itself untimed (goal P8: within
// 2x of BenchmarkSearch10kWatched, which runs the same queries).
func BenchmarkSearchAfterWrite10k(b *testing.B) {
	s := warmStore10k(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if _, err := s.Write(ctx, benchWrite(i)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Search(ctx, Query{Text: benchQueries[i%len(benchQueries)]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch10kCached is BenchmarkSearch10kCold with the persisted
// cache current: what a CLI search pays (list, stat, read the cache, build
// the index from it, rank), process start-up aside.
func BenchmarkSearch10kCached(b *testing.B) {
	root := writeTree(b, genFacts(b, 10000))
	ctx := context.Background()
	if _, err := OpenDir(root, Options{Now: fixedNow, Cache: true}).Search(ctx, Query{Text: benchQueries[0]}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s := OpenDir(root, Options{Now: fixedNow, Cache: true})
		if _, err := s.Search(ctx, Query{Text: benchQueries[0]}); err != nil {
			b.Fatal(err)
		}
	}
}

// floorRoot returns the confined root of a new folder, closed when b ends,
// and the bytes of a fact-sized file: what the write floors write.
func floorRoot(b *testing.B) (*confined.Root, []byte) {
	r, err := confined.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() })
	return r, Format(genFacts(b, 1)[0])
}

// BenchmarkWriteFileFloor is the floor of a write: one fact-sized file
// written atomically (temp file, fsync, rename, folder sync) through the
// confined root every write uses. memory_write is measured against it.
func BenchmarkWriteFileFloor(b *testing.B) {
	r, data := floorRoot(b)
	for i := 0; b.Loop(); i++ {
		if err := r.WriteFile(fmt.Sprintf("fact-%d.md", i), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteFilesFloor is the floor of what memory_write must make
// durable: a fact-sized file and an INDEX.md-sized one, staged together
// (confined.Root.StageAll), put in place and made durable by one folder
// sync, as a write does (see Store.Write). It is not the goal's yardstick
// (BenchmarkWriteFileFloor is) but says how much of a write the second
// file takes.
func BenchmarkWriteFilesFloor(b *testing.B) {
	r, data := floorRoot(b)
	index := bytes.Repeat([]byte("- fact-0001 · decision · The orders service relies on postgres\n"), 250) // about 16 KB, INDEX.md's budget
	for i := 0; b.Loop(); i++ {
		staged, err := r.StageAll(
			confined.File{Name: fmt.Sprintf("fact-%d.md", i), Data: data, Perm: 0o644},
			confined.File{Name: "INDEX.md", Data: index, Perm: 0o644},
		)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range staged {
			if err := st.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		r.SyncDir(".")
	}
}
