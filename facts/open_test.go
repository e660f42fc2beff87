package facts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/project"
)

// recorder collects recorded event kinds.
type recorder struct {
	mu    sync.Mutex
	kinds []string
}

func (r *recorder) Record(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds = append(r.kinds, kind)
}

// TestStoreRecordsEvents checks that the store itself records one
// memory_search per search that runs and one memory_write per fact created,
// and nothing for a refused query or an unchanged write.
func TestStoreRecordsEvents(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	s := OpenDir(t.TempDir(), Options{Now: fixedNow, Events: rec})
	ctx := context.Background()
	req := WriteRequest{Title: "Dates are stored in UTC", Type: Convention, Body: "Every timestamp column holds UTC."}
	for range 2 { // created, then unchanged
		if _, err := s.Write(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Write(ctx, WriteRequest{Title: "x", Type: "nope", Body: "y"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("invalid write: err = %v, want ErrInvalid", err)
	}
	if _, err := s.Search(ctx, Query{Text: "utc"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(ctx, Query{Text: " "}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty query: err = %v, want ErrInvalid", err)
	}
	if diff := cmp.Diff([]string{"memory_write", "memory_search"}, rec.kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestOpen checks that a project's store takes its defaults from the
// project's configuration, and is writable exactly on the working tree.
func TestOpen(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".foundry", "config.yaml"), []byte("memoryRetrieval:\n  maxFacts: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	s := Open(p, Options{Now: fixedNow})
	if !s.Writable() || s.SearchLimit() != 2 {
		t.Fatalf("Open(worktree): writable %v, limit %d; want true, 2", s.Writable(), s.SearchLimit())
	}
	ctx := context.Background()
	for _, title := range []string{"Dates are stored in UTC", "Logs print dates in UTC", "Reports show UTC dates"} {
		if _, err := s.Write(ctx, WriteRequest{Title: title, Type: Convention, Body: "UTC everywhere: " + title}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Search(ctx, Query{Text: "utc dates"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 {
		t.Errorf("search without a limit: %d hits, want maxFacts 2", len(res.Hits))
	}

	ro := Open(&project.Project{Root: root, FS: fstest.MapFS{}, Source: project.Source{Rev: "HEAD"}, Config: config.Default()}, Options{})
	if ro.Writable() || ro.SearchLimit() != DefaultLimit {
		t.Errorf("Open(rev): writable %v, limit %d; want false, %d", ro.Writable(), ro.SearchLimit(), DefaultLimit)
	}
	if _, err := ro.Write(ctx, WriteRequest{Title: "t", Type: Convention, Body: "b"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("write on a revision: err = %v, want ErrReadOnly", err)
	}
}
