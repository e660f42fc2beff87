package confined_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestFolder checks that a folder held open writes where its path led when
// it was opened, names files by their project path in messages, refuses a
// symbolic link, and knows when its path no longer leads to it.
func TestWriteFolder(t *testing.T) {
	t.Parallel()
	root, secret := project(t)
	r := open(t, root)
	mem, err := r.OpenWriteFolder(".foundry/memory")
	if err != nil {
		t.Fatal(err)
	}
	if !mem.Current() {
		t.Fatal("a folder just opened is not current")
	}
	if err := mem.WriteFile("a.md", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".foundry", "memory", "a.md")); err != nil || string(b) != "a" {
		t.Errorf("file written through the folder: %q, %v", b, err)
	}
	symlink(t, secret, filepath.Join(root, ".foundry", "memory", "INDEX.md"))
	err = mem.WriteFile("INDEX.md", []byte("x"), 0o644)
	if !errors.Is(err, confined.ErrSymlink) || !strings.Contains(err.Error(), "refuse to write through .foundry/memory/INDEX.md") {
		t.Errorf("write through a linked file: %v, want ErrSymlink naming .foundry/memory/INDEX.md", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "top secret\n" {
		t.Errorf("file outside the project changed: %q", b)
	}

	// The folder moved away and another made at its path.
	dir := filepath.Join(root, ".foundry", "memory")
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if mem.Current() {
		t.Error("a folder moved away is still current")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if mem.Current() {
		t.Error("a folder replaced is still current")
	}
	again, err := r.OpenWriteFolder(".foundry/memory")
	if err != nil || !again.Current() {
		t.Fatalf("reopened folder: current %v, %v", err == nil && again.Current(), err)
	}
	// A symbolic link at the path is never current, nor opened.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	symlink(t, dir+".old", dir)
	if again.Current() {
		t.Error("a symbolic link to a folder is current")
	}
	if _, err := r.OpenWriteFolder(".foundry/memory"); !errors.Is(err, confined.ErrSymlink) {
		t.Errorf("OpenWriteFolder of a symbolic link: %v, want ErrSymlink", err)
	}
	if _, err := r.OpenWriteFolder(".foundry/memory.old/a.md"); !errors.Is(err, confined.ErrNotDir) {
		t.Errorf("OpenWriteFolder of a file: %v, want ErrNotDir", err)
	}
}
