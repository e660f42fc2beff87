//go:build linux

package facts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestWatchedStoreSeesHardLinkedEdit: a fact file with a second name
// outside the memory folder, edited in place through that name: inotify
// reports the write to the folder the file was reached through only, so
// the memory folder's watch hears nothing, yet the next request must see
// the edit, as a store without events does. The link is made before the
// store first lists the folder: one made later changes nothing the memory
// folder's watch hears of either, and is not covered.
func TestWatchedStoreSeesHardLinkedEdit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		watch bool
		cache bool // a first scan from the persisted cache, which proves the file
	}{
		{"revalidating", false, false},
		{"watched", true, false},
		{"watched, from the cache", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			facts := genFacts(t, 5)
			root := writeTree(t, facts)
			f := facts[1]
			other := filepath.Join(root, "shared-fact.md")
			if err := os.Link(filepath.Join(root, filepath.FromSlash(f.Path)), other); err != nil {
				t.Skip("no hard links:", err)
			}
			if tt.cache {
				cachedSearch(t, root, Query{Text: "quokkasaurus"})
				if _, reads := cachedSearch(t, root, Query{Text: "quokkasaurus"}); reads != 0 {
					t.Fatalf("the cache proves nothing: %d reads", reads)
				}
			}
			s := searchedStore(t, root, Options{Now: fixedNow, Watch: tt.watch, Cache: tt.cache}, "quokkasaurus")
			f.Body = "Edited through its other name: quokkasaurus."
			if err := os.WriteFile(other, Format(f), 0o644); err != nil { // in place: the same file
				t.Fatal(err)
			}
			res, err := s.Search(ctx, Query{Text: "quokkasaurus"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 1 {
				t.Errorf("after an edit through a hard link: %d hits, want 1", len(res.Hits))
			}
		})
	}
}

// TestWatchedStoreForgetsHardLinksTable: fact files with other names are
// read again on every call; once all but one of the other names are gone,
// the calls range over no table sized for them (see shrunk): ranging over
// a map that holds anything costs its table's size.
func TestWatchedStoreForgetsHardLinksTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 4 * emptiedInPlace
	facts := genFacts(t, n)
	root := writeTree(t, facts)
	others := filepath.Join(root, "others")
	if err := os.Mkdir(others, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f := range facts {
		if err := os.Link(filepath.Join(root, filepath.FromSlash(f.Path)), filepath.Join(others, strconv.Itoa(i))); err != nil {
			t.Skip("no hard links:", err)
		}
	}
	s := searchedStore(t, root, Options{Now: fixedNow, Watch: true}, "kafka")
	s.mu.Lock()
	linked := s.links
	s.mu.Unlock()
	if len(linked) != n {
		t.Fatalf("%d fact files with other names known, want %d", len(linked), n)
	}
	for i := 1; i < n; i++ {
		if err := os.Remove(filepath.Join(others, strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 { // the first call finds the names gone, the second ranges over what is left
		if _, err := s.Get(ctx, facts[0].ID); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.links) != 1 || sameMap(s.links, linked) {
		t.Errorf("the store still ranges over the table of %d linked fact files (%d left in it)", n, len(s.links))
	}
}

// TestWatchedStoreForgetsOddAndTempsTables: the fact files that are not
// regular files (symbolic links here), which token_report's figures range
// over, and the temp files, which a write ranges over, once many and then
// all gone but one, leave no table sized for them behind (see shrunk):
// whether the first scan found them or events told of them later.
func TestWatchedStoreForgetsOddAndTempsTables(t *testing.T) {
	t.Parallel()
	for _, byEvents := range []bool{false, true} {
		t.Run(fmt.Sprintf("byEvents=%v", byEvents), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			const n = 4 * emptiedInPlace
			root := writeTree(t, genFacts(t, 3))
			mem := filepath.Join(root, filepath.FromSlash(Dir))
			targets := filepath.Join(root, "targets")
			if err := os.Mkdir(targets, 0o755); err != nil {
				t.Fatal(err)
			}
			links := make([]string, n)
			temp := func(i int) string { return filepath.Join(mem, confined.TempPrefix+strconv.Itoa(i)) }
			makeAll := func() {
				for i := range n {
					f := genFacts(t, 1)[0]
					f.ID = FormatID(1000 + i)
					target := filepath.Join(targets, strconv.Itoa(i)+".md")
					if err := os.WriteFile(target, Format(f), 0o644); err != nil {
						t.Fatal(err)
					}
					links[i] = filepath.Join(mem, FileName(f.ID, "linked "+strconv.Itoa(i)))
					if err := os.Symlink(target, links[i]); err != nil {
						t.Skip("no symbolic links:", err)
					}
					if err := os.WriteFile(temp(i), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !byEvents {
				makeAll()
			}
			s := searchedStore(t, root, Options{Now: fixedNow, Watch: true, Root: root}, "kafka")
			if byEvents {
				makeAll()
				if _, err := s.Search(ctx, Query{Text: "kafka"}); err != nil {
					t.Fatal(err)
				}
			}
			s.mu.Lock()
			odd, temps := s.odd, s.temps
			s.mu.Unlock()
			if len(odd) != n || len(temps) != n {
				t.Fatalf("%d odd fact files and %d temp files known, want %d of each", len(odd), len(temps), n)
			}
			for i := 1; i < n; i++ {
				if err := os.Remove(links[i]); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(temp(i)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Search(ctx, Query{Text: "kafka"}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.FactFiles(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Write(ctx, benchWrite(1)); err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.odd) != 1 || sameMap(s.odd, odd) {
				t.Errorf("token_report's figures still range over the table of %d odd fact files (%d left in it)", n, len(s.odd))
			}
			// The write removed the temp file left, a killed writer's,
			// ranging over the temps.
			if len(s.temps) != 0 || sameMap(s.temps, temps) {
				t.Errorf("a write still ranges over the table of %d temp files (%d left in it)", n, len(s.temps))
			}
		})
	}
}
