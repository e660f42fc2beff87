package blackboard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestArchiveRefusesLinks: archive moves nothing through a symbolic link —
// the wave itself (to a folder outside or inside the project), the archive
// folder or its blackboard folder linked out of the project — and names
// the link; the outside folder is untouched and the wave stays.
func TestArchiveRefusesLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, link, target, want string // target "" is the outside folder
	}{
		{"wave to outside", ".foundry/blackboard/w", "", "archive wave w: refuse to write through .foundry/blackboard/w: is a symbolic link"},
		{"wave to inside", ".foundry/blackboard/w", "real", "archive wave w: refuse to write through .foundry/blackboard/w: is a symbolic link"},
		{"archive folder", ".foundry/archive", "", "archive wave w: refuse to write through .foundry/archive: is a symbolic link"},
		{"archive blackboard folder", ".foundry/archive/blackboard", "", "archive wave w: refuse to write through .foundry/archive/blackboard: is a symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, outside := newProject(t), t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "x.json"), []byte(`{"schema":"finding.v1"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{".foundry/blackboard/real", ".foundry/archive"} {
				if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			wave := filepath.Join(root, ".foundry", "blackboard", "w")
			if tt.link != ".foundry/blackboard/w" {
				if err := os.Mkdir(wave, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(wave, "a.json"), []byte(`{}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(root, filepath.FromSlash(tt.link))
			_ = os.Remove(link)
			target := outside
			if tt.target != "" {
				target = tt.target
			}
			if err := os.Symlink(target, link); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			_, err := openBoard(root, nil).Archive(context.Background(), "w")
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrSymlink) {
				t.Errorf("Archive error = %v, want %q", err, tt.want)
			}
			if es, _ := os.ReadDir(outside); len(es) != 1 {
				t.Errorf("the outside folder holds %d entries, want 1", len(es))
			}
			if _, err := os.Lstat(wave); err != nil {
				t.Errorf("the wave is gone: %v", err)
			}
		})
	}
}

// TestArchiveTakesTheLock: archive waits for the blackboard's lock, which
// every artifact write holds, so no write lands in a wave while it moves.
func TestArchiveTakesTheLock(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	b := openBoard(root, nil)
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	if _, err := b.Write(context.Background(), WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: valid}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(WriteLock))); err != nil {
		t.Fatalf("the write took no lock at %s: %v", WriteLock, err)
	}
	// Another holder of the lock (flock conflicts between two opens of
	// the file, in one process too).
	other, err := confined.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	unlock, err := other.Lock(context.Background(), WriteLock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a lock that cannot be had at once fails with the context
	_, err = b.Archive(ctx, "w")
	if uerr := unlock(); uerr != nil {
		t.Fatal(uerr)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Archive under a held lock: error = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".foundry", "blackboard", "w", "a.json")); err != nil {
		t.Errorf("the wave moved while the lock was held: %v", err)
	}
}

// TestWriteClearsStaleTemps: a write removes the temp files killed writers
// left over an hour ago in its wave's folder and in the contracts lock,
// and keeps younger ones, which a live writer may own.
func TestWriteClearsStaleTemps(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	old, fresh := time.Now().Add(-2*confined.StaleAge), time.Now()
	files := map[string]time.Time{
		".foundry/blackboard/w/" + confined.TempPrefix + "a.json-1":     old,
		".foundry/blackboard/w/" + confined.TempPrefix + "b.json-2":     fresh,
		LockDir + "/" + confined.TempPrefix + "finding.v1-3":            old,
		LockDir + "/" + confined.TempPrefix + "finding.v1-4":            fresh,
		".foundry/blackboard/other/" + confined.TempPrefix + "c.json-5": old,
	}
	for p, mtime := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	if _, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: valid}); err != nil {
		t.Fatal(err)
	}
	for p, mtime := range files {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		// Another wave's folder is that wave's writers' business.
		wantGone := mtime.Equal(old) && !strings.Contains(p, "/other/")
		if gone := os.IsNotExist(err); gone != wantGone {
			t.Errorf("%s: gone = %v, want %v", p, gone, wantGone)
		}
	}
}
