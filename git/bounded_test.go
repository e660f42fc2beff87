package git_test

import (
	"errors"
	"io/fs"
	"runtime"
	"testing"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/confined"
)

// TestHugeBlobsNotInflated checks that a blob over its path's limit is
// refused from the object's header, loose or packed, at a revision and in
// the index, without allocating anything near its size.
func TestHugeBlobsNotInflated(t *testing.T) {
	t.Parallel()
	const huge = 96 << 20
	r := gittest.New(t)
	r.Write(".foundry/config.yaml", "")
	paths := []string{".foundry/memory/fact-0001-huge.md", ".foundry/runbooks/huge.md", ".foundry/blackboard/w/a.json"}
	for _, p := range paths {
		r.StageZeros(p, huge)
	}
	r.Git("add", ".foundry/config.yaml")
	r.Git("commit", "-q", "-m", "huge blobs") // not CommitAll: add -A would stage the blobs' removal
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, packed := range []bool{false, true} {
		if packed {
			r.Git("repack", "-adq")
			if repo, err = git.Open(r.Dir); err != nil {
				t.Fatal(err)
			}
		}
		rev, _, err := repo.RevFS("HEAD", "")
		if err != nil {
			t.Fatal(err)
		}
		idx, err := repo.ReadIndex()
		if err != nil {
			t.Fatal(err)
		}
		for _, view := range []struct {
			name string
			fsys fs.FS
		}{{"rev", rev}, {"index", idx.FS("")}} {
			for _, p := range paths {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err := fs.ReadFile(view.fsys, p)
				_, oerr := view.fsys.Open(p)
				runtime.ReadMemStats(&after)
				var tl *confined.TooLargeError
				if !errors.As(err, &tl) || !errors.As(oerr, &tl) {
					t.Errorf("packed=%v %s %s: errors %v, %v; want TooLargeError", packed, view.name, p, err, oerr)
				}
				if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
					t.Errorf("packed=%v %s %s: allocated %d bytes to refuse it", packed, view.name, p, got)
				}
			}
		}
	}
}
