package facts

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testpause"
)

// TestStaleCacheSavedOutsideMemoryLock has a write and a retire find the
// search cache stale (none yet) in a fresh process, as a CLI write in a
// fresh clone does. Saving it builds the search index and writes a file
// the size of the memory, so it waits until the memory lock is released:
// at the save, another process can take that lock at once. Not parallel:
// it installs a pause hook.
func TestStaleCacheSavedOutsideMemoryLock(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func(s *Store, facts []Fact) error
	}{
		{"Write", func(s *Store, _ []Fact) error {
			_, err := s.Write(ctx, WriteRequest{Title: "Quokkas store migration notes", Body: decisionBody("Keep them."), Type: Decision})
			return err
		}},
		{"Retire", func(s *Store, f []Fact) error { _, err := s.Retire(ctx, f[3].ID, "no longer holds"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			facts := genFacts(t, 60)
			root := writeTree(t, facts)
			other, err := confined.Open(root) // another holder of the memory lock
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			saves, free := 0, 0
			pause.Install(func(_ context.Context, name string) {
				if name != "facts.cache-saving" {
					return
				}
				saves++
				lctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
				if unlock, err := other.Lock(lctx, LockPath); err == nil {
					free++
					_ = unlock()
				}
			})
			defer testpause.Enable()
			s := OpenDir(root, Options{Now: fixedNow, Cache: true})
			if err := tc.call(s, facts); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			if saves != 1 || free != 1 {
				t.Errorf("%s saved the cache %d times, %d of them with the memory lock free; want 1, 1", tc.name, saves, free)
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath))); err != nil {
				t.Errorf("no cache after %s: %v", tc.name, err)
			}
		})
	}
}
