package git_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// generateHistory writes commits commits into r with git fast-import. Each
// commit touches perCommit blackboard artifacts (new ones until artifacts
// exist, then rewrites) and one file outside .foundry, and every 50th
// commit edits a project-local schema, so the history has the shape of a
// busy project: 1,000 commits × 10 files gives 10,000 artifacts.
func generateHistory(tb testing.TB, r *gittest.Repo, commits, perCommit, artifacts int) {
	tb.Helper()
	var buf bytes.Buffer
	n := 0
	for c := 0; c < commits; c++ {
		fmt.Fprintf(&buf, "commit refs/heads/main\ncommitter Foundry Test <test@foundry.invalid> %d +0000\n", 1767261600+c*60)
		msg := fmt.Sprintf("commit %d", c)
		fmt.Fprintf(&buf, "data %d\n%s\n", len(msg), msg)
		for i := 0; i < perCommit; i++ {
			a := n % artifacts
			n++
			content := fmt.Sprintf(`{"schema":"finding.v1","producedBy":"agent-%05d","id":"F-%d","rev":%d}`, a, a, c)
			fmt.Fprintf(&buf, "M 100644 inline .foundry/blackboard/w%03d/agent-%05d.json\ndata %d\n%s\n", a%100, a, len(content), content)
		}
		src := fmt.Sprintf("package main // %d\n", c)
		fmt.Fprintf(&buf, "M 100644 inline src/file%03d.go\ndata %d\n%s\n", c%200, len(src), src)
		if c%50 == 0 {
			s := fmt.Sprintf(`{"type":"object","maxProperties":%d}`, 100-c/50)
			fmt.Fprintf(&buf, "M 100644 inline .foundry/schemas/note.v1.schema.json\ndata %d\n%s\n", len(s), s)
		}
		buf.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), gittest.Env...)
	cmd.Stdin = &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git fast-import: %v: %s", err, out)
	}
	r.Git("reset", "-q", "--hard", "main")
	r.Git("gc", "-q")
}

// BenchmarkHistory walks a generated repository of 1,000 commits touching
// 10,000 artifacts: the doctor's history pass when no artifact fails
// (schemas only) and when many do (artifacts and schemas), the same pass
// over every path, and `git log --name-only` over the same history for
// comparison.
func BenchmarkHistory(b *testing.B) {
	r := gittest.New(b)
	generateHistory(b, r, 1000, 10, 10000)
	repo, err := git.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	walk := func(b *testing.B, prefixes []string, wantPaths int) {
		for b.Loop() {
			h, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{Prefixes: prefixes})
			if err != nil {
				b.Fatal(err)
			}
			if h.Commits != 1000 || len(h.Paths()) != wantPaths {
				b.Fatalf("walked %d commits, %d paths; want 1000, %d", h.Commits, len(h.Paths()), wantPaths)
			}
		}
	}
	b.Run("schemas-only", func(b *testing.B) { // doctor when no artifact fails
		walk(b, []string{".foundry/schemas/"}, 1)
	})
	b.Run("doctor-prefixes", func(b *testing.B) {
		walk(b, []string{".foundry/blackboard/", ".foundry/schemas/"}, 10001)
	})
	b.Run("all-paths", func(b *testing.B) {
		walk(b, nil, 10201)
	})
	b.Run("git-log-name-only", func(b *testing.B) {
		for b.Loop() {
			out := r.Git("log", "--name-only", "--format=%H")
			if n := strings.Count(out, "\n.foundry/blackboard/"); n != 10000 {
				b.Fatalf("git log listed %d artifact changes, want 10000", n)
			}
		}
	})
}
