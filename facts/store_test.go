package facts

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// countingFS counts ReadFile calls on the wrapped file system.
type countingFS struct {
	fs.FS
	reads atomic.Int64
}

func (c *countingFS) ReadFile(name string) ([]byte, error) {
	c.reads.Add(1)
	return fs.ReadFile(c.FS, name)
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

// settle puts the modification time of recent files in the past, as for
// files written a while ago. Files already settled are left alone, so their
// status-change time stays as it was.
func settle(t *testing.T, root string) {
	t.Helper()
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	err := filepath.WalkDir(filepath.Join(root, ".foundry"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			var info fs.FileInfo
			if info, err = d.Info(); err == nil && info.ModTime().After(old) {
				err = os.Chtimes(p, old, old)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestStoreSeesOtherWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	reader := NewStore(os.DirFS(root), Options{Now: fixedNow})
	writer := OpenDir(root, Options{Now: fixedNow})

	res, err := reader.Search(ctx, Query{Text: "flyway"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Render(); got != "No stored fact matches \"flyway\". Memory holds 0 active facts.\n" {
		t.Errorf("empty memory: %q", got)
	}
	w, err := writer.Write(ctx, WriteRequest{Title: "Persistence layer uses Flyway, not Liquibase", Type: Convention, Body: "Plain SQL."})
	if err != nil {
		t.Fatal(err)
	}
	res, err = reader.Search(ctx, Query{Text: "flyway"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != w.ID {
		t.Fatalf("new fact not seen on the next call: %+v", res)
	}

	// An edit in place (same inode) in the same clock tick is seen too.
	p := filepath.Join(root, filepath.FromSlash(w.Path))
	data, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	edited := []byte(string(data[:len(data)-len("Plain SQL.\n")]) + "Plain XYZ.\n")
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(p, st.ModTime(), st.ModTime())
	f, err := reader.Get(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Body != "Plain XYZ." {
		t.Errorf("same-size edit in place not seen: body %q", f.Body)
	}

	// A removed file disappears.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.Get(ctx, w.ID); err == nil {
		t.Error("removed fact still returned")
	}
}

func TestStoreCacheWorkingTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s0, root, _ := newTestStore(t)
	for _, title := range []string{"First fact is stored here", "Second fact is stored here", "Third fact is stored here"} {
		if _, err := s0.Write(ctx, WriteRequest{Title: title, Type: Domain, Body: "b"}); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, root)
	cfs := &countingFS{FS: os.DirFS(root)}
	s := NewStore(cfs, Options{Now: fixedNow})
	if _, err := s.Facts(ctx); err != nil {
		t.Fatal(err)
	}
	if n := cfs.reads.Swap(0); n != 3 {
		t.Errorf("first load read %d files, want 3", n)
	}
	if _, err := s.Search(ctx, Query{Text: "fact"}); err != nil {
		t.Fatal(err)
	}
	if n := cfs.reads.Swap(0); n != 0 {
		t.Errorf("unchanged memory re-read %d files", n)
	}
	// Another process supersedes a fact: two files change (new inode each).
	if _, err := s0.Write(ctx, WriteRequest{Title: "First fact is stored here", Type: Domain, Body: "new body"}); err != nil {
		t.Fatal(err)
	}
	settle(t, root)
	fs, err := s.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := cfs.reads.Swap(0); n != 2 {
		t.Errorf("after one supersede, %d files re-read, want 2", n)
	}
	if len(fs) != 4 || fs[0].Status != Superseded || fs[3].Supersedes != "fact-0001" {
		t.Errorf("facts after supersede: %+v", fs)
	}
}

// hashFS mimics a git view: FileInfo values carry the blob hash, and the
// modification time is the same for every file.
type hashFS struct {
	m     fstest.MapFS
	reads atomic.Int64
}

type hashInfo struct {
	fs.FileInfo
	hash string
}

func (h hashInfo) Hash() string { return h.hash }

type hashEntry struct {
	fs.DirEntry
	hash string
}

func (e hashEntry) Info() (fs.FileInfo, error) {
	fi, err := e.DirEntry.Info()
	return hashInfo{fi, e.hash}, err
}

func (h *hashFS) Open(name string) (fs.File, error) { return h.m.Open(name) }

func (h *hashFS) ReadFile(name string) ([]byte, error) {
	h.reads.Add(1)
	return h.m.ReadFile(name)
}

func (h *hashFS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, err := h.m.ReadDir(name)
	for i, e := range es {
		f := h.m[path.Join(name, e.Name())]
		hash := ""
		if f != nil {
			hash = string(f.Sys.(string))
		}
		es[i] = hashEntry{e, hash}
	}
	return es, err
}

func TestStoreCacheBlobHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	file := func(id, title, hash string) *fstest.MapFile {
		return &fstest.MapFile{Data: Format(Fact{ID: id, Type: Domain, Title: title, Body: "b"}), Sys: hash}
	}
	h := &hashFS{m: fstest.MapFS{
		".foundry/memory/fact-0001-a.md": file("fact-0001", "Alpha fact about things", "h1"),
		".foundry/memory/fact-0002-b.md": file("fact-0002", "Beta fact about things", "h2"),
	}}
	s := NewStore(h, Options{Now: fixedNow})
	if _, err := s.Facts(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Facts(ctx); err != nil {
		t.Fatal(err)
	}
	if n := h.reads.Swap(0); n != 2 {
		t.Errorf("two loads read %d files, want 2 (second from cache)", n)
	}
	h.m[".foundry/memory/fact-0002-b.md"] = file("fact-0002", "Beta fact changed a bit", "h3")
	f, err := s.Get(ctx, "fact-0002")
	if err != nil {
		t.Fatal(err)
	}
	if n := h.reads.Swap(0); n != 1 || f.Title != "Beta fact changed a bit" {
		t.Errorf("changed blob: %d reads, title %q", n, f.Title)
	}
}

func TestStoreCacheContentFallback(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := fstest.MapFS{".foundry/memory/fact-0001-a.md": {Data: Format(Fact{ID: "fact-0001", Type: Domain, Title: "Alpha fact about AAAA", Body: "b"})}}
	s := NewStore(m, Options{Now: fixedNow})
	if _, err := s.Facts(ctx); err != nil {
		t.Fatal(err)
	}
	// Same size, same (zero) modification time, other content.
	m[".foundry/memory/fact-0001-a.md"] = &fstest.MapFile{Data: Format(Fact{ID: "fact-0001", Type: Domain, Title: "Alpha fact about BBBB", Body: "b"})}
	f, err := s.Get(ctx, "fact-0001")
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "Alpha fact about BBBB" {
		t.Errorf("content change not seen: %q", f.Title)
	}
}

func TestStoreMalformedWarnsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, warn := newTestStore(t)
	testenv.WriteFile(t, root, ".foundry/memory/fact-0001-bad.md", "---\nid: fact-0001\ntype: decision\ntitle: [oops\n---\n")
	testenv.WriteFile(t, root, ".foundry/memory/notes.md", "not a fact file name, ignored\n")
	testenv.WriteFile(t, root, ".foundry/memory/.foundry-tmp-fact-0009-x.md-123", "temp, ignored\n")
	if _, err := s.Write(ctx, WriteRequest{Title: "Good fact sits beside it", Type: Domain, Body: "b"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Search(ctx, Query{Text: "good"}); err != nil {
			t.Fatal(err)
		}
	}
	want := "warning: skip fact file .foundry/memory/fact-0001-bad.md:4: front matter: not valid YAML: \"[\" is not closed on this line\n"
	if diff := cmp.Diff(want, warn.String()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	probs, err := s.Problems(ctx)
	if err != nil || len(probs) != 1 {
		t.Errorf("Problems = %v, %v", probs, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".foundry/memory/.foundry-tmp-fact-0009-x.md-123")); !os.IsNotExist(err) {
		t.Errorf("stale temp file not removed by the writer: %v", err)
	}
}

func TestStoreDerivedSupersession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A writer died after writing the new fact and before marking the old one.
	m := fstest.MapFS{
		".foundry/memory/fact-0001-a.md": {Data: Format(Fact{ID: "fact-0001", Type: Domain, Title: "Old statement of it", Body: "old", Status: Active})},
		".foundry/memory/fact-0002-a.md": {Data: Format(Fact{ID: "fact-0002", Type: Domain, Title: "Old statement of it", Body: "new", Supersedes: "fact-0001"})},
	}
	s := NewStore(m, Options{Now: fixedNow})
	active, err := s.List(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(active) != 1 || active[0].ID != "fact-0002" {
		t.Errorf("active facts: %+v", active)
	}
	all, _ := s.List(ctx, ListOptions{All: true})
	if len(all) != 2 || all[0].SupersededBy != "fact-0002" {
		t.Errorf("all facts: %+v", all)
	}
	raw, _ := s.RawFacts(ctx)
	if raw[0].Status != Active {
		t.Errorf("RawFacts changed the file's status: %+v", raw[0])
	}
	if got := ListLine(all[0], "2025-03-14"); got != "fact-0001 · domain · medium · - · Old statement of it · superseded by fact-0002" {
		t.Errorf("ListLine = %q", got)
	}
}

func TestStoreList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := fstest.MapFS{}
	for _, f := range indexFacts() {
		f.Body = "b"
		m[path.Join(Dir, FileName(f.ID, f.Title))] = &fstest.MapFile{Data: Format(f)}
	}
	s := NewStore(m, Options{Now: fixedNow})
	ids := func(fs []Fact) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	tests := []struct {
		name string
		opts ListOptions
		want []string
	}{
		{"active", ListOptions{}, []string{"fact-0001", "fact-0002", "fact-0003", "fact-0004", "fact-0006", "fact-0008"}},
		{"all", ListOptions{All: true}, []string{"fact-0001", "fact-0002", "fact-0003", "fact-0004", "fact-0005", "fact-0006", "fact-0007", "fact-0008"}},
		{"decisions", ListOptions{Type: Decision}, []string{"fact-0002", "fact-0003", "fact-0006"}},
		{"all metrics", ListOptions{Type: Metric, All: true}, []string{"fact-0007"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := s.List(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
				t.Errorf("List (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := s.List(ctx, ListOptions{Type: "opinion"}); err == nil {
		t.Error("List with an unknown type: no error")
	}
	f, _ := s.Get(ctx, "fact-0007")
	if got := ListLine(f, "2025-03-14"); got != "fact-0007 · metric · medium · 2025-01-05 · Checkout p95 latency is 300 ms · expired 2025-03-01" {
		t.Errorf("ListLine = %q", got)
	}
	// Each state, with or without the field that explains it: nothing
	// dangles after a colon or "by".
	base := Fact{ID: "fact-0003", Type: Decision, Confidence: High, Created: "2025-01-02", Title: "Cache with Redis"}
	for _, tt := range []struct {
		status            Status
		supersededBy, why string
		want              string
	}{
		{Superseded, "fact-0004", "", " · superseded by fact-0004"},
		{Superseded, "", "", " · superseded"},
		{Retired, "", "the cache was removed", " · retired: the cache was removed"},
		{Retired, "", "", " · retired"},
	} {
		f := base
		f.Status, f.SupersededBy, f.RetiredReason = tt.status, tt.supersededBy, tt.why
		if got, want := ListLine(f, "2025-03-14"), "fact-0003 · decision · high · 2025-01-02 · Cache with Redis"+tt.want; got != want {
			t.Errorf("ListLine = %q, want %q", got, want)
		}
	}
	if _, err := s.Get(ctx, "fact-0099"); err == nil || err.Error() != "get fact-0099: fact not found" {
		t.Errorf("Get unknown: %v", err)
	}
	// The index a revision's facts give, without writing.
	res, err := s.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := BuildIndex(mustFacts(t, s), "2025-03-14", DefaultIndexBudget); string(res.Content) != string(want.Content) || res.Listed != 6 {
		t.Errorf("Index:\n%s", res.Content)
	}
}

func mustFacts(t *testing.T, s *Store) []Fact {
	t.Helper()
	fs, err := s.Facts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// deniedFS refuses to read one file while denied is set.
type deniedFS struct {
	fs.FS
	name   string
	denied atomic.Bool
}

func (d *deniedFS) ReadFile(name string) ([]byte, error) {
	if name == d.name && d.denied.Load() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return fs.ReadFile(d.FS, name)
}

func (d *deniedFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.FS, name) }

// A fact file that cannot be read is skipped with a warning, like a
// malformed one: search still answers from the others, and the file is
// read again once it can be.
func TestStoreUnreadableFileSkipped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	testenv.WriteFile(t, root, ".foundry/memory/fact-0001-flyway.md", "---\nid: fact-0001\ntype: convention\ntitle: Migrations use Flyway\n---\nPlain SQL.\n")
	testenv.WriteFile(t, root, ".foundry/memory/fact-0002-orders.md", "---\nid: fact-0002\ntype: constraint\ntitle: Orders are kept seven years\n---\nLegal rule.\n")
	fsys := &deniedFS{FS: os.DirFS(root), name: ".foundry/memory/fact-0001-flyway.md"}
	fsys.denied.Store(true)
	warn := &syncBuffer{}
	s := NewStore(fsys, Options{Now: fixedNow, Warn: warn})
	for range 2 {
		res, err := s.Search(ctx, Query{Text: "orders"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 || res.Active != 1 {
			t.Fatalf("search with one file unreadable: %d hits, %d active", len(res.Hits), res.Active)
		}
	}
	want := "warning: skip fact file .foundry/memory/fact-0001-flyway.md: cannot be read: permission denied\n"
	if diff := cmp.Diff(want, warn.String()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	fsys.denied.Store(false)
	res, err := s.Search(ctx, Query{Text: "migrations"})
	if err != nil || len(res.Hits) != 1 || res.Active != 2 {
		t.Errorf("search once readable: %+v, %v", res, err)
	}
}
