package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/foundryhq/foundry/git/gittest"
)

// refNameRepo is a repository with branches, tags (light and annotated),
// remote-tracking refs and a symbolic origin/HEAD, and the names and
// hashes a revision spec may name in it.
func refNameRepo(t testing.TB) (dir string, names []string) {
	r := gittest.New(t)
	r.Write("a.json", "{}")
	first := r.CommitAll("first")
	r.Write("b.json", "{}")
	second := r.CommitAll("second")
	r.Git("branch", "feature/x", first)
	r.Git("tag", "v1", first)
	r.Git("tag", "-a", "-m", "annotated", "v2", second)
	r.Git("update-ref", "refs/remotes/origin/main", first)
	r.Git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	r.Git("update-ref", "refs/weird{ref}", second)
	tree := strings.TrimSpace(r.Git("rev-parse", "HEAD^{tree}"))
	tag := strings.TrimSpace(r.Git("rev-parse", "v2"))
	names = []string{
		"HEAD", "@", "main", "master", "heads/master", "refs/heads/master", "feature/x", "v1", "v2",
		"tags/v2", "origin", "origin/main", "remotes/origin/main", "weird{ref}", "nothing",
		first, second, first[:7], first[:4], first[:5], strings.ToUpper(first[:6]), strings.ToUpper(first[:7]),
		strings.ToUpper(first), tree, tree[:7], tag, tag[:8], first[:1], second[:3],
		"", "-", "ma..in", "feature//x", "feature/.x", "feature/x/", "feature/x.", ".main", "/main",
		"main.lock", "feature.lock/x", "ma in", "ma\tin", "ma*", "ma?", "ma[", `ma\in`, "ma\x00in",
		"master\x00", "\x00master", "mas\x00/ter", "@master", "master@", "@@", "@\x00x", "a{b", "a}b",
		"a!b", "\xffmaster", "mast\xffer", "日本", "master\u00a0", "v1-rc", "a-b/c_d", "1234",
	}
	return r.Dir, names
}

// checkResolveRefOrHash compares resolveRefOrHash with go-git's
// Repository.ResolveRevision, which Foundry used before: the same commit,
// or an error from both.
func checkResolveRefOrHash(t *testing.T, ours *Repo, theirs *gogit.Repository, name string) {
	t.Helper()
	if strings.ContainsAny(name, "~^:") || strings.Contains(name, "@{") {
		return // not a name: parseRev splits these off
	}
	want, wantErr := theirs.ResolveRevision(plumbing.Revision(name))
	ours.mu.Lock()
	got, gotErr := ours.resolveRefOrHash(name)
	ours.mu.Unlock()
	wantOK := wantErr == nil && want != nil && !want.IsZero()
	gotOK := gotErr == nil && got != nil && !got.IsZero()
	if wantOK != gotOK || wantOK && *want != *got {
		t.Errorf("resolve %q: got %v, %v; go-git %v, %v", name, got, gotErr, want, wantErr)
	}
}

// TestResolveRefOrHashMatchesGoGit checks that the names of revision specs
// resolve as go-git's root package resolved them: refs by git's rules,
// abbreviated and full hashes, tags peeled, and every name git's ref rules
// refuse.
func TestResolveRefOrHashMatchesGoGit(t *testing.T) {
	t.Parallel()
	dir, names := refNameRepo(t)
	ours, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	theirs, err := gogit.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	resolved := 0
	for _, name := range names {
		checkResolveRefOrHash(t, ours, theirs, name)
		if h, err := theirs.ResolveRevision(plumbing.Revision(name)); err == nil && !h.IsZero() {
			resolved++
		}
	}
	if resolved < 20 {
		t.Errorf("only %d of the %d names resolve: the comparison tests little", resolved, len(names))
	}
}

// FuzzResolveRefOrHash compares resolveRefOrHash with go-git's revision
// resolution on arbitrary names.
func FuzzResolveRefOrHash(f *testing.F) {
	dir, names := refNameRepo(f)
	for _, n := range names {
		f.Add(n)
	}
	ours, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ours.Close() })
	theirs, err := gogit.PlainOpen(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string) {
		checkResolveRefOrHash(t, ours, theirs, name)
	})
}

// TestParseRefNameLimit checks that a name longer than go-git's scanner
// reads is cut where go-git cuts it.
func TestParseRefNameLimit(t *testing.T) {
	long := strings.Repeat("a", maxRevisionBytes)
	for _, tt := range []struct {
		name, want string
		ok         bool
	}{
		{long, long, true},
		{long + "@x", long, true},
		{long + ".lock", long, true},
		{long[1:] + "/", "", false},
	} {
		got, ok := parseRefName(tt.name)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseRefName(%d bytes) = %d bytes, %v; want %d bytes, %v", len(tt.name), len(got), ok, len(tt.want), tt.ok)
		}
	}
}

// TestOpenMatchesGoGit opens damaged and unusual layouts with Open and with
// go-git's PlainOpenWithOptions, which Foundry used before: both open the
// repository, or both refuse it, and a missing repository is
// ErrNotRepository exactly where go-git said ErrRepositoryNotExists.
func TestOpenMatchesGoGit(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, r *gittest.Repo) string // the folder to open
	}{
		{"repository", func(t *testing.T, r *gittest.Repo) string { return r.Dir }},
		{"sub-folder", func(t *testing.T, r *gittest.Repo) string {
			dir := filepath.Join(r.Dir, "a", "b")
			write(t, filepath.Join(dir, "x"), "")
			return dir
		}},
		{"missing sub-folder", func(t *testing.T, r *gittest.Repo) string { return filepath.Join(r.Dir, "nope", "deeper") }},
		{"a file", func(t *testing.T, r *gittest.Repo) string {
			write(t, filepath.Join(r.Dir, "f.txt"), "")
			return filepath.Join(r.Dir, "f.txt")
		}},
		{"no HEAD", func(t *testing.T, r *gittest.Repo) string {
			if err := os.Remove(filepath.Join(r.Dir, ".git", "HEAD")); err != nil {
				t.Fatal(err)
			}
			return r.Dir
		}},
		{"unknown format version", func(t *testing.T, r *gittest.Repo) string {
			r.Git("config", "core.repositoryformatversion", "2")
			return r.Dir
		}},
		{"unknown extension, version 0", func(t *testing.T, r *gittest.Repo) string {
			r.Git("config", "extensions.frobnicate", "x")
			return r.Dir
		}},
		{"linked worktree", func(t *testing.T, r *gittest.Repo) string {
			wt := filepath.Join(t.TempDir(), "wt")
			r.Git("worktree", "add", "-q", "-b", "other", wt)
			return wt
		}},
		{"linked worktree, common folder gone", func(t *testing.T, r *gittest.Repo) string {
			wt := filepath.Join(t.TempDir(), "wt")
			r.Git("worktree", "add", "-q", "-b", "other", wt)
			write(t, filepath.Join(r.Dir, ".git", "worktrees", "wt", "commondir"), "../../../gone\n")
			return wt
		}},
		{".git file to a missing folder", func(t *testing.T, r *gittest.Repo) string {
			dir := t.TempDir()
			write(t, filepath.Join(dir, ".git"), "gitdir: "+filepath.Join(dir, "missing")+"\n")
			return dir
		}},
		{".git file, relative", func(t *testing.T, r *gittest.Repo) string {
			dir := filepath.Join(t.TempDir(), "w")
			if err := os.Rename(filepath.Join(r.Dir, ".git"), filepath.Join(filepath.Dir(dir), "store")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, ".git"), "gitdir: ../store\n")
			return dir
		}},
		{".git file without its prefix", func(t *testing.T, r *gittest.Repo) string {
			dir := t.TempDir()
			write(t, filepath.Join(dir, ".git"), "gitdir:"+filepath.Join(r.Dir, ".git")+"\n")
			return dir
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write("a.json", "{}")
			r.CommitAll("one")
			dir := tt.setup(t, r)
			_, theirErr := gogit.PlainOpenWithOptions(dir, &gogit.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
			ours, err := Open(dir)
			if err == nil {
				defer ours.Close()
			}
			switch {
			case (err == nil) != (theirErr == nil):
				t.Errorf("Open: %v; go-git: %v", err, theirErr)
			case errors.Is(err, ErrNotRepository) != errors.Is(theirErr, gogit.ErrRepositoryNotExists):
				t.Errorf("Open: %v; go-git: %v (ErrNotRepository where go-git says ErrRepositoryNotExists)", err, theirErr)
			}
		})
	}
}
