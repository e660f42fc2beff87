package git_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/testenv"
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
	if err := os.Unsetenv("GIT_INDEX_FILE"); err != nil { // t.Setenv restores it after the test
		t.Fatal(err)
	}
	got, err = repo.StagedChanges("p")
	if err != nil || len(got) != 0 {
		t.Errorf("StagedChanges without GIT_INDEX_FILE = %v, %v; want none", got, err)
	}
}

// TestStagedChangesLikeGit checks that StagedChanges and git diff-index
// report the same changes: adds, modifications, deletions, renames, a mode
// change (not a change of content), files outside the folder, names that need quoting, an unborn HEAD.
func TestStagedChangesLikeGit(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	both := func(dir string) ([]git.Change, []git.Change) {
		t.Helper()
		repo, err := git.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := repo.StagedChanges(dir)
		if err != nil {
			t.Fatal(err)
		}
		return got, gitStaged(t, r, dir)
	}
	r.Write("p/bb/w/new one.json", "{}")
	r.Write("p/bb/w/é*?.json", "{}")
	r.Git("add", "-A")
	fast, slow := both("p/bb")
	want := []git.Change{{Path: "w/new one.json", Kind: git.Added}, {Path: "w/é*?.json", Kind: git.Added}}
	if diff := cmp.Diff(want, fast); diff != "" {
		t.Errorf("unborn HEAD (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fast, slow); diff != "" {
		t.Errorf("unborn HEAD (-StagedChanges +git diff-index):\n%s", diff)
	}

	r.Write("p/bb/w/mod.json", "{}")
	r.Write("p/bb/w/del.json", "{}")
	r.Write("p/bb/w/old.json", `{"renamed": true}`)
	r.Write("p/bb/w/exec.json", "{}")
	r.Write("p/bbx/outside.json", "{}")
	r.CommitAll("base")
	r.Write("p/bb/w/mod.json", `{"a":1}`)
	r.Write("p/bb/v/new.json", "{}")
	r.Write("p/bbx/outside.json", `{"b":1}`)
	r.Git("add", "-A")
	r.Git("rm", "-q", "p/bb/w/del.json")
	r.Git("mv", "p/bb/w/old.json", "p/bb/w/renamed.json")
	r.Git("update-index", "--chmod=+x", "p/bb/w/exec.json")
	fast, slow = both("p/bb")
	want = []git.Change{
		{Path: "v/new.json", Kind: git.Added},
		{Path: "w/del.json", Kind: git.Deleted},
		{Path: "w/mod.json", Kind: git.Modified},
		{Path: "w/old.json", Kind: git.Deleted},
		{Path: "w/renamed.json", Kind: git.Added},
	}
	if diff := cmp.Diff(want, fast); diff != "" {
		t.Errorf("StagedChanges (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fast, slow); diff != "" {
		t.Errorf("StagedChanges (-StagedChanges +git diff-index):\n%s", diff)
	}
	if fast, slow = both(""); !cmp.Equal(fast, slow) || len(fast) != 6 {
		t.Errorf("whole repository: StagedChanges %v, git diff-index %v", fast, slow)
	}
}

// TestIndexUnsupportedNamed checks the index Foundry does not read, a
// sparse index (whole folders as one entry): every reader of the index
// fails naming what the index is and how to turn it off, with or without a
// git binary on PATH. (A split index is read: TestSplitIndexMatchesGit.)
func TestIndexUnsupportedNamed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(r *gittest.Repo)
		want  string
	}{
		{"sparse index", func(r *gittest.Repo) {
			if _, err := r.TryGit("sparse-checkout", "set", "--cone", "--sparse-index", "p"); err != nil {
				testenv.Missing(t, "git with sparse-index support", err)
			}
		}, "a sparse index (index.sparse); turn it off with git sparse-checkout init --no-sparse-index"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write("p/bb/a.json", "1")
			r.Write("q/deep/x", "x")
			r.CommitAll("base")
			tt.setup(r)
			r.Write("p/bb/b.json", "new")
			r.Git("add", "p/bb/b.json")
			repo, err := git.Open(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err1 := repo.ReadIndex()
			_, err2 := repo.StagedChanges("p")
			_, err3 := repo.IndexFS("")
			for _, err := range []error{err1, err2, err3} {
				if !errors.Is(err, git.ErrIndexUnsupported) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v; want ErrIndexUnsupported naming %q", err, tt.want)
				}
			}
		})
	}
}

// TestIndexViewHidesIntentToAdd checks that a path added with `git add -N`,
// which git does not commit, is not a file of the index view.
func TestIndexViewHidesIntentToAdd(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("p/a.json", "1")
	r.CommitAll("base")
	r.Write("p/new.json", "not staged")
	r.Git("add", "-N", "p/new.json")
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.IndexFS("p")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(fsys, "new.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(new.json) = %v, want ErrNotExist", err)
	}
	es, err := fs.ReadDir(fsys, ".")
	if err != nil || len(es) != 1 || es[0].Name() != "a.json" {
		t.Errorf("ReadDir = %v, %v; want a.json alone", es, err)
	}
}

// TestIndexLinks checks that Index.Links finds every symbolic link the
// index holds under one name, however the index is written, and only
// those: not a folder or a file of that name, not a link of another
// name, not one added with `git add -N`; a conflicted link once.
func TestIndexLinks(t *testing.T) {
	t.Parallel()
	links := func(t *testing.T, r *gittest.Repo, pairs ...string) {
		t.Helper()
		for i := 0; i < len(pairs); i += 2 {
			r.Symlink(pairs[i], pairs[i+1])
		}
	}
	base := func(t *testing.T, r *gittest.Repo) {
		r.Write("meta/a.md", "a\n")
		r.Write("svc/meta/a.md", "a\n")
		r.Write("folder/.foundry/config.yaml", "x: 1\n")
		r.Write("notes/.foundry", "a file\n")
		links(t, r, ".foundry", "meta", "svc/.foundry", "meta", "x/my.foundry", "../meta",
			"x/.foundry.old", "../meta", "x/foundry", "../meta", "y/.foundry/z/.foundry", "../../meta")
		r.CommitAll("links")
	}
	want := []string{".foundry", "svc/.foundry", "y/.foundry/z/.foundry"}
	tests := []struct {
		name  string
		setup func(t *testing.T, r *gittest.Repo)
		want  []string
	}{
		{"none", func(t *testing.T, r *gittest.Repo) {
			r.Write(".foundry/config.yaml", "x: 1\n")
			r.CommitAll("a folder")
		}, nil},
		{"committed", base, want},
		{"staged, and one added with git add -N", func(t *testing.T, r *gittest.Repo) {
			base(t, r)
			links(t, r, "new/.foundry", "../meta", "later/.foundry", "../meta")
			r.Git("add", "new/.foundry")
			r.Git("add", "-N", "later/.foundry")
		}, []string{".foundry", "new/.foundry", "svc/.foundry", "y/.foundry/z/.foundry"}},
		{"index version 4", func(t *testing.T, r *gittest.Repo) {
			base(t, r)
			r.Git("update-index", "--index-version", "4")
		}, want},
		{"split index", func(t *testing.T, r *gittest.Repo) {
			base(t, r)
			r.Git("update-index", "--split-index")
			links(t, r, "new/.foundry", "../meta")
			r.Git("rm", "-q", "--cached", "svc/.foundry")
			r.Git("add", "new/.foundry")
		}, []string{".foundry", "new/.foundry", "y/.foundry/z/.foundry"}},
		{"conflicted", func(t *testing.T, r *gittest.Repo) {
			base(t, r)
			r.Git("checkout", "-q", "-b", "other")
			os.Remove(filepath.Join(r.Dir, ".foundry"))
			links(t, r, ".foundry", "svc/meta")
			r.CommitAll("other")
			r.Git("checkout", "-q", "main")
			os.Remove(filepath.Join(r.Dir, ".foundry"))
			links(t, r, ".foundry", "folder/.foundry")
			r.CommitAll("main")
			if _, err := r.TryGit("merge", "-q", "other"); err == nil {
				t.Fatal("merge succeeded; want a conflict")
			}
		}, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			tt.setup(t, r)
			repo, err := git.Open(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			idx, err := repo.ReadIndex()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, idx.Links(".foundry")); diff != "" {
				t.Errorf("Links(.foundry) (-want +got):\n%s", diff)
			}
		})
	}
}
