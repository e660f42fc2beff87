package git_test

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// TestIndexFileEnv checks that the index views read the index that
// GIT_INDEX_FILE names, as a pre-commit hook must during `git commit -a`,
// when git stages into a temporary index. It sets the environment, so it
// cannot run in parallel.
func TestIndexFileEnv(t *testing.T) {
	r := gittest.New(t)
	r.Write("p/a.json", "1")
	r.CommitAll("base")
	r.Write("p/a.json", "2")
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}

	// Stage the change into a second index only; git runs with the
	// variable too.
	t.Setenv("GIT_INDEX_FILE", filepath.Join(r.Dir, ".git", "index.alt"))
	r.Git("read-tree", "HEAD")
	r.Git("add", "p/a.json")

	got, err := repo.StagedChanges("p")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]git.Change{{Path: "a.json", Kind: git.Modified}}, got); diff != "" {
		t.Errorf("StagedChanges with GIT_INDEX_FILE (-want +got):\n%s", diff)
	}
	fsys, err := repo.IndexFS("p")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(fsys, "a.json"); err != nil || string(b) != "2" {
		t.Errorf("IndexFS with GIT_INDEX_FILE: %q, %v; want the alternate index's content", b, err)
	}

	// Without the variable, the repository's own index: nothing staged.
	t.Setenv("GIT_INDEX_FILE", "")
	got, err = repo.StagedChanges("p")
	if err != nil || len(got) != 0 {
		t.Errorf("StagedChanges without GIT_INDEX_FILE = %v, %v; want none", got, err)
	}
}
