//go:build unix

package confined_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestFolderOpensPipeWithoutBlocking checks that a Folder opens a named pipe
// at once, with no writer on the other end, and refuses it by its kind:
// opening it to read would wait for a writer forever.
func TestFolderOpensPipeWithoutBlocking(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	dir := filepath.Join(root, ".foundry", "blackboard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := open(t, root).OpenFolder(".foundry/blackboard")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, ok := f.ReadRegular("pipe.json", 1<<20); ok {
		t.Errorf("ReadRegular of the pipe = %q, true; want false, left to Open", b)
	}
	if file, err := f.Open("pipe.json"); !errors.Is(err, confined.ErrNotRegular) {
		if err == nil {
			file.Close()
		}
		t.Errorf("Open of the pipe = %v, want ErrNotRegular", err)
	}
}

// TestFolderReadRegular checks the fast read of a Folder: a regular file
// whole, and false, for Open to decide, for an empty file, a file over the
// bound given or the root's limit, a folder, a name with a slash, a
// missing file and a link even to a file beside it.
func TestFolderReadRegular(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	dir := filepath.Join(root, ".foundry", "blackboard", "w1")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"a.json": `{"a": 1}`, "empty.json": "", "sub/c.json": `{}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "big.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "big.json"), confined.ArtifactMax+1); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a.json", filepath.Join(dir, "link.json"))
	f, err := open(t, root).OpenFolder(".foundry/blackboard/w1")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, ok := f.ReadRegular("a.json", 1<<20); !ok || string(b) != `{"a": 1}` {
		t.Errorf("ReadRegular(a.json) = %q, %v; want its content, true", b, ok)
	}
	for _, c := range []struct {
		name string
		max  int64
	}{
		{"a.json", 7}, {"empty.json", 1 << 20}, {"big.json", 1 << 40}, {"sub", 1 << 20},
		{"sub/c.json", 1 << 20}, {"missing.json", 1 << 20}, {"link.json", 1 << 20}, {".", 1 << 20},
	} {
		if b, ok := f.ReadRegular(c.name, c.max); ok {
			t.Errorf("ReadRegular(%s, %d) = %q, true; want false", c.name, c.max, b)
		}
	}
}
