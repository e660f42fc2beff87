package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/foundryhq/foundry/git/gittest"
)

// TestWalkerTreeCacheBounded: the decoded trees a history walk keeps are
// bounded by their entries, not only by their number: every version of a
// large folder (here 1,200 files, one changed per commit, 500 commits:
// 600,000 entries in all) is decoded, and the cache never holds more than
// maxCachedEntries of them. The walk still records every change.
func TestWalkerTreeCacheBounded(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	const files, commits = 1200, 500
	var buf bytes.Buffer
	for c := range commits {
		fmt.Fprintf(&buf, "commit refs/heads/main\ncommitter Foundry Test <test@foundry.invalid> %d +0000\ndata 1\nc\n", 1767261600+c*60)
		for i := range files {
			if c == 0 || i == c%files {
				content := fmt.Sprintf("fact %d version %d\n", i, c)
				fmt.Fprintf(&buf, "M 100644 inline fact-%04d.md\ndata %d\n%s\n", i, len(content), content)
			}
		}
		buf.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = r.Dir, append(os.Environ(), gittest.Env...), &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v: %s", err, out)
	}
	r.Git("reset", "-q", "--hard", "main")
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()

	w := &walker{repo: repo, trees: map[plumbing.Hash][]treeEntry{}}
	peak := 0
	for _, h := range strings.Fields(r.Git("log", "--format=%T", "main")) {
		es, err := w.tree(plumbing.NewHash(h))
		if err != nil || len(es) != files {
			t.Fatalf("tree %s: %d entries, %v", h, len(es), err)
		}
		held := 0
		for _, es := range w.trees {
			held += len(es)
		}
		peak = max(peak, held)
		if held != w.cached {
			t.Fatalf("cached = %d, the trees hold %d entries", w.cached, held)
		}
	}
	if peak > maxCachedEntries || peak < files {
		t.Errorf("the cache held up to %d entries, bound %d", peak, maxCachedEntries)
	}

	h, err := repo.History(context.Background(), "main", HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.Changes("fact-0000.md")); n != 1 {
		t.Errorf("fact-0000.md: %d changes, want 1 (added)", n)
	}
	for i := 1; i < 10; i++ {
		if n := len(h.Changes(fmt.Sprintf("fact-%04d.md", i))); n != 2 {
			t.Errorf("fact-%04d.md: %d changes, want 2 (added, changed once)", i, n)
		}
	}
}
