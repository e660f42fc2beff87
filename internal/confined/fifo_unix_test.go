//go:build unix

package confined_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestFIFOsAreNotRead puts named pipes where Foundry reads files: in
// .foundry, directly in a folder and below it, and in the project outside
// .foundry. Opening one for reading waits until a writer comes, deaf to
// SIGTERM (a FIFO in .foundry/memory hung every memory command and the
// MCP server's memory tools for good), so each read is refused by the
// file's kind and returns. Without the refusal this test blocks until go
// test's timeout.
func TestFIFOsAreNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{".foundry/cache/search.v1", ".foundry/memory/fact-0099-x.md", ".foundry/runbooks/deploy.md", "notes.json"}
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	r, err := confined.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range names {
		if _, err := fs.ReadFile(r.FS(), name); !errors.Is(err, confined.ErrNotRegular) {
			t.Errorf("ReadFile(%s) = %v, want ErrNotRegular", name, err)
		}
		if f, err := r.FS().Open(name); !errors.Is(err, confined.ErrNotRegular) {
			if err == nil {
				f.Close()
			}
			t.Errorf("Open(%s) = %v, want ErrNotRegular", name, err)
		}
		folder, err := r.OpenFolder(filepath.ToSlash(filepath.Dir(name)))
		if err != nil {
			t.Fatal(err)
		}
		if f, err := folder.Open(filepath.Base(name)); !errors.Is(err, confined.ErrNotRegular) {
			if err == nil {
				_, _ = io.ReadAll(f)
				f.Close()
			}
			t.Errorf("Folder.Open(%s) = %v, want ErrNotRegular", name, err)
		}
		folder.Close()
	}
}
