// Package confinedtest builds hostile projects for the tests of path
// resolution under a [confined.Root], in this package and in those that
// resolve client paths through one (contract_validate's path, resource
// URIs): a project whose .foundry/ links out of it in every way, a file
// outside it no read may return, and a check that nothing outside changed;
// and, for the tests of reads through a [confined.Folder], the same root
// read path by path ([PathByPath]).
package confinedtest

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// Sentinel is the content of the file outside the project: no read through
// the root may return it.
const Sentinel = "OUTSIDE-SENTINEL-5d1c9e"

// HostileNames are the client paths every resolution fuzz target starts
// from: leaving the root by "..", by an absolute path, through each kind
// of link in [HostileProject], and names no file system takes.
var HostileNames = []string{
	".foundry/memory/fact-0001-inside.md",
	".foundry/memory/fact-0003-leak.md",
	".foundry/runbooks/inside.md",
	".foundry/dir",
	".foundry/dir/file.json",
	"../x",
	"../outside/sentinel.txt",
	"a/../../x",
	".foundry/../../outside/sentinel.txt",
	"/etc/passwd",
	"/tmp",
	`..\..\outside\sentinel.txt`,
	`C:\Windows\win.ini`,
	"x\x00y",
	"\x00",
	"",
	".",
	"./",
	strings.Repeat("a", 5000),
	".foundry/" + strings.Repeat("b/", 60) + "c",
	".foundry/runbooks/abs.md",
	".foundry/runbooks/rel.md",
	".foundry/out/sentinel.txt",
	".foundry/absout/sentinel.txt",
	".foundry/out",
	".foundry/metrics/sentinel.txt",
	".foundry/metrics/events.jsonl",
	".foundry/metrics/.lock",
	".foundry/loop",
	".foundry/loop/x",
	".foundry/self/self/memory/fact-0001-inside.md",
	"up/outside/sentinel.txt",
	"up",
	".foundry/memory/fact-0001-inside.md/x",
	"\xff\xfe",
	// As a runbook slug, an artifact's agent, a fact id: the links above.
	"abs", "rel", "inside", "leak", "fact-0003", "fact-0004",
}

// HostileProject makes, in a fresh temp folder, a project whose .foundry/
// holds regular files, a folder, a symbolic link inside the project, links
// out of it (absolute and relative, to a file and to a folder, .foundry/
// metrics among them), a link loop and a link to the project's parent;
// beside the project, a folder holding a file of [Sentinel]. It returns the
// project's folder and the outside one.
func HostileProject(t testing.TB) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "proj"), filepath.Join(base, "outside")
	files := map[string]string{
		// JSON, so that a validation that read it would show it.
		filepath.Join(outside, "sentinel.txt"):                     `{"` + Sentinel + `": "` + Sentinel + `", "severity": "` + Sentinel + `"}` + "\n",
		filepath.Join(outside, "memory", "fact-0002-leak.md"):      fact("fact-0002", Sentinel),
		filepath.Join(root, ".foundry/memory/fact-0001-inside.md"): fact("fact-0001", "Inside"),
		filepath.Join(root, ".foundry/runbooks/deploy.md"):         "# Deploy\n",
		filepath.Join(root, ".foundry/blackboard/w/a.json"):        `{"schema":"finding.v1"}`,
		filepath.Join(root, ".foundry/dir/file.json"):              "{}",
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := []struct{ link, target string }{
		{".foundry/runbooks/inside.md", "../memory/fact-0001-inside.md"},
		{".foundry/runbooks/abs.md", filepath.Join(outside, "sentinel.txt")},
		{".foundry/runbooks/rel.md", "../../../outside/sentinel.txt"},
		{".foundry/blackboard/w/leak.json", "../../../../outside/sentinel.txt"},
		{".foundry/memory/fact-0003-leak.md", filepath.Join(outside, "memory", "fact-0002-leak.md")},
		{".foundry/memory/fact-0004-rel.md", "../../../outside/memory/fact-0002-leak.md"},
		{".foundry/out", "../../outside"},
		{".foundry/absout", outside},
		{".foundry/metrics", "../../outside"},
		{".foundry/loop", "loop2"},
		{".foundry/loop2", "loop"},
		{".foundry/self", "."},
		{"up", ".."},
	}
	for _, l := range links {
		link := filepath.Join(root, filepath.FromSlash(l.link))
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l.target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	return root, outside
}

// fact is a fact file of id whose title and body are text.
func fact(id, text string) string {
	return "---\nid: " + id + "\ntype: decision\ntitle: " + text + "\nscope: project\ntags: [x]\nconfidence: high\n" +
		"source: test\ncreated: 2026-12-02\nstatus: active\n---\n" + text + "\n"
}

// Outside is everything a write through a project's root must leave
// alone: the folder holding the project, and all under it but the project.
type Outside struct {
	root   string
	before map[string]string
}

// WatchOutside records everything outside the project root, beside it and
// under its parent folder (by name, mode, size, time and content hash,
// links not followed), for [Outside.Check].
func WatchOutside(t testing.TB, root string) *Outside {
	t.Helper()
	return &Outside{root: root, before: snapshot(t, root)}
}

// Check fails t when anything outside the project changed since
// [WatchOutside]; what names the operations that ran meanwhile.
func (o *Outside) Check(t testing.TB, what string) {
	t.Helper()
	after := snapshot(t, o.root)
	for p, d := range after {
		if o.before[p] != d {
			t.Fatalf("%s changed %s outside the project: %q, was %q", what, p, d, o.before[p])
		}
	}
	for p := range o.before {
		if _, ok := after[p]; !ok {
			t.Fatalf("%s removed %s outside the project", what, p)
		}
	}
}

func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Dir(root), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d %v", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// NamesPath reports whether msg names the refused path name: the name as
// given, or a component-wise prefix of its clean form (the link or file
// a refusal stopped at).
func NamesPath(msg, name string) bool {
	if strings.Contains(msg, name) {
		return true
	}
	clean, err := confined.Clean(name)
	if err != nil {
		return false
	}
	parts := strings.Split(clean, "/")
	for i := range parts {
		if strings.Contains(msg, strings.Join(parts[:i+1], "/")) {
			return true
		}
	}
	return false
}
