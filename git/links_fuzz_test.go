package git_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/git/gittest"
)

// FuzzViewLinks commits three symbolic links with arbitrary targets (a
// committed link is untrusted input the views parse) under a project, the
// folder p, and reads paths through them in the working tree, at the
// revision and in the index: every view must read the same content or
// fail the same way, none may read the file beside the project, and no
// path inside .foundry may read the project's file outside .foundry.
func FuzzViewLinks(f *testing.F) {
	for _, s := range [][4]string{
		{"a.json", "../a.json", "sub", ".foundry/l1"},
		{"sub/b.json", "../../.foundry/sub", ".foundry", "l3/sub/l2/b.json"},
		{"l1", "l2", "../l3", ".foundry/sub/l2"},
		{"sub/l2/../b.json", "deep/..", "./.foundry//sub/", "l3/l2/deep/c.json"},
		{"../../outside.json", "/etc/passwd", "../p/.foundry", "l3/a.json"},
		{"a.json/", "a.json/../a.json", "./.foundry/l1", ".foundry/l1/x"},
		{"sub/deep/../../l1", "../../.foundry/sub/deep/..", ".", "l3/.foundry/l1"},
		{"../../../../..", "..", "../..", ".foundry/sub/l2/deep"},
		{"../secret.json", "../../l3", "secret.json", ".foundry/sub/l2"},
		{"sub/../../.foundry/a.json", "../../.foundry/sub", ".foundry/sub/l2/../../secret.json", "l3"},
		{".", "../../..", "../p/secret.json", ".foundry/l1/sub/b.json"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(checkViewLinks)
}

// checkViewLinks is one run of FuzzViewLinks: the links' targets t1, t2
// and t3, and name, a path to read besides the links.
func checkViewLinks(t *testing.T, t1, t2, t3, name string) {
	links := []struct{ at, target string }{
		{".foundry/l1", t1}, {".foundry/sub/l2", t2}, {"l3", t3},
	}
	skipUnlinkable(t, t1, t2, t3)
	if !fs.ValidPath(name) {
		t.Skip()
	}
	r := gittest.New(t)
	r.Write("outside.json", "OUTSIDE")
	r.Write("p/secret.json", "SECRET")
	r.Write("p/.foundry/a.json", "A")
	r.Write("p/.foundry/sub/b.json", "B")
	r.Write("p/.foundry/sub/deep/c.json", "C")
	for _, l := range links {
		if err := os.Symlink(l.target, filepath.Join(r.Dir, "p", filepath.FromSlash(l.at))); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	r.CommitAll("links")
	names := []string{name, links[0].at, links[1].at, links[2].at}
	agreeInEveryView(t, threeViews(t, r.Dir, "p"), fmt.Sprintf("links %q, %q, %q", t1, t2, t3), names, func(v view, n, got string) {
		if strings.Contains(got, "OUTSIDE") {
			t.Fatalf("%s: %s read the file outside the project", v.name, n)
		}
		if strings.Contains(got, "SECRET") && strings.HasPrefix(n, ".foundry/") {
			t.Fatalf("%s: %s read the project's file outside .foundry", v.name, n)
		}
	})
}

// skipUnlinkable skips a run with a link target no link on disk can hold:
// the table tests cover those.
func skipUnlinkable(t *testing.T, targets ...string) {
	t.Helper()
	for _, l := range targets {
		if l == "" || len(l) > 4095 || strings.ContainsRune(l, 0) {
			t.Skip()
		}
		for c := range strings.SplitSeq(l, "/") {
			if len(c) > 255 {
				t.Skip()
			}
		}
	}
}

// agreeInEveryView reads each of names in every view: leak checks each
// outcome first, and a view that reads a name otherwise than the working
// tree (the first view) is an error naming the links, what.
func agreeInEveryView(t *testing.T, views []view, what string, names []string, leak func(v view, name, got string)) {
	t.Helper()
	for _, n := range names {
		var want string
		for i, v := range views {
			got := readOutcome(v.fsys, n)
			leak(v, n, got)
			if i == 0 {
				want = got
			} else if got != want {
				t.Errorf("%s (%s): %s %s, the working tree %s", v.name, what, n, got, want)
			}
		}
	}
}

// readOutcome says what reading and stating name in fsys gives: the
// content or the error, with the path left out (a view names the path it
// was given, the system the one it failed at), and whether it is a folder.
func readOutcome(fsys fs.FS, name string) string {
	outcome := func(err error) string {
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "missing" // "file does not exist" or "no such file or directory"
		case errors.As(err, &pe):
			return pe.Err.Error()
		}
		return err.Error()
	}
	var b strings.Builder
	if data, err := fs.ReadFile(fsys, name); err != nil {
		b.WriteString("reads: " + outcome(err))
	} else {
		b.WriteString("reads " + string(data))
	}
	if fi, err := fs.Stat(fsys, name); err != nil {
		b.WriteString(", stat: " + outcome(err))
	} else {
		b.WriteString(", stat: folder " + map[bool]string{true: "yes", false: "no"}[fi.IsDir()])
	}
	return b.String()
}

// FuzzViewFoundryLink commits .foundry itself as a symbolic link with an
// arbitrary target, and a link inside the folder it may lead to, and
// reads paths through them in the working tree, at the revision and in
// the index: every view must read the same or fail the same way, and no
// path inside .foundry may read a file of the project outside the folder
// .foundry leads to (the project's own folder, with .git/config and .env,
// is no .foundry).
func FuzzViewFoundryLink(f *testing.F) {
	for _, s := range [][3]string{
		{"meta", "../secret.json", "l1"},
		{".", "../secret.json", "meta/l1"},
		{"./", "../meta/a.json", "secret.json"},
		{".", "a.json", "l1/../a.json"},
		{"meta/..", "a.json", "meta/a.json"},
		{"up", "a.json", "l1"},
		{"meta/l1", "../meta", "a.json"},
		{"../p/meta", "a.json", "l1"},
		{"sub/../meta/", "sub/../a.json", "sub"},
		{"meta/sub/..", "sub/..", "l1/a.json"},
		{"lnk/", "../lnk/a.json", "l1"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, foundry, target, name string) {
		skipUnlinkable(t, foundry, target)
		if !fs.ValidPath(".foundry/" + name) {
			t.Skip()
		}
		r := gittest.New(t)
		r.Write("outside.json", "OUTSIDE")
		r.Write("p/secret.json", "SECRET")
		r.Write("p/meta/a.json", "A")
		r.Write("p/meta/sub/b.json", "B")
		for at, to := range map[string]string{"p/.foundry": foundry, "p/meta/l1": target, "p/up": ".", "p/lnk": "meta"} {
			if err := os.Symlink(to, filepath.Join(r.Dir, filepath.FromSlash(at))); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
		}
		r.CommitAll("links")
		what := fmt.Sprintf(".foundry -> %q, l1 -> %q", foundry, target)
		names := []string{".foundry/" + name, ".foundry/l1", ".foundry/a.json"}
		agreeInEveryView(t, threeViews(t, r.Dir, "p"), what, names, func(v view, n, got string) {
			if strings.Contains(got, "OUTSIDE") || strings.Contains(got, "SECRET") {
				t.Fatalf("%s (%s): %s %s", v.name, what, n, got)
			}
		})
	})
}
