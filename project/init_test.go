package project_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/project"
)

// TestInitRefusesLinks: init writes nothing through a symbolic link out of
// the project — .foundry itself, one of its folders, or a file it would
// rewrite — and its error names the link.
func TestInitRefusesLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		link   string // project-relative
		target string // relative to the outside folder; "" is the folder itself
		want   string // in the error
	}{
		{"foundry folder", ".foundry", "", "refuse to write through .foundry: is a symbolic link"},
		{"memory folder", ".foundry/memory", "", "refuse to write through .foundry/memory: is a symbolic link"},
		{"blackboard folder", ".foundry/blackboard", "", "refuse to write through .foundry/blackboard: is a symbolic link"},
		// A file that exists is left alone, a link too (it is never
		// followed), except the config, which init would rewrite.
		{"gitignore", ".foundry/.gitignore", "new-file", ""},
		{"dangling config", ".foundry/config.yaml", "new-file", "add the mcp opt-in to .foundry/config.yaml: not a regular file"},
		{"config", ".foundry/config.yaml", "config.yaml", "add the mcp opt-in to .foundry/config.yaml: not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			outside, dir := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "config.yaml"), []byte("memoryRetrieval:\n  maxFacts: 3\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tt.link, "/") {
				if err := os.Mkdir(filepath.Join(dir, ".foundry"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(filepath.Join(outside, tt.target), filepath.Join(dir, filepath.FromSlash(tt.link))); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			before := listDir(t, outside)
			_, err := project.Init(context.Background(), dir, project.InitOptions{})
			if tt.want == "" && err != nil {
				t.Errorf("Init error = %v", err)
			}
			if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Init error = %v, want one with %q", err, tt.want)
			}
			if tt.target == "" && !errors.Is(err, confined.ErrSymlink) {
				t.Errorf("Init error = %v, want ErrSymlink", err)
			}
			if after := listDir(t, outside); after != before {
				t.Errorf("the outside folder changed:\nbefore: %s\nafter:  %s", before, after)
			}
		})
	}
}

// listDir renders the names and contents of the files in dir.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + "=" + string(data) + ";")
	}
	return b.String()
}

// TestInitAgainTakesNoLock: init of a project that has everything, its
// config's mcp block included, changes nothing and so takes no lock: with
// the config's lock held elsewhere (or a read-only file system, where the
// lock cannot be made) it answers at once that nothing changed, where it
// waited for the lock, or failed on it.
func TestInitAgainTakesNoLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := project.Init(context.Background(), dir, project.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	files, err := confined.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	unlock, err := files.Lock(context.Background(), config.LockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unlock() }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a wait for the lock gives up at once
	res, err := project.Init(ctx, dir, project.InitOptions{})
	if err != nil || len(res.Created) != 0 || res.OptIn != "" {
		t.Errorf("init again with the lock held: %+v, %v; want nothing changed", res, err)
	}
}
