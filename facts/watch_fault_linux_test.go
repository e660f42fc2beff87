//go:build linux

package facts

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// faultyFS is os.DirFS whose Lstat fails with EIO while fail is set: a
// request that meets a passing fault (EIO, EMFILE, ENOMEM) while it applies
// the events it drained.
type faultyFS struct {
	fs.FS
	fail atomic.Bool
}

func (f *faultyFS) Lstat(name string) (fs.FileInfo, error) {
	if f.fail.Load() {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: syscall.EIO}
	}
	return fs.Lstat(f.FS, name)
}

func (f *faultyFS) ReadLink(name string) (string, error) { return fs.ReadLink(f.FS, name) }

// TestWatchedStoreKeepsEventsOfFailedRequest: a request that fails while
// it applies the events it drained must not lose them: once the fault has
// passed, the next request sees every change made before it.
func TestWatchedStoreKeepsEventsOfFailedRequest(t *testing.T) {
	t.Parallel()
	facts := genFacts(t, 5)
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, root string)
		want   int // hits for "quokkasaurus" once the fault has passed (fact-0043 has it until removed)
	}{
		{"edited in place", func(t *testing.T, root string) {
			f := facts[2]
			f.Body = "Edited by hand: quokkasaurus."
			testenv.WriteFile(t, root, f.Path, string(Format(f)))
		}, 2},
		{"created", func(t *testing.T, root string) {
			f := Fact{ID: "fact-0042", Type: Risk, Title: "Quokkasaurus risk", Status: Active, Body: "Seen."}
			testenv.WriteFile(t, root, Dir+"/fact-0042-quokkasaurus-risk.md", string(Format(f)))
		}, 2},
		{"removed", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(Dir+"/fact-0043-quokkasaurus.md"))); err != nil {
				t.Fatal(err)
			}
		}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := writeTree(t, facts)
			gone := Fact{ID: "fact-0043", Type: Risk, Title: "Quokkasaurus risk", Status: Active, Body: "Seen."}
			testenv.WriteFile(t, root, Dir+"/fact-0043-quokkasaurus.md", string(Format(gone)))
			ffs := &faultyFS{FS: os.DirFS(root)}
			warn := &syncBuffer{}
			s := NewStore(ffs, Options{Root: root, Now: fixedNow, Watch: true, Warn: warn})
			t.Cleanup(func() { _ = s.Close() })
			if _, err := s.Search(ctx, Query{Text: "quokkasaurus"}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(warn.String(), "no file-system events") {
				t.Skipf("no file-system events here: %s", warn)
			}
			tt.change(t, root)
			ffs.fail.Store(true)
			if _, err := s.Search(ctx, Query{Text: "quokkasaurus"}); err == nil {
				t.Fatal("the fault did not reach the request")
			}
			ffs.fail.Store(false)
			res, err := s.Search(ctx, Query{Text: "quokkasaurus"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != tt.want {
				t.Errorf("after the fault passed: %d hits, want %d: a change made before the request is lost", len(res.Hits), tt.want)
			}
		})
	}
}
