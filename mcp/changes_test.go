package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/project"
)

// countingFS counts the files opened through it, by name.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

func sum(b []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(b)) }

// TestSnapshotReadsEachFileOnce: a file the writer says it wrote is not
// read back; one it does not name is.
func TestSnapshotReadsEachFileOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a before"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b"), []byte("b before"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfs := &countingFS{FS: os.DirFS(dir), opens: map[string]int{}}
	s := newSnapshot(cfs, "a", "b")
	for _, name := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name+" after"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.wrote("a", []byte("a after"))
	s.wrote("c", []byte("c after"))
	got := s.changes("c")
	want := []Change{
		{Path: "a", Before: sum([]byte("a before")), After: sum([]byte("a after"))},
		{Path: "b", Before: sum([]byte("b before")), After: sum([]byte("b after"))},
		{Path: "c", After: sum([]byte("c after"))},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changes:\n got %v\nwant %v", got, want)
	}
	if want := map[string]int{"a": 1, "b": 2}; fmt.Sprint(cfs.opens) != fmt.Sprint(want) {
		t.Errorf("opened %v, want %v (a written file is not read back)", cfs.opens, want)
	}
}

// TestMemoryWriteAuditReadsNothing: memory_write's audit reads no file.
// The digest of INDEX.md before is the one the store took of the file it
// replaced, under the memory lock, and the digests after, of INDEX.md and
// the new fact, are those of the bytes written, which are on disk.
func TestMemoryWriteAuditReadsNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "fixture"))); err != nil {
		t.Fatal(err)
	}
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	cfs := &countingFS{FS: projectFiles(p), opens: map[string]int{}}
	f := &foundry{p: p, files: cfs, log: slog.New(slog.DiscardHandler), now: time.Now}
	f.store = facts.Open(p, facts.Options{Now: time.Now})
	defer f.store.Close()
	r := NewRegistry()
	if err := f.addMemoryWrite(r); err != nil {
		t.Fatal(err)
	}
	write := func(title string) Output {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"title": title, "body": "Measured.", "type": "convention"})
		out, err := r.byName["memory_write"].handle(context.Background(), &Call{Tool: "memory_write"}, args)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := write("Audits digest the first index") // INDEX.md exists from now on
	if c := first.Changes[0]; c.Path != facts.IndexPath || c.Before != "" {
		t.Errorf("the first INDEX.md written: change %+v, want none before it", c)
	}
	indexBefore, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(facts.IndexPath)))
	if err != nil {
		t.Fatal(err)
	}
	clear(cfs.opens)
	out := write("Audits read each file once")
	if len(cfs.opens) != 0 {
		t.Errorf("the audit opened %v", cfs.opens)
	}
	if len(out.Changes) != 2 {
		t.Fatalf("changes %+v", out.Changes)
	}
	for i, c := range out.Changes {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if c.After != sum(b) {
			t.Errorf("change %d: after %s, the file on disk is %s", i, c.After, sum(b))
		}
	}
	if c := out.Changes[0]; c.Path != facts.IndexPath || c.Before != sum(indexBefore) {
		t.Errorf("INDEX.md change %+v, before %s", c, sum(indexBefore))
	}
}
