package facts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadsOfUnchangedMemoryWriteNoCache: once a cache is saved, a read of
// a memory that has not changed since (memory list, show, search,
// completion) leaves it as it is. A fact file the cache can never record
// (over its read limit, so never read; dated ahead, so never settled) does
// not keep it stale for good, which made every process that reads the
// facts encode and write the whole cache again. A fact added since is
// recorded, by the first read after it alone.
func TestReadsOfUnchangedMemoryWriteNoCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	write := func(t *testing.T, root, name, content string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(Dir), name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		dateBack(t, filepath.Join(root, filepath.FromSlash(Dir)))
	}
	long := time.Now().Add(-time.Hour)
	added := string(Format(Fact{ID: "fact-0901", Type: Decision, Title: "Added after the cache", Scope: "project",
		Confidence: High, Source: "conversation", Created: "2026-01-02", Status: Active,
		Body: "Added.\nWhy: a test.\nHow to apply: none."}))
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, root string) // before the cache is first saved
		after  func(t *testing.T, root string) // once it is
		resave bool                            // the first read after writes it again
	}{
		{"every fact recordable", nil, nil, false},
		{"one fact over the read limit", func(t *testing.T, root string) {
			write(t, root, "fact-0900-huge.md", strings.Repeat("x", 70<<10), long)
		}, nil, false},
		{"one fact dated ahead", func(t *testing.T, root string) {
			write(t, root, "fact-0900-ahead.md", added, time.Now().Add(365*24*time.Hour))
		}, nil, false},
		{"a fact added since", nil, func(t *testing.T, root string) {
			write(t, root, "fact-0901-added-after-the-cache.md", added, long)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, genFacts(t, 40))
			if tc.before != nil {
				tc.before(t, root)
			}
			cachedSearch(t, root, Query{Text: "migration"})
			cache := filepath.Join(root, filepath.FromSlash(searchCachePath))
			before, err := os.Stat(cache)
			if err != nil {
				t.Fatal(err)
			}
			if tc.after != nil {
				tc.after(t, root)
			}
			for i := range 4 {
				s := OpenDir(root, Options{Now: fixedNow, Cache: true})
				if i%2 == 0 {
					_, err = s.List(ctx, ListOptions{})
				} else {
					_, err = s.Search(ctx, Query{Text: "migration"})
				}
				if err != nil {
					t.Fatal(err)
				}
				_ = s.Close()
				after, err := os.Stat(cache)
				if err != nil {
					t.Fatal(err)
				}
				if want := tc.resave && i == 0; os.SameFile(before, after) == want {
					t.Errorf("read %d: cache written again: %v, want %v", i+1, !os.SameFile(before, after), want)
				}
				before = after
			}
		})
	}
}
