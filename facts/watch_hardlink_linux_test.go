//go:build linux

package facts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			warn := &syncBuffer{}
			s := OpenDir(root, Options{Now: fixedNow, Watch: tt.watch, Cache: tt.cache, Warn: warn})
			t.Cleanup(func() { _ = s.Close() })
			if _, err := s.Search(ctx, Query{Text: "quokkasaurus"}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(warn.String(), "no file-system events") {
				t.Skipf("no file-system events here: %s", warn)
			}
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
