package git_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// threeVersions builds a repository whose file a.txt differs in HEAD~2,
// HEAD, the index and the working tree.
func threeVersions(t *testing.T) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	r.Write("proj/.foundry/a.txt", "v1 at HEAD~2\n")
	r.CommitAll("one")
	r.Write("proj/.foundry/a.txt", "v2\n")
	r.CommitAll("two")
	r.Write("proj/.foundry/a.txt", "v3 at HEAD\n")
	r.CommitAll("three")
	r.Write("proj/.foundry/a.txt", "v4 staged\n")
	r.Git("add", "proj/.foundry/a.txt")
	r.Write("proj/.foundry/a.txt", "v5 on disk\n")
	return r
}

func TestViewsReadDifferentContent(t *testing.T) {
	t.Parallel()
	r := threeVersions(t)
	repo, err := git.Open(filepath.Join(r.Dir, "proj"))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := repo.Rel(filepath.Join(r.Dir, "proj"))
	if err != nil || rel != "proj" {
		t.Fatalf("Rel = %q, %v; want proj", rel, err)
	}
	idx, err := repo.IndexFS(rel)
	if err != nil {
		t.Fatal(err)
	}
	rev2, c2, err := repo.RevFS("HEAD~2", rel)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Subject != "one" {
		t.Errorf("HEAD~2 subject = %q, want one", c2.Subject)
	}
	head, _, err := repo.RevFS("HEAD", rel)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		fsys fs.FS
		want string
	}{
		{"worktree", os.DirFS(filepath.Join(r.Dir, "proj")), "v5 on disk\n"},
		{"index", idx, "v4 staged\n"},
		{"HEAD", head, "v3 at HEAD\n"},
		{"HEAD~2", rev2, "v1 at HEAD~2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fs.ReadFile(tt.fsys, ".foundry/a.txt")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestViewsPassFSTest(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("p/.foundry/memory/fact-0001-x.md", "x")
	r.Write("p/.foundry/blackboard/audit/a.json", "{}")
	r.Write("p/.foundry/blackboard/audit/b.json", "{}")
	r.Write("p/top.txt", "t")
	r.Write("other/z.txt", "z")
	r.CommitAll("c")
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, _, err := repo.RevFS("HEAD", "p")
	if err != nil {
		t.Fatal(err)
	}
	idx, err := repo.IndexFS("p")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".foundry/memory/fact-0001-x.md", ".foundry/blackboard/audit/a.json", ".foundry/blackboard/audit/b.json", "top.txt"}
	for name, fsys := range map[string]fs.FS{"rev": rev, "index": idx} {
		if err := fstest.TestFS(fsys, want...); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := fs.Stat(fsys, "z.txt"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a file outside the project folder is visible: %v", name, err)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("f", "1")
	first := r.CommitAll("first")
	r.Git("tag", "v1.0")
	r.Git("tag", "-a", "-m", "annotated", "v1.1")
	r.Git("checkout", "-q", "-b", "side")
	r.Write("f", "side")
	side := r.CommitAll("side work")
	r.Git("checkout", "-q", "main")
	r.Write("g", "2")
	second := r.CommitAll("second")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rev  string
		want string
	}{
		{"HEAD~1", second},
		{"HEAD^2", side},
		{"v1.0", first},
		{"v1.1", first},
		{"side", side},
		{first[:7], first},
		{"HEAD~2", first},
		{"@{-1}", side},
		{"HEAD@{0}", r.Git("rev-parse", "HEAD")},
		{"HEAD@{1}", second},
		{"main@{1}", second},
		{"v1.1^{}", first},
		{"v1.1^{commit}", first},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			c, err := repo.Resolve(tt.rev)
			if err != nil {
				t.Fatal(err)
			}
			if c.Hash != tt.want {
				t.Errorf("Resolve(%q) = %s, want %s", tt.rev, c.Hash, tt.want)
			}
		})
	}
	for _, bad := range []string{"nope", "HEAD~99", "-x", "", "HEAD@{99}"} {
		if _, err := repo.Resolve(bad); !errors.Is(err, git.ErrRevisionNotFound) {
			t.Errorf("Resolve(%q) error = %v, want ErrRevisionNotFound", bad, err)
		}
	}
}

func TestOpenEdgeCases(t *testing.T) {
	t.Parallel()
	t.Run("outside git", func(t *testing.T) {
		t.Parallel()
		if _, err := git.Open(t.TempDir()); !errors.Is(err, git.ErrNotRepository) {
			t.Fatalf("error = %v, want ErrNotRepository", err)
		}
	})
	t.Run("unborn", func(t *testing.T) {
		t.Parallel()
		r := gittest.New(t)
		repo, err := git.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if repo.HasCommits() {
			t.Error("HasCommits = true in an unborn repository")
		}
		if _, _, err := repo.RevFS("HEAD", ""); !errors.Is(err, git.ErrNoCommits) {
			t.Errorf("RevFS(HEAD) error = %v, want ErrNoCommits", err)
		}
		idx, err := repo.IndexFS("")
		if err != nil {
			t.Fatal(err)
		}
		if es, err := fs.ReadDir(idx, "."); err != nil || len(es) != 0 {
			t.Errorf("empty index lists %v, %v", es, err)
		}
		r.Write("a.json", "{}")
		r.Git("add", "a.json")
		ch, err := repo.StagedChanges("")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]git.Change{{Path: "a.json", Kind: git.Added}}, ch); diff != "" {
			t.Errorf("StagedChanges (-want +got):\n%s", diff)
		}
	})
	t.Run("linked worktree", func(t *testing.T) {
		t.Parallel()
		r := gittest.New(t)
		r.Write("p/.foundry/x", "main")
		r.CommitAll("one")
		wt := filepath.Join(t.TempDir(), "wt")
		r.Git("worktree", "add", "-q", "-b", "feature", wt)
		if err := os.WriteFile(filepath.Join(wt, "p/.foundry/x"), []byte("feature"), 0o644); err != nil {
			t.Fatal(err)
		}
		repo, err := git.Open(filepath.Join(wt, "p"))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := filepath.EvalSymlinks(wt); repo.Root() != got {
			t.Errorf("Root = %s, want %s", repo.Root(), got)
		}
		head, _, err := repo.RevFS("HEAD", "p")
		if err != nil {
			t.Fatal(err)
		}
		if b, err := fs.ReadFile(head, ".foundry/x"); err != nil || string(b) != "main" {
			t.Errorf("HEAD content = %q, %v", b, err)
		}
		idx, err := repo.IndexFS("p")
		if err != nil {
			t.Fatal(err)
		}
		if b, err := fs.ReadFile(idx, ".foundry/x"); err != nil || string(b) != "main" {
			t.Errorf("index content = %q, %v", b, err)
		}
	})
	t.Run("detached HEAD", func(t *testing.T) {
		t.Parallel()
		r := gittest.New(t)
		r.Write("f", "1")
		first := r.CommitAll("one")
		r.Write("f", "2")
		r.CommitAll("two")
		r.Git("checkout", "-q", "--detach", first)
		repo, err := git.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		head, c, err := repo.RevFS("HEAD", "")
		if err != nil || c.Hash != first {
			t.Fatalf("HEAD = %v, %v; want %s", c.Hash, err, first)
		}
		if b, _ := fs.ReadFile(head, "f"); string(b) != "1" {
			t.Errorf("content = %q, want 1", b)
		}
	})
	t.Run("shallow clone", func(t *testing.T) {
		t.Parallel()
		r := gittest.New(t)
		for i := 0; i < 3; i++ {
			r.Write("f", string(rune('a'+i)))
			r.CommitAll("c")
		}
		clone := filepath.Join(t.TempDir(), "clone")
		r.Git("clone", "-q", "--depth", "1", "file://"+r.Dir, clone)
		repo, err := git.Open(clone)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.Resolve("HEAD"); err != nil {
			t.Fatalf("HEAD in shallow clone: %v", err)
		}
		_, err = repo.Resolve("HEAD~2")
		if !errors.Is(err, git.ErrShallow) && !errors.Is(err, git.ErrRevisionNotFound) {
			t.Fatalf("HEAD~2 in a depth-1 clone: error = %v, want ErrShallow", err)
		}
		if err == nil || !errors.Is(err, git.ErrShallow) {
			t.Errorf("error %v does not say the clone is shallow", err)
		}
	})
}

// TestOpenWithRepositoryExtensions checks repositories whose config lists
// extensions go-git refuses although they change nothing for a reader:
// worktreeConfig (git sparse-checkout sets it) and partialClone (a clone
// with --filter). Every view works there; an extension that does change how
// objects are read (objectFormat sha256) is still refused.
func TestOpenWithRepositoryExtensions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		version string
		ext     [][2]string
		wantErr bool
	}{
		{"worktreeConfig", "0", [][2]string{{"worktreeConfig", "true"}}, false},
		{"partialClone", "1", [][2]string{{"partialClone", "origin"}}, false},
		{"both", "1", [][2]string{{"worktreeConfig", "true"}, {"partialclone", "origin"}}, false},
		{"objectFormat sha1", "1", [][2]string{{"objectFormat", "sha1"}}, false},
		{"objectFormat sha256", "1", [][2]string{{"objectFormat", "sha256"}}, true},
		{"unknown", "1", [][2]string{{"worktreeConfig", "true"}, {"frobnicate", "x"}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write("p/.foundry/a", "committed")
			r.CommitAll("one")
			r.Write("p/.foundry/a", "staged")
			r.Git("add", "p/.foundry/a")
			wt := filepath.Join(t.TempDir(), "wt")
			r.Git("worktree", "add", "-q", "-b", "other", wt)
			r.Git("config", "core.repositoryformatversion", tt.version)
			for _, kv := range tt.ext {
				r.Git("config", "extensions."+kv[0], kv[1])
			}
			for _, dir := range []string{filepath.Join(r.Dir, "p"), filepath.Join(wt, "p")} {
				repo, err := git.Open(dir)
				if tt.wantErr {
					if !errors.Is(err, git.ErrUnsupportedFormat) || !strings.Contains(err.Error(), "extensions."+strings.ToLower(tt.ext[len(tt.ext)-1][0])) {
						t.Errorf("Open(%s) error = %v, want ErrUnsupportedFormat naming the extension", dir, err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				head, _, err := repo.RevFS("HEAD", "p")
				if err != nil {
					t.Fatal(err)
				}
				if b, err := fs.ReadFile(head, ".foundry/a"); err != nil || string(b) != "committed" {
					t.Errorf("%s: HEAD content = %q, %v", dir, b, err)
				}
				idx, err := repo.IndexFS("p")
				if err != nil {
					t.Fatal(err)
				}
				want := "staged"
				if dir != filepath.Join(r.Dir, "p") {
					want = "committed"
				}
				if b, err := fs.ReadFile(idx, ".foundry/a"); err != nil || string(b) != want {
					t.Errorf("%s: index content = %q, %v; want %q", dir, b, err, want)
				}
				if err := repo.Close(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestStagedChanges(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("p/.foundry/blackboard/w/keep.json", "{}")
	r.Write("p/.foundry/blackboard/w/mod.json", "{}")
	r.Write("p/.foundry/blackboard/w/del.json", "{}")
	r.Write("p/.foundry/blackboard/w/old.json", `{"renamed": true}`)
	r.Write("p/outside.json", "{}")
	r.CommitAll("base")
	r.Write("p/.foundry/blackboard/w/mod.json", `{"a":1}`)
	r.Write("p/.foundry/blackboard/v/new.json", "{}")
	r.Write("p/.foundry/blackboard/w/unstaged.json", "{}")
	r.Write("p/outside.json", `{"x":1}`)
	r.Git("add", "p/.foundry/blackboard/w/mod.json", "p/.foundry/blackboard/v/new.json", "p/outside.json")
	r.Git("rm", "-q", "p/.foundry/blackboard/w/del.json")
	r.Git("mv", "p/.foundry/blackboard/w/old.json", "p/.foundry/blackboard/w/renamed.json")
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := repo.StagedChanges("p/.foundry/blackboard")
	if err != nil {
		t.Fatal(err)
	}
	want := []git.Change{
		{Path: "v/new.json", Kind: git.Added},
		{Path: "w/del.json", Kind: git.Deleted},
		{Path: "w/mod.json", Kind: git.Modified},
		{Path: "w/old.json", Kind: git.Deleted},
		{Path: "w/renamed.json", Kind: git.Added},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StagedChanges (-want +got):\n%s", diff)
	}
}

// TestMerging: a merge stopped for a conflict is seen in the working tree
// it runs in, a linked worktree's own included, and nowhere else; its
// commit ends it.
func TestMerging(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a.txt", "base\n")
	r.CommitAll("base")
	r.Git("branch", "side")
	r.Write("a.txt", "main\n")
	r.CommitAll("main")
	linked := filepath.Join(t.TempDir(), "linked")
	r.Git("worktree", "add", "-q", "-b", "other", linked, "side")
	if err := os.WriteFile(filepath.Join(linked, "a.txt"), []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("-C", linked, "commit", "-q", "-am", "other")
	if _, err := r.TryGit("-C", linked, "merge", "-q", "--no-edit", "main"); err == nil {
		t.Fatal("the merge had no conflict")
	}
	merging := func(dir string) bool {
		t.Helper()
		repo, err := git.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer repo.Close()
		return repo.Merging()
	}
	if !merging(linked) || merging(r.Dir) {
		t.Fatalf("in a merge: linked worktree %v, main worktree %v; want true, false", merging(linked), merging(r.Dir))
	}
	if err := os.WriteFile(filepath.Join(linked, "a.txt"), []byte("both\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("-C", linked, "commit", "-q", "-am", "merged")
	if merging(linked) {
		t.Fatal("still merging after the merge commit")
	}
}

// TestOpenWithGitDir: as in git, GIT_DIR names the git folder, and
// GIT_WORK_TREE, else core.worktree, else the current folder the working
// tree: a bare repository with a working tree elsewhere (the way some keep
// their home folder in git), and a linked worktree's git folder, which git
// sets in GIT_DIR for the hooks it runs there.
//
//nolint:paralleltest // sets the process's environment and folder
func TestOpenWithGitDir(t *testing.T) {
	r := gittest.New(t)
	r.Write("p/.foundry/a", "main")
	r.CommitAll("one")
	bare := filepath.Join(t.TempDir(), "bare.git")
	r.Git("clone", "-q", "--bare", r.Dir, bare)
	elsewhere := t.TempDir()
	linked := filepath.Join(t.TempDir(), "linked")
	r.Git("worktree", "add", "-q", "-b", "feature", linked)
	if err := os.WriteFile(filepath.Join(linked, "p/.foundry/a"), []byte("feature"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("-C", linked, "commit", "-qam", "two")
	configured := filepath.Join(t.TempDir(), "configured.git")
	r.Git("clone", "-q", "--bare", r.Dir, configured)
	r.Git("--git-dir", configured, "config", "core.worktree", "../tree")
	for _, tt := range []struct {
		name, gitDir, workTree, cwd string
		wantRoot, wantHead          string
	}{
		{"bare, GIT_WORK_TREE", bare, elsewhere, t.TempDir(), elsewhere, "main"},
		{"bare, the current folder", bare, "", elsewhere, elsewhere, "main"},
		{"core.worktree", configured, "", t.TempDir(), filepath.Join(filepath.Dir(configured), "tree"), "main"},
		{"a linked worktree's folder", filepath.Join(r.Dir, ".git", "worktrees", "linked"), "", linked, linked, "feature"},
		{"a linked worktree's .git file", filepath.Join(linked, ".git"), "", linked, linked, "feature"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.MkdirAll(tt.wantRoot, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(tt.cwd)
			t.Setenv("GIT_DIR", tt.gitDir)
			t.Setenv("GIT_WORK_TREE", tt.workTree)
			repo, err := git.Open(tt.wantRoot)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			if want, _ := filepath.EvalSymlinks(tt.wantRoot); repo.Root() != want {
				t.Errorf("Root = %s, want %s", repo.Root(), want)
			}
			head, _, err := repo.RevFS("HEAD", "p")
			if err != nil {
				t.Fatal(err)
			}
			if b, err := fs.ReadFile(head, ".foundry/a"); err != nil || string(b) != tt.wantHead {
				t.Errorf("HEAD content = %q, %v; want %q", b, err, tt.wantHead)
			}
		})
	}
	t.Run("GIT_DIR naming nothing", func(t *testing.T) {
		t.Setenv("GIT_DIR", filepath.Join(t.TempDir(), "gone"))
		if _, err := git.Open(r.Dir); !errors.Is(err, git.ErrNotRepository) {
			t.Errorf("error = %v, want ErrNotRepository", err)
		}
	})
}
