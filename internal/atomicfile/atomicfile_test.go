package atomicfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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

// TestRewriteKeepsMode rewrites a file whose owner set its mode: the mode
// stays; with no file there the new one gets perm; a link is not written
// through, and its target keeps its content.
func TestRewriteKeepsMode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		setup    func(t *testing.T, p string)
		wantMode os.FileMode
		wantErr  error
	}{
		{"owner's mode", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}, 0o600, nil},
		{"no file", func(*testing.T, string) {}, 0o644, nil},
		{"a link", func(t *testing.T, p string) {
			target := filepath.Join(filepath.Dir(p), "target")
			if err := os.WriteFile(target, []byte("target"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("target", p); err != nil {
				t.Skipf("symlink: %v", err)
			}
		}, 0, ErrSymlink},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, ".gitattributes")
			tt.setup(t, p)
			err := Rewrite(p, []byte("new\n"), 0o644)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Rewrite = %v, want %v", err, tt.wantErr)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, "target")); string(b) != "target" {
					t.Errorf("the link's target holds %q", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != tt.wantMode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.wantMode)
			}
		})
	}
}

// TestRemove removes a file, and a link itself, never its target; a
// missing file is an error naming the path as given.
func TestRemove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Remove: %v", err)
	}
	err := Remove(p)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "remove "+p+":") {
		t.Errorf("Remove(missing) = %v, want not-exist naming %s", err, p)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if err := Remove(link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link after Remove: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target: %v", err)
	}
}
