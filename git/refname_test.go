package git

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gogit "github.com/go-git/go-git/v5"

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

// gitRevParse asks git rev-parse --verify for name^{commit} in dir, as
// Foundry's error hint tells users to: the commit, or ok false when git
// refuses the name. asked is false when git could not be asked at all (a
// name too long for an argument).
func gitRevParse(dir, name string) (commit string, ok, asked bool) {
	cmd := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "--end-of-options", name+"^{commit}")
	cmd.Env = append(os.Environ(), gittest.Env...)
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return "", false, true
	case err != nil:
		return "", false, false
	}
	return strings.TrimSpace(string(out)), true, true
}

// checkResolveName compares resolveName with git rev-parse --verify
// name^{commit}: the same commit, or a refusal from both. A name holding a
// NUL, which no git command can be handed, is asked of git as
// parseRefName reads it.
func checkResolveName(t *testing.T, ours *Repo, dir, name string) (resolved bool) {
	t.Helper()
	if strings.ContainsAny(name, "~^:") || strings.Contains(name, "@{") {
		return false // not a name: parseRev splits these off
	}
	asked := name
	if strings.ContainsRune(name, 0) {
		asked, _ = parseRefName(name) // "" when refused: git refuses it too
	}
	want, wantOK, ok := gitRevParse(dir, asked)
	if !ok {
		return false
	}
	ours.mu.Lock()
	got, err := ours.resolveName(name, name)
	ours.mu.Unlock()
	gotOK := err == nil && !got.IsZero()
	if wantOK != gotOK || wantOK && got.String() != want {
		t.Errorf("resolve %q: got %v, %v; git rev-parse --verify %q: %q", name, got, err, asked+"^{commit}", want)
	}
	if !gotOK && !errors.Is(err, ErrRevisionNotFound) {
		t.Errorf("resolve %q: %v, want ErrRevisionNotFound", name, err)
	}
	return wantOK
}

// TestResolveNameMatchesGit checks that the names of revision specs
// resolve as git rev-parse resolves them: refs by git's rules, abbreviated
// (of at least four digits) and full hashes, tags peeled, and every name
// git's ref rules refuse.
func TestResolveNameMatchesGit(t *testing.T) {
	t.Parallel()
	dir, names := refNameRepo(t)
	ours, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	resolved := 0
	for _, name := range names {
		if checkResolveName(t, ours, dir, name) {
			resolved++
		}
	}
	if resolved < 20 {
		t.Errorf("only %d of the %d names resolve: the comparison tests little", resolved, len(names))
	}
}

// FuzzResolveName compares resolveName with git rev-parse on arbitrary
// names.
func FuzzResolveName(f *testing.F) {
	dir, names := refNameRepo(f)
	for _, n := range names {
		f.Add(n)
	}
	ours, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ours.Close() })
	f.Fuzz(func(t *testing.T, name string) {
		checkResolveName(t, ours, dir, name)
	})
}

// writeObject writes an object of type typ with content into r's object
// store, loose, through git hash-object, and returns its hash.
func writeObject(t testing.TB, r *gittest.Repo, typ, content string) string {
	t.Helper()
	cmd := exec.Command("git", "-C", r.Dir, "hash-object", "-t", typ, "-w", "--stdin")
	cmd.Env = append(os.Environ(), gittest.Env...)
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object -t %s: %v", typ, err)
	}
	return strings.TrimSpace(string(out))
}

// objectWithPrefix writes an object of type typ whose hash begins with
// prefix: its content is content(i) for the first i that gives such a
// hash, found by hashing as git does, so the same objects come every run.
func objectWithPrefix(t testing.TB, r *gittest.Repo, typ, prefix string, content func(i int) string) string {
	t.Helper()
	for i := range 1 << 24 {
		c := content(i)
		sum := sha1.Sum([]byte(fmt.Sprintf("%s %d\x00%s", typ, len(c), c)))
		h := hex.EncodeToString(sum[:])
		if !strings.HasPrefix(h, prefix) {
			continue
		}
		if got := writeObject(t, r, typ, c); got != h {
			t.Fatalf("git hash-object wrote %s, want %s", got, h)
		}
		return h
	}
	t.Fatalf("no %s whose hash begins with %s", typ, prefix)
	return ""
}

// hexNamesRepo builds a repository whose refs are named like hashes and
// whose objects share prefixes (commits, blobs, trees, annotated tags,
// made to order, loose), and returns the specs to resolve in it, each with
// the commit git resolves it to ("" for none), and the objects made to
// order.
func hexNamesRepo(t *testing.T) (r *gittest.Repo, specs []hexSpec, crafted []string) {
	r = gittest.New(t)
	var c []string
	for i := range 20 {
		r.Write("f", fmt.Sprint(i))
		c = append(c, r.CommitAll(fmt.Sprintf("commit %d", i)))
	}
	tree := r.Git("rev-parse", "HEAD^{tree}")
	blob := r.Git("rev-parse", "HEAD:f")
	rawBlob, _ := hex.DecodeString(blob)
	const who = "Foundry Test <test@foundry.invalid> 1767261600 +0000"
	made := func(typ, prefix string, content func(i int) string) string {
		h := objectWithPrefix(t, r, typ, prefix, content)
		crafted = append(crafted, h)
		return h
	}
	commit := func(prefix string) string {
		return made("commit", prefix, func(i int) string {
			return fmt.Sprintf("tree %s\nparent %s\nauthor %s\ncommitter %s\n\ncrafted %s %d.%d\n", tree, c[19], who, who, prefix, len(crafted), i)
		})
	}
	blobWith := func(prefix string) string {
		return made("blob", prefix, func(i int) string { return fmt.Sprintf("blob %s %d.%d\n", prefix, len(crafted), i) })
	}
	treeWith := func(prefix string) string {
		return made("tree", prefix, func(i int) string { return fmt.Sprintf("100644 f%d\x00%s", i, rawBlob) })
	}
	tagWith := func(prefix, target, typ string) string {
		return made("tag", prefix, func(i int) string {
			return fmt.Sprintf("object %s\ntype %s\ntag t%d\ntagger %s\n\ncrafted %s\n", target, typ, i, who, prefix)
		})
	}

	// Refs named like a hash prefix of another commit.
	d := commit("d")
	r.Git("tag", "d", c[0])
	commit("2024")
	r.Git("tag", "2024", c[3])
	feed := commit("feed")
	r.Git("branch", "feed", c[4])
	r.Git("tag", feed[:7], c[8])
	commit("cafe")
	r.Git("branch", "cafe", c[5])
	r.Git("tag", "cafe", c[6]) // refs/tags/ before refs/heads/
	commit("add")
	r.Git("branch", "add", c[7])
	commit("dead")
	r.Git("update-ref", "refs/remotes/dead/HEAD", c[12])
	// A ref to a blob hides the commit its name abbreviates, as in git.
	commit("f00d")
	r.Git("tag", "f00d", blob)
	// Too short to be a hash.
	eight := commit("8ab")
	// Two commits share a prefix: ambiguous, but longer prefixes are not.
	beef1, beef2 := commit("beef"), commit("beef")
	// A commit shares a prefix with a blob, a tree and a tag of a tree: the
	// commit is the only commit-ish.
	c0de := commit("c0de")
	blobWith("c0de")
	treeWith("c0de")
	tagWith("c0de", tree, "tree")
	// A commit shares a prefix with a tag of another commit: two
	// commit-ishes. And one with a tag of itself.
	commit("abba")
	tagWith("abba", c[1], "commit")
	a1a1 := commit("a1a1")
	tagWith("a1a1", a1a1, "commit")
	// Objects that are no commit-ish: alone, or two.
	b10b := blobWith("b10b")
	treeWith("7eee")
	blobWith("0b0b")
	blobWith("0b0b")
	// An annotated tag object named by its hash.
	tag := tagWith("7a9", c[9], "commit")
	// A tag of a tag.
	r.Git("tag", "-a", "-m", "inner", "inner", c[10])
	r.Git("tag", "-a", "-m", "outer", "outer", "inner")
	// A branch named like a full hash no object has, another one digit
	// longer than a hash.
	missing := strings.Repeat("0123456789", 4)
	r.Git("update-ref", "refs/heads/"+missing, c[13])
	r.Git("branch", c[14]+"0", c[15])
	return r, []hexSpec{
		{"d", c[0], ""},
		{"d~0", c[0], ""},
		{d[:7], d, ""},
		{"2024", c[3], ""},
		{"2024~1", c[2], ""},
		{"feed", c[4], ""},
		{"feed^0", c[4], ""},
		{feed[:7], c[8], ""},
		{feed[:8], feed, ""},
		{"cafe", c[6], ""},
		{"add", c[7], ""},
		{"dead", c[12], ""},
		{"f00d", "", "it names a blob, not a commit"},
		{"8", "", ""},
		{"8a", "", ""},
		{"8ab", "", ""},
		{eight[:4], eight, ""},
		{"beef", "", "short object ID beef is ambiguous"},
		{"BEEF", "", "short object ID beef is ambiguous"},
		{"beef~1", "", "short object ID beef is ambiguous"},
		{beef1[:12], beef1, ""},
		{beef2[:12], beef2, ""},
		{strings.ToUpper(beef1[:9]), beef1, ""},
		{"c0de", c0de, ""},
		{"abba", "", "short object ID abba is ambiguous"},
		{"a1a1", "", "short object ID a1a1 is ambiguous"},
		{"b10b", "", "it names a blob, not a commit"},
		{b10b, "", "it names a blob, not a commit"},
		{"7eee", "", "it names a tree, not a commit"},
		{"0b0b", "", "short object ID 0b0b is ambiguous"},
		{tag[:8], c[9], ""},
		{tag, c[9], ""},
		{"outer", c[10], ""},
		{c[11][:7], c[11], ""},
		{c[2], c[2], ""},
		{strings.ToUpper(c[2]), c[2], ""},
		{missing, "", ""},
		{c[14] + "0", c[15], ""},
		{c[16][:3], "", ""},
		{"nothing", "", ""},
	}, crafted
}

// hexSpec is a spec hexNamesRepo resolves: the commit git resolves it to
// ("" for none), and what the error must say when it is refused.
type hexSpec struct {
	spec, want, why string
}

// TestResolveHexNamesMatchGit resolves names that are both refs and hash
// prefixes, too-short prefixes, ambiguous ones and full hashes, with loose
// objects, then with every object in a pack, and checks each against the
// commit the table names and against git rev-parse --verify
// spec^{commit}: refs before hashes, at least four digits, one commit-ish
// or none.
func TestResolveHexNamesMatchGit(t *testing.T) {
	t.Parallel()
	r, specs, crafted := hexNamesRepo(t)
	check := func(t *testing.T) {
		repo, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer repo.Close()
		for _, tt := range specs {
			want, wantOK, _ := gitRevParse(r.Dir, tt.spec)
			if want != tt.want || wantOK != (tt.want != "") {
				t.Errorf("git rev-parse --verify %s^{commit} = %q, the table says %q", tt.spec, want, tt.want)
			}
			c, err := repo.Resolve(tt.spec)
			switch {
			case tt.want == "" && err == nil:
				t.Errorf("Resolve(%q) = %s; git refuses it", tt.spec, c.Hash)
			case tt.want == "" && (!errors.Is(err, ErrRevisionNotFound) || !strings.Contains(err.Error(), tt.why)):
				t.Errorf("Resolve(%q) = %v; want ErrRevisionNotFound saying %q", tt.spec, err, tt.why)
			case tt.want != "" && err != nil:
				t.Errorf("Resolve(%q): %v; want %s", tt.spec, err, tt.want)
			case tt.want != "" && c.Hash != tt.want:
				t.Errorf("Resolve(%q) = %s; want %s", tt.spec, c.Hash, tt.want)
			}
		}
	}
	t.Run("loose", check)
	for i, h := range crafted {
		r.Git("update-ref", fmt.Sprintf("refs/crafted/%d", i), h)
	}
	r.Git("repack", "-q", "-a", "-d")
	if out := r.Git("count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Fatalf("loose objects left after repacking:\n%s", out)
	}
	t.Run("packed", check)
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
