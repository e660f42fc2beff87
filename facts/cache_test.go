package facts

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// cachedSearch runs one search in a fresh store that uses the persisted
// cache, as a CLI process does, and returns the result and the number of
// fact files it read (the cache file is opened, not counted).
func cachedSearch(t *testing.T, root string, q Query) (SearchResult, int64) {
	t.Helper()
	cfs := &countingFS{FS: os.DirFS(root)}
	s := NewStore(cfs, Options{Root: root, Now: fixedNow, Cache: true})
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	// An early answer leaves the facts being linked, with collection
	// paused: Close waits for that to end, so no test is left running
	// beside the next one.
	_ = s.Close()
	return res, cfs.reads.Load()
}

func plainSearch(t *testing.T, root string, q Query) SearchResult {
	t.Helper()
	res, err := NewStore(os.DirFS(root), Options{Now: fixedNow}).Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSearchCacheReadsOneFile: the first search writes the cache (with its
// own .gitignore); the next process reads the cache and no fact file, and
// answers exactly as a search without the cache.
func TestSearchCacheReadsOneFile(t *testing.T) {
	t.Parallel()
	facts := genFacts(t, 300)
	root := writeTree(t, facts)
	q := Query{Text: "migration deploy release", Limit: MaxLimit}

	first, reads := cachedSearch(t, root, q)
	if reads != int64(len(facts)) {
		t.Errorf("first search read %d files, want %d", reads, len(facts))
	}
	if got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(cacheIgnorePath))); err != nil || string(got) != "*\n" {
		t.Errorf(".foundry/cache/.gitignore = %q, %v; want \"*\\n\"", got, err)
	}
	second, reads := cachedSearch(t, root, q)
	if reads != 0 {
		t.Errorf("search with a current cache read %d fact files, want 0", reads)
	}
	want := plainSearch(t, root, q)
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first search differs from an uncached one (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, second); diff != "" {
		t.Errorf("search from the cache differs from an uncached one (-want +got):\n%s", diff)
	}
	// The cache keeps the words as written that the forgiving matches
	// compare against, not only their stems.
	fq := Query{Text: "stagin producton", Limit: MaxLimit}
	forgiving, reads := cachedSearch(t, root, fq)
	if reads != 0 || len(forgiving.Hits) == 0 {
		t.Errorf("forgiving search from the cache: %d hits, %d fact files read; want hits and 0 reads", len(forgiving.Hits), reads)
	}
	if diff := cmp.Diff(plainSearch(t, root, fq), forgiving); diff != "" {
		t.Errorf("forgiving search from the cache differs from an uncached one (-want +got):\n%s", diff)
	}
	// A fresh process lists and stats; the cache is current, so it is not
	// written again.
	info, _ := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath)))
	if _, reads := cachedSearch(t, root, q); reads != 0 {
		t.Errorf("third search read %d fact files", reads)
	}
	if again, _ := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath))); !again.ModTime().Equal(info.ModTime()) {
		t.Error("a current cache was rewritten")
	}
}

// TestSearchCacheNeverMakesFoundry: a search in a project whose .foundry
// has gone (a checkout of a branch without the project, under a running
// server) finds nothing and writes no cache: a read that created
// .foundry/cache/ again would leave files that stop the checkout back.
func TestSearchCacheNeverMakesFoundry(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if res, _ := cachedSearch(t, root, Query{Text: "deploy"}); len(res.Hits) != 0 {
		t.Errorf("hits in a project without .foundry: %+v", res.Hits)
	}
	if _, err := os.Lstat(filepath.Join(root, ".foundry")); !os.IsNotExist(err) {
		t.Errorf("a search made .foundry: %v", err)
	}
}

// TestSearchCacheNeverTrustedBlindly: a corrupt or truncated cache is
// ignored and rebuilt; a cache that cannot be written leaves searches
// working; a store without a working tree (a revision, the index) writes
// none.
func TestSearchCacheNeverTrustedBlindly(t *testing.T) {
	t.Parallel()
	q := Query{Text: "migration", Limit: MaxLimit}
	t.Run("corrupt", func(t *testing.T) {
		t.Parallel()
		root := writeTree(t, genFacts(t, 50))
		want := plainSearch(t, root, q)
		cachedSearch(t, root, q)
		p := filepath.Join(root, filepath.FromSlash(searchCachePath))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][]byte{data[:len(data)/2], append([]byte("x"), data[1:]...), nil} {
			flipped := append([]byte(nil), data...)
			flipped[len(flipped)/2] ^= 0x40
			for _, b := range [][]byte{bad, flipped} {
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				got, reads := cachedSearch(t, root, q)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("with a damaged cache (-want +got):\n%s", diff)
				}
				if reads < 50 {
					t.Errorf("damaged cache trusted: %d reads", reads)
				}
			}
		}
		if _, reads := cachedSearch(t, root, q); reads != 0 {
			t.Errorf("cache not rebuilt: %d reads", reads)
		}
	})
	t.Run("unwritable", func(t *testing.T) {
		t.Parallel()
		root := writeTree(t, genFacts(t, 20))
		// A file where the folder should be: MkdirAll fails, as on a
		// read-only file system.
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(CacheDir)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := cachedSearch(t, root, q)
		if diff := cmp.Diff(plainSearch(t, root, q), got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("no working tree", func(t *testing.T) {
		t.Parallel()
		root := writeTree(t, genFacts(t, 20))
		s := NewStore(os.DirFS(root), Options{Now: fixedNow, Cache: true})
		if _, err := s.Search(context.Background(), q); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(CacheDir))); !os.IsNotExist(err) {
			t.Errorf("a store without a working tree wrote the cache: %v", err)
		}
	})
}

// TestSearchCacheSeesEveryChange changes memory in every way between two
// CLI searches, with the cache in place: each answer reflects the change.
func TestSearchCacheSeesEveryChange(t *testing.T) {
	t.Parallel()
	gitBin := testenv.Git(t)
	ctx := context.Background()
	root := writeTree(t, genFacts(t, 30))
	writer := OpenDir(root, Options{Now: fixedNow, Cache: true})
	expect := func(step, q string, want ...string) {
		t.Helper()
		got, _ := cachedSearch(t, root, Query{Text: q, Limit: MaxLimit})
		var ids []string
		for _, h := range got.Hits {
			ids = append(ids, h.ID)
		}
		if !cmp.Equal(ids, want) {
			t.Fatalf("%s: search %q = %q, want %q", step, q, ids, want)
		}
		if diff := cmp.Diff(plainSearch(t, root, Query{Text: q, Limit: MaxLimit}), got); diff != "" {
			t.Fatalf("%s: cached search differs from an uncached one (-want +got):\n%s", step, diff)
		}
	}
	w, err := writer.Write(ctx, WriteRequest{Title: "Migrations use Zebrafish", Body: "Plain SQL files.", Type: Convention})
	if err != nil {
		t.Fatal(err)
	}
	expect("write through foundry", "zebrafish", w.ID)
	settle(t, root)
	expect("settled", "zebrafish", w.ID)
	expect("settled, from the cache", "zebrafish", w.ID)

	p := filepath.Join(root, filepath.FromSlash(w.Path))
	data, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "Plain SQL", "Plain XQL", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	expect("edit in place, same size and time", "xql", w.ID)
	settle(t, root)
	expect("settled", "xql", w.ID)

	if err := os.WriteFile(p+".new", []byte(strings.Replace(string(data), "Plain SQL", "Plain YQL", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	expect("new inode", "yql", w.ID)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	expect("truncate", "zebrafish")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	expect("delete", "zebrafish")

	gitCmd(t, gitBin, root, "init", "-q")
	gitCmd(t, gitBin, root, "add", ".foundry")
	gitCmd(t, gitBin, root, "commit", "-qm", "main")
	gitCmd(t, gitBin, root, "checkout", "-qb", "other")
	w2, err := writer.Write(ctx, WriteRequest{Title: "Cache is Wombatstore", Body: "Evicts least recently used.", Type: Convention})
	if err != nil {
		t.Fatal(err)
	}
	gitCmd(t, gitBin, root, "add", "-A", ".foundry")
	gitCmd(t, gitBin, root, "commit", "-qm", "other")
	settle(t, root)
	expect("on other", "wombatstore", w2.ID)
	gitCmd(t, gitBin, root, "checkout", "-q", "main")
	expect("checkout main", "wombatstore")
	gitCmd(t, gitBin, root, "checkout", "-q", "other")
	expect("checkout other", "wombatstore", w2.ID)
}

// FuzzDecodeCache: a cache file is read from the project folder, so any
// bytes may be there; decoding never panics, what it accepts is consistent
// (a listing of fact and temp file names in the folder itself, sorted;
// each indexed slot held by its record, postings over existing slots,
// words naming terms; when it says it is consistent, each indexed fact as
// the live state derives it), and an accepted index can be searched and have
// facts taken out of it without panicking. The fuzzer varies the content
// and the checksum is appended to it, so that mutations reach the decoder
// rather than stop at the checksum.
func FuzzDecodeCache(f *testing.F) {
	root := writeTree(f, genFacts(f, 20))
	if _, err := NewStore(os.DirFS(root), Options{Root: root, Now: fixedNow, Cache: true}).Search(context.Background(), Query{Text: "deploy", Limit: 5}); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(searchCachePath)))
	if err != nil {
		f.Fatal(err)
	}
	if _, ok := decodeCache(data); !ok {
		f.Fatal("the cache just written does not decode")
	}
	f.Add(data[:len(data)-4])
	f.Add([]byte(cacheMagic))
	// A memory with supersession, retirement and expiry.
	root, _ = earlyTree(f)
	if _, err := NewStore(os.DirFS(root), Options{Root: root, Now: fixedNow, Cache: true}).Search(context.Background(), Query{Text: "quokka", Limit: 5}); err != nil {
		f.Fatal(err)
	}
	if data, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(searchCachePath))); err != nil {
		f.Fatal(err)
	}
	f.Add(data[:len(data)-4])
	// Files that do not parse, beside facts.
	root = writeTree(f, genFacts(f, 5))
	for i, m := range malformedContents {
		testenv.WriteFile(f, root, fmt.Sprintf("%s/fact-%04d-malformed.md", Dir, 200+i), m.content)
	}
	for i := range malformedContents {
		dateBack(f, filepath.Join(root, filepath.FromSlash(fmt.Sprintf("%s/fact-%04d-malformed.md", Dir, 200+i))))
	}
	if _, err := NewStore(os.DirFS(root), Options{Root: root, Now: fixedNow, Cache: true}).Search(context.Background(), Query{Text: "deploy", Limit: 5}); err != nil {
		f.Fatal(err)
	}
	if data, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(searchCachePath))); err != nil {
		f.Fatal(err)
	}
	if c, ok := decodeCache(data); !ok || !slices.ContainsFunc(c.recs, func(r cacheRecord) bool { return r.file.err != nil }) {
		f.Fatal("the cache just written does not decode with its malformed files")
	}
	f.Add(data[:len(data)-4])
	f.Fuzz(func(t *testing.T, body []byte) {
		data := sealCache(body)
		c, ok := decodeCache(data)
		if !ok {
			return
		}
		if l := c.listed; l != nil {
			for i, n := range l.names {
				if (i > 0 && n <= l.names[i-1]) || path.Base(n) != n || !isFactFile(n) && !isTempFile(n) {
					t.Fatalf("listing name %d %q", i, n)
				}
			}
		}
		for i := range c.recs {
			r := &c.recs[i]
			if r.file.err == nil {
				continue
			}
			// A file that does not parse: its error, as parsing
			// reports it, and no fact.
			var pe *ParseError
			if !errors.As(r.file.err, &pe) || pe.Path != r.path || pe.Line < 0 || pe.Msg == "" || r.ent.slot != -1 {
				t.Fatalf("malformed record %d: %#v, slot %d", i, r.file.err, r.ent.slot)
			}
		}
		x := c.idx
		for slot, e := range x.docs {
			if e == nil || int(e.slot) != slot {
				t.Fatalf("slot %d held by %v", slot, e)
			}
		}
		for term, pl := range x.postings {
			for _, p := range pl.ps {
				if p.slot < 0 || int(p.slot) >= len(x.docs) || p.tf <= 0 {
					t.Fatalf("term %q: posting %+v over %d slots", term, p, len(x.docs))
				}
			}
		}
		for w, r := range x.forms {
			if x.postings[r.term] == nil {
				t.Fatalf("word %q names %q, which is no term", w, r.term)
			}
		}
		if !slices.IsSorted(x.vocab) {
			t.Fatal("vocabulary not sorted")
		}
		for _, q := range []string{"deploy", "stagin", "producton migrations"} {
			x.rank(Query{Text: q, Limit: 5}, "2025-03-14")
		}
		// The records become a store's live state, as a first scan
		// builds it, and half of them leave it again.
		// A consistent cache indexes the facts the live state indexes,
		// their status derived as the live state derives it: a first
		// search may be answered from it before the facts are linked.
		type derived struct {
			fact    Fact
			indexed bool
		}
		before := make([]derived, len(c.recs))
		for i := range c.recs {
			before[i] = derived{c.recs[i].ent.fact(), c.recs[i].ent.slot >= 0}
		}
		s := NewStore(fstest.MapFS{}, Options{Now: fixedNow})
		s.mu.Lock()
		s.prebuild(c)
		for i := range c.recs {
			after := derived{c.recs[i].ent.fact(), c.recs[i].ent.slot >= 0}
			if !before[i].indexed {
				before[i].fact = after.fact // derived by the live state alone
			}
			if c.consistent && !cmp.Equal(before[i], after, cmp.AllowUnexported(derived{})) {
				t.Fatalf("consistent cache, record %d: decoded %+v, live state %+v", i, before[i], after)
			}
		}
		for i := 0; i < len(c.recs); i += 2 {
			s.setFile(c.recs[i].path, nil)
		}
		s.endBulk()
		s.settle()
		s.mu.Unlock()
		if _, err := s.Search(context.Background(), Query{Text: "deploy", Limit: 5}); err != nil {
			t.Fatal(err)
		}
		x.rank(Query{Text: "deploy", Limit: 5}, "2025-03-14")
		x.compact()
		x.rank(Query{Text: "deploy", Limit: 5}, "2025-03-14")
	})
}

// sealCache makes a cache file of body, a cache file without its trailing
// checksum: the head's checksum, where body has a head, is set to match it,
// and the whole file's is appended.
func sealCache(body []byte) []byte {
	body = slices.Clone(body)
	if end, ok := headLen(body); ok && end <= len(body) {
		binary.LittleEndian.PutUint32(body[end-4:], crc32.Checksum(body[:end-4], castagnoli()))
	}
	return binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, castagnoli()))
}

// TestCacheHead: the head of a cache file (magic, listing, checksum) is
// read on its own, before the rest; a damaged head, or one that claims
// more than the file holds, is rejected, and so is a whole file whose head
// is intact but whose rest is not.
func TestCacheHead(t *testing.T) {
	t.Parallel()
	root := writeTree(t, genFacts(t, 30))
	cachedSearch(t, root, Query{Text: "deploy"})
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(searchCachePath)))
	if err != nil {
		t.Fatal(err)
	}
	end, ok := headLen(data[:len(cacheMagic)+binary.MaxVarintLen64])
	if !ok || end > len(data)-4 {
		t.Fatalf("headLen = %d, %v over a file of %d bytes", end, ok, len(data))
	}
	l, ok := decodeHead(data[:end])
	if !ok || l == nil || len(l.names) != 30 {
		t.Fatalf("head: listing %+v, %v; want 30 names", l, ok)
	}
	flip := func(b []byte, i int) []byte {
		b = slices.Clone(b)
		b[i] ^= 0x01
		return b
	}
	if _, ok := decodeHead(flip(data[:end], end-10)); ok {
		t.Error("a head with a flipped byte decoded")
	}
	if _, ok := decodeHead(data[:end-1]); ok {
		t.Error("a truncated head decoded")
	}
	if _, ok := headLen([]byte("foundry search cache 5\n\x10")); ok {
		t.Error("the head of another version was read")
	}
	if _, ok := decodeCache(flip(data, end+10)); ok {
		t.Error("a file with an intact head and a damaged rest decoded")
	}
	if _, ok := decodeCache(data[:end+4]); ok {
		t.Error("a file of its head alone decoded")
	}
}

// indexShape is what a search index answers from: each term's live
// postings (fact path and weighted frequency), each word as written with
// its term and live count, each indexed fact's length and the totals.
func indexShape(t *testing.T, s *Store) map[string]string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.idx
	if x == nil {
		t.Fatal("no index")
	}
	shape := map[string]string{"n": fmt.Sprint(x.n), "total": fmt.Sprint(x.total), "expiries": fmt.Sprint(x.expiries)}
	for term, pl := range x.postings {
		var ps []string
		for _, p := range pl.ps {
			if e := x.docs[p.slot]; e != nil {
				ps = append(ps, fmt.Sprintf("%s:%v", e.raw.Path, p.tf))
			}
		}
		if len(ps) != pl.live {
			t.Errorf("term %q: live %d, %d live postings", term, pl.live, len(ps))
		}
		if len(ps) > 0 {
			slices.Sort(ps)
			shape["term "+term] = strings.Join(ps, " ")
		}
	}
	for w, r := range x.forms {
		if r.live > 0 {
			shape["word "+w] = fmt.Sprint(r.term, " ", r.live)
		}
	}
	for slot, e := range x.docs {
		if e != nil {
			if int(e.slot) != slot {
				t.Errorf("%s: slot %d held at %d", e.raw.Path, e.slot, slot)
			}
			shape["len "+e.raw.Path] = fmt.Sprint(x.lens[slot])
		}
	}
	return shape
}

// TestCachedIndexRanksAsFresh: a search answered from the cached index,
// as loaded and as patched after facts were edited, deleted, added,
// superseded and retired between two processes, ranks exactly as a search
// over the facts read afresh, and its index is the one a fresh build
// makes; only the changed files are read. Files changed too recently to
// be trusted stay out of the next cache and are read again.
func TestCachedIndexRanksAsFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	facts := genFacts(t, 400)
	root := writeTree(t, facts)
	queries := []Query{
		{Text: "which migration tool do we use", Limit: MaxLimit},
		{Text: "checkout latency budget", Limit: MaxLimit},
		{Text: "how often do we deploy to production", Limit: MaxLimit},
		{Text: "stagin postgre", Limit: MaxLimit},
		{Text: "producton webhok", Limit: MaxLimit},
		{Text: "zebrafish wombatstore", Limit: MaxLimit},
		{Text: "deploy", Type: Decision, Limit: 5},
	}
	freshStore := func() *Store {
		s := NewStore(os.DirFS(root), Options{Now: fixedNow})
		if _, err := s.Search(ctx, queries[0]); err != nil {
			t.Fatal(err)
		}
		return s
	}
	check := func(step string, wantReads int64) {
		t.Helper()
		cfs := &countingFS{FS: os.DirFS(root)}
		s := NewStore(cfs, Options{Root: root, Now: fixedNow, Cache: true})
		for i, q := range queries {
			got, err := s.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && cfs.reads.Load() != wantReads {
				t.Errorf("%s: read %d fact files, want %d", step, cfs.reads.Load(), wantReads)
			}
			if diff := cmp.Diff(plainSearch(t, root, q), got); diff != "" {
				t.Errorf("%s: search %q differs from a fresh one (-want +got):\n%s", step, q.Text, diff)
			}
		}
		if diff := cmp.Diff(indexShape(t, freshStore()), indexShape(t, s)); diff != "" {
			t.Errorf("%s: index differs from a fresh build (-want +got):\n%s", step, diff)
		}
		want, err := freshStore().RawFacts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.RawFacts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: facts differ from a fresh read (-want +got):\n%s", step, diff)
		}
	}
	put := func(f Fact, settled bool) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.WriteFile(p, Format(f), 0o644); err != nil {
			t.Fatal(err)
		}
		if settled {
			dateBack(t, p)
		}
	}

	check("first search, building the cache", int64(len(facts)))
	check("from the cache", 0)

	edited := facts[3]
	edited.Body = "Migrations now run with Zebrafish, checked on staging."
	put(edited, true)
	edited = facts[17]
	edited.Title += " and the deploy freeze"
	edited.Tags = []string{"deploy", "release"}
	put(edited, true)
	for _, f := range []Fact{facts[5], facts[250]} {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(f.Path))); err != nil {
			t.Fatal(err)
		}
	}
	added := facts[0]
	added.ID, added.Title, added.Body = FormatID(401), "Cache is Wombatstore", "Evicts the least recently used producton entries."
	added.Path = path.Join(Dir, FileName(added.ID, added.Title))
	put(added, true)
	successor := facts[40]
	successor.ID, successor.Supersedes = FormatID(402), facts[41].ID
	successor.Path = path.Join(Dir, FileName(successor.ID, successor.Title))
	put(successor, true)
	retired := facts[60]
	retired.Status, retired.RetiredReason = Retired, "the queue was removed"
	put(retired, true)
	check("after edits, deletions, additions, a supersession and a retirement", 5)
	check("from the rewritten cache", 0)

	edited = facts[7]
	edited.Body += " Zebrafish again."
	put(edited, false) // too recent to be trusted by identity alone
	check("after an edit just now", 1)
	check("the recent file is read again", 1)
}

// TestSearchCacheRecordsSettledListing: the cache records the memory
// folder's listing when the folder had settled, none while it had just
// changed, and is rewritten once to record one when the folder settles;
// searches from it see every fact the folder holds, whatever it records.
func TestSearchCacheRecordsSettledListing(t *testing.T) {
	t.Parallel()
	facts := genFacts(t, 40)
	root := writeTree(t, facts) // the folder settled long ago
	listing := func(step string) *dirListing {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(searchCachePath)))
		if err != nil {
			t.Fatal(err)
		}
		c, ok := decodeCache(data)
		if !ok {
			t.Fatalf("%s: the cache does not decode", step)
		}
		return c.listed
	}
	q := Query{Text: "wombatstore", Limit: MaxLimit}
	cachedSearch(t, root, q)
	if l := listing("settled"); l == nil || len(l.names) != len(facts) {
		t.Fatalf("settled folder: listing %+v, want %d names", l, len(facts))
	}

	added := facts[0]
	added.ID, added.Title, added.Body = FormatID(401), "Cache is Wombatstore", "Evicts the least recently used entries."
	added.Path = path.Join(Dir, FileName(added.ID, added.Title))
	testenv.WriteFile(t, root, added.Path, string(Format(added)))
	dateBack(t, filepath.Join(root, filepath.FromSlash(added.Path)))
	got, reads := cachedSearch(t, root, q)
	if len(got.Hits) != 1 || got.Hits[0].ID != added.ID || reads != 1 {
		t.Errorf("after an addition: %d hits, %d reads; want %s alone, 1 read", len(got.Hits), reads, added.ID)
	}
	if l := listing("changed just now"); l != nil {
		t.Errorf("folder changed just now: listing %+v recorded", l)
	}

	dateBack(t, filepath.Join(root, filepath.FromSlash(Dir)))
	if got, reads := cachedSearch(t, root, q); len(got.Hits) != 1 || reads != 0 {
		t.Errorf("settled again: %d hits, %d reads; want 1 hit, 0 reads", len(got.Hits), reads)
	}
	l := listing("settled again")
	if l == nil || len(l.names) != len(facts)+1 {
		t.Fatalf("settled again: listing %+v, want %d names", l, len(facts)+1)
	}
	info, _ := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath)))
	if diff := cmp.Diff(plainSearch(t, root, q), func() SearchResult { r, _ := cachedSearch(t, root, q); return r }()); diff != "" {
		t.Errorf("search trusting the listing differs from an uncached one (-want +got):\n%s", diff)
	}
	if again, _ := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath))); !again.ModTime().Equal(info.ModTime()) {
		t.Error("a current cache with its listing was rewritten")
	}
}

// TestDecodeCacheRejectsDottedPath: a record's path is the memory folder
// and a fact file's name exactly; one that only cleans to it (a "./" in
// it) is a damaged cache, not a fact file under another name.
func TestDecodeCacheRejectsDottedPath(t *testing.T) {
	t.Parallel()
	root := writeTree(t, genFacts(t, 5))
	cachedSearch(t, root, Query{Text: "deploy"})
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(searchCachePath)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeCache(data); !ok {
		t.Fatal("the cache just written does not decode")
	}
	body := slices.Clone(data[:len(data)-4])
	i := strings.Index(string(body), Dir+"/fact-00")
	if i < 0 {
		t.Fatal("no record path in the cache")
	}
	copy(body[i+len(Dir)+1:], "./fact-") // fact-0001-… becomes ./fact-01-…, as long
	if _, ok := decodeCache(sealCache(body)); ok {
		t.Errorf("a record at %q decoded", body[i:i+len(Dir)+12])
	}
}

// TestCacheUntrustedAfterFailedListing: a first scan builds the live state
// from the cache while it lists the folder; when the listing fails, no
// cached fact has been held against its file yet, so the next scan reads
// every one of them instead of trusting the cache by identity alone.
func TestCacheUntrustedAfterFailedListing(t *testing.T) {
	t.Parallel()
	facts := genFacts(t, 20)
	root := writeTree(t, facts)
	q := Query{Text: "migration deploy", Limit: MaxLimit}
	cachedSearch(t, root, q)
	mem := filepath.Join(root, filepath.FromSlash(Dir))
	if err := os.Rename(mem, mem+".away"); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, root, Dir, "a file where the folder was")
	cfs := &countingFS{FS: os.DirFS(root)}
	s := NewStore(cfs, Options{Root: root, Now: fixedNow, Cache: true})
	if _, err := s.Search(context.Background(), q); err == nil {
		t.Fatal("search over a file in place of the memory folder succeeded")
	}
	if err := os.Remove(mem); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(mem+".away", mem); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plainSearch(t, root, q), got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := cfs.reads.Load(); n != int64(len(facts)) {
		t.Errorf("read %d fact files after the failed listing, want all %d", n, len(facts))
	}
}

// TestSearchCacheKeepsEmptyTags: a fact without tags has Tags []string{}
// (JSON "tags": []) when read from the cache, as when parsed, whether or
// not a fact decoded before it had tags.
func TestSearchCacheKeepsEmptyTags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tags [][]string // per fact, in id order
	}{
		{"no fact has tags", [][]string{{}, {}}},
		{"a later fact has tags", [][]string{{}, {"billing"}}},
		{"an earlier fact has tags", [][]string{{"billing"}, {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			facts := genFacts(t, len(tc.tags))
			for i := range facts {
				facts[i].Tags = tc.tags[i]
			}
			root := writeTree(t, facts)
			q := Query{Text: facts[0].Title, Limit: MaxLimit}
			cachedSearch(t, root, q) // writes the cache
			got, reads := cachedSearch(t, root, q)
			if reads != 0 {
				t.Fatalf("search read %d fact files, want 0 (from the cache)", reads)
			}
			for _, h := range got.Hits {
				if h.Tags == nil {
					t.Errorf("%s from the cache: Tags is nil, want []string{}", h.ID)
				}
			}
			if diff := cmp.Diff(plainSearch(t, root, q), got); diff != "" {
				t.Errorf("search from the cache differs from an uncached one (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEveryScanSavesCache: whatever call first scans a project without a
// cache in a store that keeps one saves it, as a first search does, so
// the next process reads no fact file but those the call wrote and
// answers, searches included, as a store without the cache.
func TestEveryScanSavesCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		call    func(s *Store, facts []Fact) error
		written int // fact files the call wrote, which the next process reads
	}{
		{"List", func(s *Store, _ []Fact) error { _, err := s.List(ctx, ListOptions{}); return err }, 0},
		{"Facts", func(s *Store, _ []Fact) error { _, err := s.Facts(ctx); return err }, 0},
		{"RawFacts", func(s *Store, _ []Fact) error { _, err := s.RawFacts(ctx); return err }, 0},
		{"Problems", func(s *Store, _ []Fact) error { _, err := s.Problems(ctx); return err }, 0},
		{"Get", func(s *Store, f []Fact) error { _, err := s.Get(ctx, f[3].ID); return err }, 0},
		{"GetAll", func(s *Store, f []Fact) error { _, err := s.GetAll(ctx, f[3].ID); return err }, 0},
		{"ActiveCount", func(s *Store, _ []Fact) error { _, err := s.ActiveCount(ctx); return err }, 0},
		{"Vocabulary", func(s *Store, _ []Fact) error { _, err := s.Vocabulary(ctx); return err }, 0},
		{"Index", func(s *Store, _ []Fact) error { _, err := s.Index(ctx); return err }, 0},
		{"RebuildIndex", func(s *Store, _ []Fact) error { _, err := s.RebuildIndex(ctx); return err }, 0},
		{"Search by id", func(s *Store, f []Fact) error { _, err := s.Search(ctx, Query{Text: f[3].ID}); return err }, 0},
		{"Write", func(s *Store, _ []Fact) error {
			_, err := s.Write(ctx, WriteRequest{Title: "Quokkas store migration notes", Body: decisionBody("Keep them."), Type: Decision})
			return err
		}, 1},
		{"Retire", func(s *Store, f []Fact) error { _, err := s.Retire(ctx, f[3].ID, "no longer holds"); return err }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			facts := genFacts(t, 60)
			root := writeTree(t, facts)
			s := OpenDir(root, Options{Now: fixedNow, Cache: true})
			if err := tc.call(s, facts); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			for _, p := range []string{searchCachePath, cacheIgnorePath} {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Fatalf("%s after %s: %v", p, tc.name, err)
				}
			}
			// It holds the search index, so that the next first search
			// may be answered from it before the facts are linked.
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(searchCachePath)))
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := decodeCache(data); !ok || !c.consistent {
				t.Errorf("the cache %s saved does not index its facts (decoded %v)", tc.name, ok)
			}
			q := Query{Text: "migration deploy release", Limit: MaxLimit}
			got, reads := cachedSearch(t, root, q)
			if reads != int64(tc.written) {
				t.Errorf("the next search read %d fact files, want %d", reads, tc.written)
			}
			if diff := cmp.Diff(plainSearch(t, root, q), got); diff != "" {
				t.Errorf("search from the cache differs from an uncached one (-want +got):\n%s", diff)
			}
			cfs := &countingFS{FS: os.DirFS(root)}
			all, err := NewStore(cfs, Options{Root: root, Now: fixedNow, Cache: true}).Facts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if reads := cfs.reads.Load(); reads != int64(tc.written) {
				t.Errorf("the next Facts read %d fact files, want %d", reads, tc.written)
			}
			want, err := NewStore(os.DirFS(root), Options{Now: fixedNow}).Facts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, all); diff != "" {
				t.Errorf("facts from the cache differ from uncached ones (-want +got):\n%s", diff)
			}
		})
	}
}
