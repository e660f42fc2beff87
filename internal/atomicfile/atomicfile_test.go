package atomicfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	t.Parallel()
	if err := WriteFile(filepath.Join(t.TempDir(), "no", "a"), nil, 0o644); err == nil {
		t.Fatal("want error for a missing folder")
	}
}

func TestLockExclusive(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), ".lock")
	unlock, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lock(ctx, p); err == nil {
		t.Fatal("second lock acquired while the first is held")
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock2, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	_ = unlock2()
}
