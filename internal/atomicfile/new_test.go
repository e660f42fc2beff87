package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestWriteNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := WriteNew(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(p, []byte("two"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second WriteNew: err = %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "one" {
		t.Errorf("content = %q, want %q (not replaced)", got, "one")
	}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestWriteNewRace(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "lock")
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			err := WriteNew(p, []byte{byte('a' + i)}, 0o644)
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, fs.ErrExist):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Errorf("winners = %d, want 1", n)
	}
}
