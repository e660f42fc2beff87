package doctor_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"testing"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/project"
)

// BenchmarkRun runs doctor over a project of 10,000 blackboard artifacts
// (valid finding.v1 documents in 100 waves) in the working tree and at
// --rev HEAD, read from a packed repository as after a clone. The issue's
// goal is a revision/worktree ratio of at most 1.5.
func BenchmarkRun(b *testing.B) {
	r := gittest.New(b)
	const n = 10000
	for i := 0; i < n; i++ {
		r.Write(fmt.Sprintf(".foundry/blackboard/w%02d/agent-%05d.json", i%100, i), fmt.Sprintf(`{
  "schema": "finding.v1",
  "producedBy": "agent-%05d",
  "id": "F-%d",
  "severity": "medium",
  "title": "Finding number %d",
  "summary": "A summary of finding %d, long enough to look like a real one.",
  "failureScenario": "Concrete inputs that lead to the wrong outcome for finding %d.",
  "confidence": "high"
}
`, i, i, i, i, i))
	}
	r.CommitAll("ten thousand artifacts")
	r.Git("gc", "-q")
	for _, bc := range []struct {
		name      string
		src       project.Source
		noHistory bool
	}{
		{"worktree", project.Source{}, false},
		{"rev", project.Source{Rev: "HEAD"}, false},
		{"worktree-no-history", project.Source{}, true},
		{"rev-no-history", project.Source{Rev: "HEAD"}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p, err := project.OpenLenient(r.Dir, bc.src)
				if err != nil {
					b.Fatal(err)
				}
				rep, err := doctor.Run(context.Background(), doctor.Env{Project: p, NoHistory: bc.noHistory, Now: clock})
				if err != nil {
					b.Fatal(err)
				}
				if len(rep.Findings) != 0 || rep.Files != n {
					b.Fatalf("%d findings over %d files; want none over %d", len(rep.Findings), rep.Files, n)
				}
				p.Close()
			}
		})
	}
}

// sweepSources are the sources a sweep benchmark runs doctor on.
var sweepSources = []struct {
	name string
	src  project.Source
}{
	{"worktree", project.Source{}},
	{"rev", project.Source{Rev: "HEAD"}},
}

// BenchmarkRunFacts runs doctor over a project of 10,000 facts, in the
// working tree and at --rev HEAD: the conflict scan, the fact checks and
// the secret scan each look at every fact.
func BenchmarkRunFacts(b *testing.B) {
	r := gittest.New(b)
	const n = 10000
	types := []string{"decision", "constraint", "convention", "domain", "risk", "metric", "glossary"}
	for i := range n {
		id := fmt.Sprintf("fact-%04d", i+1)
		r.Write(fmt.Sprintf(".foundry/memory/%s-the-service-relies-on-store-%d.md", id, i), fmt.Sprintf(`---
id: %s
type: %s
title: The service relies on store %d for orders
scope: project
tags: [orders, store]
confidence: medium
source: code
created: 2026-01-02
status: active
---
Fact %d about orders.
Why: measured in load test %d.
How to apply: check store %d before changing orders.
`, id, types[i%len(types)], i, i, i%97, i))
	}
	r.CommitAll("ten thousand facts")
	r.Git("gc", "-q")
	for _, bc := range sweepSources {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p, err := project.OpenLenient(r.Dir, bc.src)
				if err != nil {
					b.Fatal(err)
				}
				rep, err := doctor.Run(context.Background(), doctor.Env{Project: p, NoHistory: true, Now: clock})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Files != n {
					b.Fatalf("%d files checked, want %d", rep.Files, n)
				}
				p.Close()
			}
		})
	}
}

// BenchmarkHistory is goal P4 of the performance issue: a doctor history
// pass over 1,000 commits, each touching 10 of 2,000 artifacts, 10% of
// which fail today (their contract was tightened by the last commit),
// against `git log --name-only` over the same history. The history is built
// with git fast-import.
func BenchmarkHistory(b *testing.B) {
	gitBin := testenv.Git(b)
	r := gittest.New(b)
	const nArtifacts, nCommits, perCommit = 2000, 1000, 10
	note := func(i, rev int) string {
		owner := fmt.Sprintf(`, "owner": "team-%d"`, i%7)
		if i%10 == 0 { // fails once the contract requires an owner
			owner = ""
		}
		return fmt.Sprintf(`{"schema": "note.v1", "producedBy": "agent-%d", "title": "Note %d revision %d"%s}`+"\n", i, i, rev, owner)
	}
	var stream bytes.Buffer
	mark := 0
	commit := func(msg string, files map[string]string) {
		mark++
		fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", mark, 1700000000+mark, len(msg), msg)
		if mark > 1 {
			fmt.Fprintf(&stream, "from :%d\n", mark-1)
		}
		names := make([]string, 0, len(files))
		for name := range files {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", name, len(files[name]), files[name])
		}
	}
	path := func(i int) string { return fmt.Sprintf(".foundry/blackboard/w%02d/agent-%04d.json", i%50, i) }
	first := map[string]string{".foundry/schemas/note.v1.schema.json": noteV1}
	for i := range nArtifacts {
		first[path(i)] = note(i, 0)
	}
	commit("two thousand notes", first)
	for c := 1; c <= nCommits; c++ {
		files := map[string]string{}
		for k := range perCommit {
			i := (c*perCommit + k) % nArtifacts
			files[path(i)] = note(i, c)
		}
		commit(fmt.Sprintf("revise notes %d", c), files)
	}
	commit("require an owner", map[string]string{".foundry/schemas/note.v1.schema.json": noteV1Required})
	cmd := exec.Command(gitBin, "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = r.Dir, &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	r.Git("checkout", "-q", "-f", "main")

	b.Run("doctor", func(b *testing.B) {
		for b.Loop() {
			p, err := project.OpenLenient(r.Dir, project.Source{})
			if err != nil {
				b.Fatal(err)
			}
			rep, err := doctor.Run(context.Background(), doctor.Env{Project: p, Now: clock})
			if err != nil {
				b.Fatal(err)
			}
			if got := len(rep.FindingsOf(doctor.CheckBlackboardStale)); got != nArtifacts/10 {
				b.Fatalf("%d artifacts explained by history, want %d", got, nArtifacts/10)
			}
			p.Close()
		}
	})
	b.Run("git-log-name-only", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(gitBin, "log", "--name-only", "--format=%H")
			cmd.Dir = r.Dir
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
