package git_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

	// The go-git path reads the same index.
	plain, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	git.WithoutGitBinary(plain)
	if got, err := plain.StagedChanges("p"); err != nil || !cmp.Equal(got, []git.Change{{Path: "a.json", Kind: git.Modified}}) {
		t.Errorf("StagedChanges without the git binary, with GIT_INDEX_FILE = %v, %v", got, err)
	}

	// Without the variable, the repository's own index: nothing staged.
	if err := os.Unsetenv("GIT_INDEX_FILE"); err != nil { // t.Setenv restores it after the test
		t.Fatal(err)
	}
	for _, rp := range []*git.Repo{repo, plain} {
		got, err = rp.StagedChanges("p")
		if err != nil || len(got) != 0 {
			t.Errorf("StagedChanges without GIT_INDEX_FILE = %v, %v; want none", got, err)
		}
	}
}

// TestStagedChangesBothWays checks that the git binary and the go-git walk
// report the same changes: adds, modifications, deletions, renames, a mode
// change (not a change of content), files outside the folder, names that need quoting, an unborn HEAD.
func TestStagedChangesBothWays(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	both := func(dir string) ([]git.Change, []git.Change) {
		t.Helper()
		fast, err := git.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := git.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		git.WithoutGitBinary(slow)
		a, err := fast.StagedChanges(dir)
		if err != nil {
			t.Fatal(err)
		}
		b, err := slow.StagedChanges(dir)
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
	r.Write("p/bb/w/new one.json", "{}")
	r.Write("p/bb/w/é*?.json", "{}")
	r.Git("add", "-A")
	fast, slow := both("p/bb")
	want := []git.Change{{Path: "w/new one.json", Kind: git.Added}, {Path: "w/é*?.json", Kind: git.Added}}
	if diff := cmp.Diff(want, fast); diff != "" {
		t.Errorf("unborn HEAD, git binary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fast, slow); diff != "" {
		t.Errorf("unborn HEAD, git binary vs go-git (-binary +go-git):\n%s", diff)
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
		t.Errorf("git binary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fast, slow); diff != "" {
		t.Errorf("git binary vs go-git (-binary +go-git):\n%s", diff)
	}
	if fast, slow = both(""); !cmp.Equal(fast, slow) || len(fast) != 6 {
		t.Errorf("whole repository: binary %v, go-git %v", fast, slow)
	}
}

// TestIndexOnlyGitReads checks indexes neither the fast reader nor go-git's
// decoder reads: a split index (its entries mostly in a shared file) and a
// sparse index (whole folders as one entry). git ls-files lists them.
func TestIndexOnlyGitReads(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(r *gittest.Repo)
	}{
		{"split index", func(r *gittest.Repo) {
			r.Git("config", "core.splitIndex", "true")
			r.Git("update-index", "--split-index")
		}},
		{"sparse index", func(r *gittest.Repo) {
			if _, err := r.TryGit("sparse-checkout", "set", "--cone", "--sparse-index", "p"); err != nil {
				testenv.Missing(t, "git with sparse-index support", err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write("p/bb/a.json", "1")
			r.Write("p/bb/old.json", "old")
			r.Write("q/deep/x", "x")
			r.CommitAll("base")
			tt.setup(r)
			r.Write("p/bb/a.json", "2")
			r.Write("p/bb/b.json", "new")
			r.Git("add", "p/bb/a.json", "p/bb/b.json")
			r.Git("rm", "-q", "p/bb/old.json")
			repo, err := git.Open(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			x, err := repo.ReadIndex()
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.StagedChanges("p")
			if err != nil {
				t.Fatal(err)
			}
			want := []git.Change{{Path: "bb/a.json", Kind: git.Modified}, {Path: "bb/b.json", Kind: git.Added}, {Path: "bb/old.json", Kind: git.Deleted}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("StagedChanges (-want +got):\n%s", diff)
			}
			for name, want := range map[string]string{"p/bb/a.json": "2", "p/bb/b.json": "new", "q/deep/x": "x"} {
				if b, err := fs.ReadFile(x.FS(""), name); err != nil || string(b) != want {
					t.Errorf("%s in the index = %q, %v; want %q", name, b, err, want)
				}
			}
			if _, err := fs.Stat(x.FS(""), "p/bb/old.json"); err == nil {
				t.Errorf("p/bb/old.json is still in the index view")
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
