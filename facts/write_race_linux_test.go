//go:build linux

package facts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testpause"
)

// TestWriteSeesFileRenamedOverItsOwn: a fact file replaced by hand (an
// editor's save: written beside, renamed over) right after the write's own
// rename put it there, before the write recorded it: the store must hold
// the file now there, not what it wrote.
func TestWriteSeesFileRenamedOverItsOwn(t *testing.T) {
	// Not parallel: the pause hook is the process's.
	ctx := context.Background()
	s, root := warmWatched(t, 50)
	var once sync.Once
	var editErr error
	pause.Install(func(_ context.Context, name string) {
		if name != "facts.fact-renamed" {
			return
		}
		once.Do(func() {
			matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(Dir), "fact-*-quokkas-store-kwbench00004-*.md"))
			if len(matches) != 1 {
				editErr = os.ErrNotExist
				return
			}
			b, err := os.ReadFile(matches[0])
			if err != nil {
				editErr = err
				return
			}
			tmp := matches[0] + "~"
			if err = os.WriteFile(tmp, []byte(strings.Replace(string(b), "Quokkas", "Wombats", 1)), 0o644); err == nil {
				err = os.Rename(tmp, matches[0])
			}
			editErr = err
		})
	})
	defer testpause.Enable()
	res, err := s.Write(ctx, benchWrite(4))
	if err != nil {
		t.Fatal(err)
	}
	if editErr != nil {
		t.Fatal(editErr)
	}
	got, err := s.Get(ctx, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Title, "Wombats") {
		t.Errorf("after the file was replaced during the write the store holds %q; the file says Wombats", got.Title)
	}
}
