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
// script, which runs `foundry hook pre-commit` with a freshly built foundry)
// in a repository holding 10,000 artifacts and 2,000 facts, with 3 staged
// files of each kind (artifacts, facts, runbooks, schemas) and the config,
// against `git diff --cached --name-only` on the same repository, the least
// any pre-commit check must do. Compare the two ns/op figures; the goal is
// at most three times git's plus 50 ms.
func BenchmarkPreCommitHook(b *testing.B) {
	testenv.Exec(b, "go")
	bin := filepath.Join(b.TempDir(), "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "foundry"), "github.com/foundryhq/foundry/cmd/foundry")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build foundry: %v\n%s", err, out)
	}

	r := gittest.New(b)
	const waves, agents, nfacts = 100, 100, 2000
	for w := range waves {
		for a := range agents {
			r.Write(fmt.Sprintf(".foundry/blackboard/wave-%03d/agent-%03d.json", w, a), finding(w*agents+a, "high"))
		}
	}
	for i := 1; i <= nfacts; i++ {
		r.Write(factPath(i), fact(i))
	}
	for i := range 3 {
		r.Write(fmt.Sprintf(".foundry/runbooks/deploy-%d.md", i), runbook(i, "main"))
		r.Write(fmt.Sprintf(".foundry/schemas/note%d.v1.schema.json", i), noteSchema(i, false))
	}
	r.Write(".foundry/config.yaml", "memory:\n  indexBudgetTokens: 4000\nmcp:\n  enabled: false\n")
	r.CommitAll("10,000 artifacts, 2,000 facts")
	for i := range 3 {
		r.Write(fmt.Sprintf(".foundry/blackboard/wave-%03d/agent-%03d.json", 10*i, 7), finding(i, "medium"))
		r.Write(factPath(nfacts+1+i), fact(nfacts+1+i))
		r.Write(fmt.Sprintf(".foundry/runbooks/deploy-%d.md", i), runbook(i, "release"))
		r.Write(fmt.Sprintf(".foundry/schemas/note%d.v1.schema.json", i), noteSchema(i, true))
	}
	r.Write(".foundry/config.yaml", "memory:\n  indexBudgetTokens: 3000\nmcp:\n  enabled: false\n")
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
	if got := run(b, "git", "diff", "--cached", "--name-only"); strings.Count(got, "\n") != 13 {
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

func factPath(n int) string {
	return fmt.Sprintf(".foundry/memory/fact-%04d-service-%d-keeps-its-state-on-disk.md", n, n)
}

// fact renders a valid fact file.
func fact(n int) string {
	return fmt.Sprintf(`---
id: fact-%04[1]d
type: domain
title: Service %[1]d keeps its state on disk
scope: project
tags: [storage]
confidence: high
source: conversation
created: 2026-01-02
status: active
---
Service %[1]d writes its state to a local volume and replays it on start.
`, n)
}

// runbook renders a runbook.
func runbook(n int, branch string) string {
	return fmt.Sprintf("---\ntitle: Deploy %d\ntrigger: deploying service %d\n---\n# Deploy\n\nRun make deploy from a clean checkout of %s.\n", n, n, branch)
}

// noteSchema renders a project contract; additive adds an optional property.
func noteSchema(n int, additive bool) string {
	extra := ""
	if additive {
		extra = `, "author": {"type": "string"}`
	}
	return fmt.Sprintf(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://foundry.dev/schemas/note%[1]d.v1.schema.json",
  "type": "object",
  "required": ["schema", "producedBy", "text"],
  "properties": {"schema": {"const": "note%[1]d.v1"}, "producedBy": {"type": "string"}, "text": {"type": "string"}%[2]s},
  "additionalProperties": false
}
`, n, extra)
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
