//go:build linux

package facts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// TestFactFilesReadsNoFact checks that measuring the fact files of a warm,
// watched store costs nothing in proportion to the facts: it lists no
// folder and opens no fact file but the ones changed since the last call.
// The kernel says so through inotify (see confinedtest.WatchAccesses).
func TestFactFilesReadsNoFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 3000
	s, root := warmWatched(t, n)
	if _, err := s.FactFiles(ctx); err != nil {
		t.Fatal(err)
	}
	accesses := confinedtest.WatchAccesses(t, filepath.Join(root, filepath.FromSlash(Dir)))
	names := factFiles(t, root)
	edited := names[n/2]
	for i := range 3 {
		if i == 1 {
			name := filepath.Join(root, filepath.FromSlash(Dir), edited)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, append(data, "One more line.\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			accesses() // the test's own read
		}
		if _, err := s.FactFiles(ctx); err != nil {
			t.Fatal(err)
		}
	}
	listings, opened := accesses()
	if listings > 0 {
		t.Errorf("3 measures of %d facts listed the memory folder %d times", n, listings)
	}
	for name := range opened {
		if strings.HasPrefix(name, "fact-") && name != edited {
			t.Errorf("measuring %d facts opened %s, a fact not changed", n, name)
		}
	}
}
