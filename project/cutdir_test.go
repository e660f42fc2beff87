package project

import (
	"slices"
	"strings"
	"testing"
)

// FuzzCutDir: a staged path, as hostile as a clone can make it, is split
// at its first folder named .foundry, or not at all when none of its
// folders is one; the two parts put back together give the path again.
func FuzzCutDir(f *testing.F) {
	for _, p := range []string{
		".foundry/config.yaml", "services/api/.foundry/memory/a.md", "a/.foundry/b/.foundry/c",
		".foundry", "x/.foundry", "notes/.foundry", "x.foundry/a", "a/.foundryx/b", "/.foundry/a",
		"a//.foundry/b", ".foundry/", "", "é/.foundry/ü",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		parts := strings.Split(p, "/")
		if slices.ContainsFunc(parts, func(s string) bool { return s == "" || s == "." || s == ".." }) {
			return // git stages no such path (verify_path)
		}
		rel, below, ok := cutDir(p)
		// The last part is a file's name, never a folder.
		first := slices.Index(parts[:len(parts)-1], Dir)
		if !ok {
			if first >= 0 {
				t.Fatalf("cutDir(%q) found no .foundry folder; part %d is one", p, first)
			}
			return
		}
		if first < 0 {
			t.Fatalf("cutDir(%q) = %q, %q; no folder of it is a .foundry", p, rel, below)
		}
		if want := strings.Join(parts[:first], "/"); rel != want {
			t.Fatalf("cutDir(%q): project %q, want %q (the folder holding the first .foundry)", p, rel, want)
		}
		joined := Dir + "/" + below
		if rel != "" {
			joined = rel + "/" + joined
		}
		if joined != p {
			t.Fatalf("cutDir(%q) = %q, %q, which make %q", p, rel, below, joined)
		}
	})
}
