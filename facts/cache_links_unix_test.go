//go:build unix

package facts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// linkFact writes a fact through s into the project at root, moves its
// file to .foundry/archive and leaves a symbolic link to it in its place.
// It returns the write, the archive folder and the link, and skips the
// test where links cannot be made.
func linkFact(t *testing.T, s *Store, root string) (w WriteResult, archive, link string) {
	t.Helper()
	w, err := s.Write(context.Background(), WriteRequest{Title: "Migrations use Zebrafish", Body: "Plain SQL files.", Type: Convention})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(w.Path)
	archive = filepath.Join(root, ".foundry", "archive")
	link = filepath.Join(root, filepath.FromSlash(w.Path))
	if err := os.MkdirAll(archive, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(link, filepath.Join(archive, base)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../archive/"+base, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	return w, archive, link
}

// linkStep is a step of a link test: a change to the files, then a search
// for q that must find want.
type linkStep struct {
	step   string
	change func() error
	q      string
	want   []string
}

// replaceIn returns a change that replaces from with to in the file p.
func replaceIn(p, from, to string) func() error {
	return func() error {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, []byte(strings.Replace(string(data), from, to, 1)), 0o644)
	}
}

// linkOutside returns a change that moves the folder dir of the project
// at root to root/outside and leaves a link to it in its place.
func linkOutside(root, dir string) func() error {
	return func() error {
		outside := filepath.Join(root, "outside")
		if err := os.Rename(dir, outside); err != nil {
			return err
		}
		return os.Symlink("../outside", dir)
	}
}

// hitIDs returns the ids that a search of s for q finds, up to MaxLimit.
func hitIDs(t *testing.T, s *Store, q string) []string {
	t.Helper()
	res, err := s.Search(context.Background(), Query{Text: q, Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// TestSearchCacheRereadsLinks checks that a fact file that is a symbolic
// link is read again by every process, never answered from the cache by
// the link's own identity: what the link reads changes without it (its
// target edited, a folder on its way replaced by a link out of .foundry,
// or a cache written when the rule for links was wider).
func TestSearchCacheRereadsLinks(t *testing.T) {
	t.Parallel()
	root := writeTree(t, genFacts(t, 3))
	w, archive, link := linkFact(t, OpenDir(root, Options{Now: fixedNow}), root)
	base := filepath.Base(w.Path)
	// The link settled once, as a checkout leaves it: nothing below
	// changes its identity.
	settle(t, root)
	tv := unix.NsecToTimeval(time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()) // before settle's time, which the cache file takes
	if err := unix.Lutimes(link, []unix.Timeval{tv, tv}); err != nil {
		t.Fatal(err)
	}
	tests := []linkStep{
		{"first", nil, "zebrafish", []string{w.ID}},
		{"again, the cache written", nil, "zebrafish", []string{w.ID}},
		{"target edited", replaceIn(filepath.Join(archive, base), "Plain SQL", "Plain XQL"), "xql", []string{w.ID}},
		{"its folder linked out of .foundry", linkOutside(root, archive), "zebrafish", nil},
	}
	for _, tt := range tests {
		if tt.change != nil {
			if err := tt.change(); err != nil {
				t.Fatal(err)
			}
			settle(t, root)
		}
		s := OpenDir(root, Options{Now: fixedNow, Cache: true})
		ids := hitIDs(t, s, tt.q)
		_ = s.Close()
		if !cmp.Equal(ids, tt.want) {
			t.Errorf("%s: search %q = %q, want %q", tt.step, tt.q, ids, tt.want)
		}
	}
}

// TestWarmStoreRereadsLinks checks that a long-lived store, watching or
// not, sees at its next call what a fact file that is a symbolic link
// reads: its target edited in a folder no event covers, moved away and
// back, then that folder replaced by a link out of .foundry, then the
// link removed.
func TestWarmStoreRereadsLinks(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, genFacts(t, 3))
			warn := &syncBuffer{}
			s := OpenDir(root, Options{Now: fixedNow, Watch: watch, Warn: warn})
			t.Cleanup(func() { _ = s.Close() })
			w, archive, link := linkFact(t, s, root)
			base := filepath.Base(w.Path)
			aside := filepath.Join(root, ".foundry", "aside")
			edit := func(from, to string) func() error { return replaceIn(filepath.Join(archive, base), from, to) }
			tests := []linkStep{
				{"linked", nil, "zebrafish", []string{w.ID}},
				{"target edited", edit("Plain SQL", "Plain XQL"), "xql", []string{w.ID}},
				{"target edited again", edit("Plain XQL", "Plain YQL"), "yql", []string{w.ID}},
				{"unchanged", nil, "xql", nil},
				{"target moved away", func() error { return os.Rename(archive, aside) }, "zebrafish", nil},
				{"still away", nil, "zebrafish", nil},
				{"target back", func() error { return os.Rename(aside, archive) }, "zebrafish", []string{w.ID}},
				{"still back", nil, "zebrafish", []string{w.ID}},
				{"its folder linked out of .foundry", linkOutside(root, archive), "zebrafish", nil},
				{"its folder back", func() error {
					if err := os.Remove(archive); err != nil {
						return err
					}
					return os.Rename(filepath.Join(root, "outside"), archive)
				}, "zebrafish", []string{w.ID}},
				{"link removed", func() error { return os.Remove(link) }, "zebrafish", nil},
			}
			for _, tt := range tests {
				if tt.change != nil {
					if err := tt.change(); err != nil {
						t.Fatal(err)
					}
				}
				if ids := hitIDs(t, s, tt.q); !cmp.Equal(ids, tt.want) {
					t.Errorf("%s: search %q = %q, want %q", tt.step, tt.q, ids, tt.want)
				}
			}
			if watch && strings.Contains(warn.String(), "no file-system events") {
				t.Skipf("no file-system events here: %s", warn)
			}
		})
	}
}

// TestCachedStoreRereadsDanglingLink: a fact file recorded in the cache as
// a regular file, now a link whose target is missing, is read on the first
// scan through reconcile; its target appearing later, in a folder no event
// covers, must be seen by a watching store.
func TestCachedStoreRereadsDanglingLink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := writeTree(t, genFacts(t, 3))
	w, err := OpenDir(root, Options{Now: fixedNow}).Write(ctx, WriteRequest{Title: "Migrations use Zebrafish", Body: "Plain SQL files.", Type: Convention})
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, filepath.FromSlash(w.Path))
	old := fixedNow()
	entries, _ := os.ReadDir(filepath.Join(root, ".foundry", "memory"))
	for _, e := range entries {
		_ = os.Chtimes(filepath.Join(root, ".foundry", "memory", e.Name()), old, old)
	}
	// A first process records every file, the linked one as a regular file.
	first := OpenDir(root, Options{Now: fixedNow, Cache: true})
	if _, err := first.Search(ctx, Query{Text: "zebrafish"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath))); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	base := filepath.Base(w.Path)
	archive := filepath.Join(root, ".foundry", "archive")
	data, err := os.ReadFile(link)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../archive/"+base, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	warn := &syncBuffer{}
	s := OpenDir(root, Options{Now: fixedNow, Cache: true, Watch: true, Warn: warn})
	t.Cleanup(func() { _ = s.Close() })
	search := func() []string { return hitIDs(t, s, "zebrafish") }
	if got := search(); got != nil {
		t.Errorf("dangling: search = %q, want none", got)
	}
	if err := os.MkdirAll(archive, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(archive, base), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := search(); !cmp.Equal(got, []string{w.ID}) {
		t.Errorf("target created: search = %q, want %q", got, []string{w.ID})
	}
	if strings.Contains(warn.String(), "no file-system events") {
		t.Skipf("no file-system events here: %s", warn)
	}
}
