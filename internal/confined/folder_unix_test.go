//go:build unix

package confined_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFolderOpensPipeWithoutBlocking checks that a Folder opens a named pipe
// at once, with no writer on the other end, so a reader can refuse it from
// its Stat: opening it through the root would wait for a writer forever.
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
	file, err := f.Open("pipe.json")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || fi.Mode().IsRegular() || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("Stat of the pipe = %v, %v; want a named pipe", fi, err)
	}
}
