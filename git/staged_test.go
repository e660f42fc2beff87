package git_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// TestStagedChangesThreeWays checks the three ways StagedChanges answers —
// the index file pruned by its cache-tree, git diff-index, and go-git's
// decoder with a walk of HEAD's whole tree — against the expected changes,
// on indexes git wrote in every state a pre-commit hook can meet.
func TestStagedChangesThreeWays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(r *gittest.Repo)
		dir   string
		want  []git.Change
	}{
		{
			name: "one deep change under a primed cache-tree",
			setup: func(r *gittest.Repo) {
				for _, w := range []string{"w1", "w2", "w3"} {
					for _, a := range []string{"a", "b", "c"} {
						r.Write("p/bb/"+w+"/"+a+".json", w+a)
					}
				}
				r.Write("p/other/x.json", "x")
				r.CommitAll("base")
				r.Git("read-tree", "HEAD") // every folder valid in the cache-tree
				r.Write("p/bb/w2/b.json", "changed")
				r.Git("add", "p/bb/w2/b.json")
			},
			dir:  "p/bb",
			want: []git.Change{{Path: "w2/b.json", Kind: git.Modified}},
		},
		{
			name: "a folder invalidated with the same content",
			setup: func(r *gittest.Repo) {
				r.Write("bb/w/a.json", "a")
				r.Write("bb/w/b.json", "b")
				r.CommitAll("base")
				r.Git("update-index", "--force-remove", "bb/w/a.json")
				r.Git("add", "bb/w/a.json")
			},
			dir: "bb",
		},
		{
			name: "HEAD moved under a valid cache-tree",
			setup: func(r *gittest.Repo) {
				r.Write("bb/w/a.json", "a")
				r.CommitAll("one")
				r.Write("bb/w/a.json", "a2")
				r.Write("bb/v/n.json", "n")
				r.CommitAll("two")
				r.Git("reset", "-q", "--soft", "HEAD~1")
			},
			dir:  "bb",
			want: []git.Change{{Path: "v/n.json", Kind: git.Added}, {Path: "w/a.json", Kind: git.Modified}},
		},
		{
			name: "intent to add",
			setup: func(r *gittest.Repo) {
				r.Write("bb/a.json", "a")
				r.CommitAll("base")
				r.Write("bb/new.json", "n")
				r.Git("add", "-N", "bb/new.json")
				// Back in the index without content: not committed, so
				// deleted from HEAD's point of view.
				r.Git("rm", "-q", "--cached", "bb/a.json")
				r.Git("add", "-N", "bb/a.json")
			},
			// git commit leaves paths added with -N out of the tree.
			dir:  "bb",
			want: []git.Change{{Path: "a.json", Kind: git.Deleted}},
		},
		{
			name: "conflicts",
			setup: func(r *gittest.Repo) {
				r.Write("d/a", "base\n")
				r.Write("d/gone", "base\n")
				r.CommitAll("base")
				r.Git("checkout", "-q", "-b", "other")
				r.Write("d/a", "other\n")
				r.Write("d/both", "other\n")
				r.Write("d/gone", "changed by other\n")
				r.CommitAll("other")
				r.Git("checkout", "-q", "main")
				r.Write("d/a", "main\n")
				r.Write("d/both", "main\n")
				r.Remove("d/gone")
				r.CommitAll("main")
				if _, err := r.TryGit("merge", "-q", "other"); err == nil {
					r.Git("status") // unreachable: fail loudly below
				}
			},
			dir: "d",
			want: []git.Change{
				{Path: "a", Kind: git.Modified},
				{Path: "both", Kind: git.Modified},
				{Path: "gone", Kind: git.Modified}, // deleted by us, modified by them
			},
		},
		{
			name: "a file becomes a folder and a folder a file",
			setup: func(r *gittest.Repo) {
				r.Write("bb/x", "file")
				r.Write("bb/y/in.json", "in")
				r.Write("bb/y/z/deep.json", "deep")
				r.CommitAll("base")
				r.Git("rm", "-q", "--cached", "bb/x", "bb/y/in.json", "bb/y/z/deep.json")
				r.Remove("bb/x")
				if err := os.RemoveAll(filepath.Join(r.Dir, "bb", "y")); err != nil {
					t.Fatal(err)
				}
				r.Write("bb/x/now.json", "dir")
				r.Write("bb/y", "file now")
				r.Git("add", "bb")
			},
			dir: "bb",
			want: []git.Change{
				{Path: "x", Kind: git.Deleted},
				{Path: "x/now.json", Kind: git.Added},
				{Path: "y", Kind: git.Added},
				{Path: "y/in.json", Kind: git.Deleted},
				{Path: "y/z/deep.json", Kind: git.Deleted},
			},
		},
		{
			name: "submodules, mode changes and files outside are left out",
			setup: func(r *gittest.Repo) {
				r.Write("bb/run.sh", "x")
				r.Write("bbx/out.json", "o")
				r.CommitAll("base")
				r.Git("update-index", "--add", "--cacheinfo", "160000,"+r.Git("rev-parse", "HEAD")+",bb/sub")
				r.Git("update-index", "--chmod=+x", "bb/run.sh")
				r.Write("bbx/out.json", "changed")
				r.Git("add", "bbx/out.json")
			},
			dir: "bb",
		},
		{
			name: "unborn HEAD",
			setup: func(r *gittest.Repo) {
				r.Write("bb/w/a.json", "a")
				r.Write("bb/b.json", "b")
				r.Write("top.json", "t")
				r.Git("add", "-A")
			},
			dir:  "bb",
			want: []git.Change{{Path: "b.json", Kind: git.Added}, {Path: "w/a.json", Kind: git.Added}},
		},
		{
			name: "the whole repository",
			setup: func(r *gittest.Repo) {
				r.Write("a/1.json", "1")
				r.Write("b/2.json", "2")
				r.Write("c.json", "3")
				r.CommitAll("base")
				r.Write("b/2.json", "two")
				r.Git("add", "b/2.json")
				r.Git("rm", "-q", "c.json")
			},
			want: []git.Change{{Path: "b/2.json", Kind: git.Modified}, {Path: "c.json", Kind: git.Deleted}},
		},
		{
			name: "a folder that exists nowhere",
			setup: func(r *gittest.Repo) {
				r.Write("a/1.json", "1")
				r.CommitAll("base")
			},
			dir: "no/such",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			tc.setup(r)
			if strings.Contains(tc.name, "conflict") && !strings.Contains(r.Git("status", "--porcelain"), "UU ") {
				t.Fatal("the setup left no conflict")
			}
			ways := map[string]func(*git.Repo){
				"index file":    func(*git.Repo) {},
				"git binary":    git.WithGitBinary,
				"go-git's walk": git.WithoutGitBinary,
			}
			for way, pin := range ways {
				repo, err := git.Open(r.Dir)
				if err != nil {
					t.Fatal(err)
				}
				pin(repo)
				got, err := repo.StagedChanges(tc.dir)
				if err != nil {
					t.Fatalf("%s: %v", way, err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", way, diff)
				}
			}
		})
	}
}
