package doctor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
)

// BenchmarkFixDuplicates measures doctor --fix renumbering 40 duplicate
// ids in a memory of 5,000 facts committed over 20 commits: for each
// duplicate, the repair reads the file at the base commit (HEAD) and
// places the commit that added it in the history of the memory folder.
func BenchmarkFixDuplicates(b *testing.B) {
	r := gittest.New(b)
	const n, dups = 5000, 40
	paths := make([]string, n)
	for i := range n {
		p, content := factFile(facts.FormatID(i+1), fmt.Sprintf("Fact number %d holds", i+1), "2026-01-02")
		paths[i] = p
		r.Write(p, content)
	}
	r.CommitAll("facts")
	for c := range 20 {
		for i := range 10 {
			k := (c*10 + i) * 7 % n
			_, content := factFile(facts.FormatID(k+1), fmt.Sprintf("Fact number %d holds", k+1), "2026-01-02",
				func(f *facts.Fact) { f.Body = fmt.Sprintf("Edited in commit %d, because the team agreed on it.", c) })
			r.Write(paths[k], content)
		}
		r.CommitAll(fmt.Sprint("edit ", c))
	}
	r.Git("gc", "-q")
	copies := func() {
		for i := range dups {
			k := i * 97 % n
			p, content := factFile(facts.FormatID(k+1), fmt.Sprintf("Copy of fact number %d", k+1), "2026-01-03")
			r.Write(p, content)
		}
	}
	for b.Loop() {
		b.StopTimer()
		r.Git("checkout", "-q", "--", ".")
		r.Git("clean", "-fdq", ".foundry/memory")
		copies()
		p, err := project.OpenLenient(r.Dir, project.Source{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		changes, err := doctor.Fix(context.Background(), doctor.Env{Project: p, Now: clock})
		if err != nil || len(changes) < dups {
			b.Fatalf("%d changes: %v", len(changes), err)
		}
		b.StopTimer()
		p.Close()
		b.StartTimer()
	}
}
