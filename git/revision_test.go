package git_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// revisionFixture builds a repository whose reflogs, branches, tags and
// upstreams exercise every revision syntax Foundry reads: a merge, branch
// switches (one from a detached HEAD), an upstream on a remote, one on a
// local branch, and a remote with its own fetch refspec.
func revisionFixture(t testing.TB) *gittest.Repo {
	t.Helper()
	origin := gittest.New(t)
	origin.Git("config", "receive.denyCurrentBranch", "ignore")
	r := gittest.New(t)
	r.Write("f", "1")
	r.CommitAll("first")
	r.Git("tag", "v1.0")
	r.Git("tag", "-a", "-m", "annotated", "v1.1")
	r.Git("checkout", "-q", "-b", "side")
	r.Write("f", "side")
	r.CommitAll("side work")
	r.Write("f", "side 2")
	r.CommitAll("side work 2")
	r.Git("checkout", "-q", "main")
	r.Write("g", "2")
	r.CommitAll("second")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	r.Git("remote", "add", "origin", origin.Dir)
	r.Git("push", "-q", "-u", "origin", "main", "side")
	r.Git("remote", "add", "mirror", origin.Dir)
	r.Git("config", "remote.mirror.fetch", "+refs/heads/*:refs/remotes/elsewhere/*")
	r.Git("fetch", "-q", "mirror")
	r.Git("branch", "--track", "follows-mirror", "elsewhere/side")
	r.Git("branch", "--track", "local-up", "side")
	r.Write("g", "3")
	r.CommitAll("third, not pushed")
	r.Git("checkout", "-q", "--detach", "HEAD~1")
	r.Git("checkout", "-q", "side")
	r.Git("checkout", "-q", "main")
	r.Git("reset", "-q", "--hard", "HEAD~1")
	r.Git("reset", "-q", "--hard", "HEAD@{1}")
	return r
}

// resolvedSpecs are the specs TestResolveMatchesGit compares with git
// rev-parse.
var resolvedSpecs = []string{
	"HEAD", "@", "main", "side", "v1.0", "v1.1", "v1.1^{}", "v1.1^{commit}", "refs/heads/side",
	"HEAD~1", "HEAD~1^2", "HEAD^^", "HEAD~0", "HEAD^0", "@~1", "HEAD~1^2~1", "HEAD~1^{commit}",
	"HEAD@{0}", "HEAD@{1}", "HEAD@{2}", "HEAD@{5}", "@{0}", "@{1}", "@{2}",
	"main@{1}", "main@{3}", "refs/heads/main@{1}", "side@{1}", "side@{2}", "origin/main@{0}",
	"HEAD@{1}~2", "HEAD@{2}^", "main@{1}^2",
	"@{-1}", "@{-2}", "@{-3}", "@{-1}^", "@{-2}~1",
	"@{u}", "@{upstream}", "@{U}", "@{UPSTREAM}", "main@{u}", "side@{u}", "follows-mirror@{u}", "local-up@{u}", "@{u}~1",
}

// TestResolveMatchesGit resolves every spec natively and compares it with
// git rev-parse; then it resolves them again with PATH emptied, so that no
// git binary can answer, and expects the same commits. It sets PATH, so it
// cannot run in parallel.
func TestResolveMatchesGit(t *testing.T) {
	r := revisionFixture(t)
	want := map[string]string{}
	for _, spec := range resolvedSpecs {
		want[spec] = r.Git("rev-parse", "--verify", "--end-of-options", spec+"^{commit}")
	}
	check := func(t *testing.T) {
		repo, err := git.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer repo.Close()
		for _, spec := range resolvedSpecs {
			c, err := repo.Resolve(spec)
			if err != nil {
				t.Errorf("Resolve(%q): %v", spec, err)
				continue
			}
			if c.Hash != want[spec] {
				t.Errorf("Resolve(%q) = %s, git rev-parse says %s", spec, c.Hash, want[spec])
			}
		}
	}
	t.Run("with git on PATH", check)
	t.Setenv("PATH", t.TempDir())
	if p, err := exec.LookPath("git"); err == nil {
		t.Fatalf("git is still found at %s", p)
	}
	t.Run("without git", check)
}

// TestResolveRejects checks the specs Foundry does not resolve: syntax it
// does not read is an ErrUnsupportedRevision naming the part (never an
// answer from elsewhere), and a spec that names nothing is
// ErrRevisionNotFound, as git rev-parse fails on it too.
func TestResolveRejects(t *testing.T) {
	t.Parallel()
	r := revisionFixture(t)
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	for _, tt := range []struct {
		spec string
		want error
		part string // what the message must name
		// gitReads: git rev-parse resolves the spec (it reads an
		// out-of-range @{N} as a date).
		gitReads bool
	}{
		{"HEAD@{yesterday}", git.ErrUnsupportedRevision, "@{yesterday} (a reflog date)", false},
		{"main@{2026-01-01 10:01:30 +0000}", git.ErrUnsupportedRevision, "@{2026-01-01 10:01:30 +0000}", false},
		{"@{push}", git.ErrUnsupportedRevision, "@{push} (a push destination)", false},
		{":/side work", git.ErrUnsupportedRevision, ":/side work (a path or message search after ':')", false},
		{"HEAD:f", git.ErrUnsupportedRevision, ":f", false},
		{"HEAD^{/fix}", git.ErrUnsupportedRevision, "^{/fix} (a commit message search)", false},
		{"HEAD^{tree}", git.ErrUnsupportedRevision, "^{tree}", false},
		{"HEAD@{1}@{1}", git.ErrUnsupportedRevision, "@{1} (a second @{…})", false},
		{"nope", git.ErrRevisionNotFound, "", false},
		{"", git.ErrRevisionNotFound, "", false},
		{"-x", git.ErrRevisionNotFound, "", false},
		{"HEAD~99", git.ErrRevisionNotFound, "", false},
		{"HEAD^3", git.ErrRevisionNotFound, "has 1 parent", false},
		{"HEAD~1^3", git.ErrRevisionNotFound, "has 2 parents", false},
		{"HEAD@{99}", git.ErrRevisionNotFound, "the reflog of HEAD has 13 entries", false},
		{"@{-99}", git.ErrRevisionNotFound, "records 5 branch switches", false},
		{"@{-0}", git.ErrRevisionNotFound, "", false},
		{"nope@{1}", git.ErrRevisionNotFound, "no reflog", false},
		{"v1.0@{u}", git.ErrRevisionNotFound, "", false},
		{"HEAD~99999999999999999999", git.ErrRevisionNotFound, "out of range", false},
		{"HEAD@{99999999999999999999}", git.ErrRevisionNotFound, "out of range", true},
		{"HEAD@{1", git.ErrRevisionNotFound, "unterminated", false},
	} {
		_, err := repo.Resolve(tt.spec)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.part) {
			t.Errorf("Resolve(%q) = %v; want %v naming %q", tt.spec, err, tt.want, tt.part)
		}
		if strings.Contains(err.Error(), " 1 parents") {
			t.Errorf("Resolve(%q) = %v; want one parent in the singular", tt.spec, err)
		}
		if _, gerr := r.TryGit("rev-parse", "--verify", "-q", "--end-of-options", tt.spec); tt.want == git.ErrRevisionNotFound && !tt.gitReads && gerr == nil {
			t.Errorf("git rev-parse resolves %q, Foundry does not", tt.spec)
		}
	}
}

// FuzzResolve resolves arbitrary specs: none may panic, and every failure
// is one of the package's sentinels.
func FuzzResolve(f *testing.F) {
	r := revisionFixture(f)
	repo, err := git.Open(r.Dir)
	if err != nil {
		f.Fatal(err)
	}
	defer repo.Close()
	for _, spec := range resolvedSpecs {
		f.Add(spec)
	}
	for _, spec := range []string{"HEAD@{yesterday}", ":/x", "HEAD^{/x}", "../../config@{0}", "@{-1}@{1}", "HEAD@{1", "^{", "~", "@{}"} {
		f.Add(spec)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		_, err := repo.Resolve(spec)
		if err != nil && !errors.Is(err, git.ErrRevisionNotFound) && !errors.Is(err, git.ErrUnsupportedRevision) && !errors.Is(err, git.ErrNoCommits) {
			t.Fatalf("Resolve(%q): %v wraps no sentinel", spec, err)
		}
	})
}

// TestResolveInLinkedWorktree checks that a linked worktree reads its own
// HEAD reflog (logs/HEAD in its git folder) and the branches' reflogs of
// the common folder, as git does.
func TestResolveInLinkedWorktree(t *testing.T) {
	t.Parallel()
	r := revisionFixture(t)
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "-b", "wtb", wt, "side")
	r.Git("-C", wt, "checkout", "-q", "-b", "wtx")
	if err := os.WriteFile(filepath.Join(wt, "h"), []byte("wt"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("-C", wt, "add", "h")
	r.Git("-C", wt, "commit", "-q", "-m", "in the worktree")
	r.Git("-C", wt, "checkout", "-q", "wtb")
	repo, err := git.Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	for _, spec := range []string{"HEAD@{0}", "HEAD@{1}", "HEAD@{2}", "@{-1}", "@{-2}", "@{0}", "wtx@{1}", "main@{1}", "side@{1}"} {
		want := r.Git("-C", wt, "rev-parse", "--verify", "--end-of-options", spec+"^{commit}")
		c, err := repo.Resolve(spec)
		if err != nil || c.Hash != want {
			t.Errorf("Resolve(%q) in the worktree = %s, %v; git rev-parse says %s", spec, c.Hash, err, want)
		}
	}
	// wtb has one entry, so @{1} names nothing, for git too.
	if _, err := repo.Resolve("@{1}"); !errors.Is(err, git.ErrRevisionNotFound) || !strings.Contains(err.Error(), "the reflog of refs/heads/wtb has 1 entry") {
		t.Errorf("Resolve(@{1}) in the worktree = %v, want ErrRevisionNotFound saying the reflog of refs/heads/wtb has 1 entry", err)
	}
}
