package hooks_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/internal/testenv"
)

// BenchmarkPreCommitHook measures the installed pre-commit hook (the shell
// script, which runs `foundry hook pre-commit` with a
// freshly built foundry) on 3 staged artifacts in a repository holding 10,000
// artifacts, against `git diff --cached --name-only` on the same repository,
// the least any pre-commit check must do. Compare the two ns/op figures.
func BenchmarkPreCommitHook(b *testing.B) {
	testenv.Exec(b, "go")
	bin := filepath.Join(b.TempDir(), "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "foundry"), "github.com/foundryhq/foundry/cmd/foundry")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build foundry: %v\n%s", err, out)
	}

	r := gittest.New(b)
	const waves, agents = 100, 100
	for w := range waves {
		for a := range agents {
			r.Write(fmt.Sprintf(".foundry/blackboard/wave-%03d/agent-%03d.json", w, a), finding(w*agents+a, "high"))
		}
	}
	r.CommitAll("10,000 artifacts")
	for i := range 3 {
		r.Write(fmt.Sprintf(".foundry/blackboard/wave-%03d/agent-%03d.json", 10*i, 7), finding(i, "medium"))
	}
	r.Git("add", "-A")
	if _, err := hooks.InstallPreCommit(context.Background(), r.Dir, hooks.Options{}); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env = append(env, gittest.Env...)
	run := func(b *testing.B, name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = r.Dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if got := run(b, "git", "diff", "--cached", "--name-only"); strings.Count(got, "\n") != 3 {
		b.Fatalf("staged files:\n%s", got)
	}
	b.Run("hook", func(b *testing.B) {
		for b.Loop() {
			run(b, "sh", filepath.Join(".git", "hooks", "pre-commit"))
		}
	})
	b.Run("git-diff-cached", func(b *testing.B) {
		for b.Loop() {
			run(b, "git", "diff", "--cached", "--name-only")
		}
	})
}

// finding renders a valid finding.v1 artifact.
func finding(n int, severity string) string {
	return fmt.Sprintf(`{
  "schema": "finding.v1",
  "producedBy": "agent-%[1]d",
  "id": "F-%[1]d",
  "severity": %[2]q,
  "title": "No rate limit on endpoint %[1]d",
  "summary": "POST /api/login/%[1]d accepts unlimited attempts per account and per source address.",
  "failureScenario": "An attacker sends 10k requests/min with one username and a password list; nothing slows them down.",
  "confidence": "high"
}
`, n, severity)
}
