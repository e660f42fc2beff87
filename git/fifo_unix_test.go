//go:build unix

package git_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// TestFIFOsInGitFolderAreNotOpened replaces the files of the git folder
// that Foundry reads itself (a reflog, the index) with FIFOs: opening one
// would block until a writer comes (a hostile repository hung doctor --rev
// HEAD@{1} for good, deaf to SIGTERM), so each is refused by its kind and
// the call returns. Without the check this test blocks until go test's
// timeout.
func TestFIFOsInGitFolderAreNotOpened(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("f", "1")
	r.CommitAll("first")
	r.Write("f", "2")
	r.CommitAll("second")
	fifo := func(rel string) {
		t.Helper()
		p := filepath.Join(r.Dir, ".git", filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	fifo("logs/HEAD")
	fifo("index")
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	// HEAD's reflog is not read; HEAD@{1} falls back to the branch's, as
	// when HEAD has no reflog.
	if c, err := repo.Resolve("HEAD@{1}"); err != nil || c.Hash != r.Git("rev-parse", "HEAD~1") {
		t.Errorf("Resolve(HEAD@{1}) = %v, %v; want the first commit from main's reflog", c, err)
	}
	if _, err := repo.Resolve("@{-1}"); !errors.Is(err, git.ErrRevisionNotFound) {
		t.Errorf("Resolve(@{-1}) = %v, want ErrRevisionNotFound", err)
	}
	if _, err := repo.ReadIndex(); !errors.Is(err, git.ErrNotRegular) {
		t.Errorf("ReadIndex() = %v, want ErrNotRegular", err)
	}
}

// TestFIFOCommonDirIsNotOpened makes a linked worktree's commondir a FIFO:
// opening the repository refuses it by its kind instead of blocking until a
// writer comes (without the check, until go test's timeout).
func TestFIFOCommonDirIsNotOpened(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("f", "1")
	r.CommitAll("first")
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "-b", "other", wt)
	p := filepath.Join(r.Dir, ".git", "worktrees", "wt", "commondir")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	repo, err := git.Open(wt)
	if err == nil {
		repo.Close()
	}
	if !errors.Is(err, git.ErrNotRegular) {
		t.Errorf("Open(worktree) = %v, want ErrNotRegular", err)
	}
}
