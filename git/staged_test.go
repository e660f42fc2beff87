package git_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// TestStagedChangesMatchGit checks StagedChanges (the index file pruned by
// its cache-tree) against the expected changes and against what git
// diff-index reports, on indexes git wrote in every state a pre-commit hook
// can meet.
func TestStagedChangesMatchGit(t *testing.T) {
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
			repo, err := git.Open(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := repo.StagedChanges(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("StagedChanges (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(gitStaged(t, r, tc.dir), got); diff != "" {
				t.Errorf("StagedChanges (-git diff-index +got):\n%s", diff)
			}
		})
	}
}

// gitStaged lists the staged changes under dir as git diff-index reports
// them, the reference StagedChanges is checked against. A mode-only change
// is left out, as StagedChanges leaves it out.
func gitStaged(t *testing.T, r *gittest.Repo, dir string) []git.Change {
	t.Helper()
	base := "HEAD"
	if _, err := r.TryGit("rev-parse", "--verify", "-q", "HEAD"); err != nil {
		base = r.Git("hash-object", "-t", "tree", "/dev/null") // the empty tree
	}
	spec := ":(top)"
	prefix := ""
	if dir != "" {
		spec = ":(top,literal)" + dir
		prefix = dir + "/"
	}
	raw := r.Git("diff-index", "--cached", "-z", "--no-renames", "--ignore-submodules", "--ita-invisible-in-index", base, "--", spec)
	var out []git.Change
	// Each change is ":<mode> <mode> <id> <id> <status>" NUL <path> NUL.
	fields := strings.Split(raw, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 || meta[4] == "" {
			t.Fatalf("git diff-index printed %q", fields[i])
		}
		if meta[2] == meta[3] && meta[4][0] != 'U' {
			continue
		}
		kind := git.Modified // M, T (type change), U (unmerged)
		switch meta[4][0] {
		case 'A':
			kind = git.Added
		case 'D':
			kind = git.Deleted
		}
		out = append(out, git.Change{Path: strings.TrimPrefix(fields[i+1], prefix), Kind: kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
