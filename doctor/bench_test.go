package doctor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/git/gittest"
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
				p.Repo.Close()
			}
		})
	}
}
