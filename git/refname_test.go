package git

import (
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
