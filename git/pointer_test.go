package git_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestOpenBoundsPointerFiles gives a .git file and a linked worktree's
// commondir, the files that name another git folder, more than the 64 KiB a
// path needs: opening the repository refuses each by its size, where a
// clone's or a tarball's file of any size was read whole.
func TestOpenBoundsPointerFiles(t *testing.T) { // not parallel: a case sets GIT_DIR
	huge := strings.Repeat("x", 70<<10) + "\n"
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, r *gittest.Repo) string // the folder opened
	}{
		{".git file", func(t *testing.T, r *gittest.Repo) string {
			dir := t.TempDir()
			testenv.WriteFile(t, dir, ".git", "gitdir: "+filepath.Join(r.Dir, ".git")+"\n"+huge)
			return dir
		}},
		{"commondir", func(t *testing.T, r *gittest.Repo) string {
			wt := filepath.Join(t.TempDir(), "wt")
			r.Git("worktree", "add", "-q", "-b", "other", wt)
			r.Write(".git/worktrees/wt/commondir", "../..\n"+huge)
			return wt
		}},
		{"GIT_DIR naming a .git file", func(t *testing.T, r *gittest.Repo) string {
			dir := t.TempDir()
			testenv.WriteFile(t, dir, "pointer", "gitdir: "+filepath.Join(r.Dir, ".git")+"\n"+huge)
			t.Setenv("GIT_DIR", filepath.Join(dir, "pointer"))
			return r.Dir
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := gittest.New(t)
			r.Write("a.json", "{}")
			r.CommitAll("one")
			repo, err := git.Open(tt.setup(t, r))
			if err == nil {
				repo.Close()
			}
			if !errors.Is(err, confined.ErrTooLarge) || !strings.Contains(err.Error(), "over the 64 KiB limit") {
				t.Errorf("Open = %v, want a refusal over the 64 KiB limit", err)
			}
		})
	}
}
