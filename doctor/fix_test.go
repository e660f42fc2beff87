package doctor_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
)

// TestFixKeepsTheIDHeldFirst has main and up each write a fact-0002, main's
// (alpha) committed first and first by created date and file name, then
// brings them together: the fact that held the id first in history keeps
// it, the upstream's before all.
func TestFixKeepsTheIDHeldFirst(t *testing.T) {
	t.Parallel()
	const (
		alpha = facts.Dir + "/fact-0002-alpha-service-owns-user-profiles.md"
		zeta  = facts.Dir + "/fact-0002-zeta-queue-retries-five-times.md"
	)
	tests := []struct {
		name    string
		steps   func(r *gittest.Repo)
		shallow bool   // fix a clone of depth 1 of the result
		want    string // the fact that keeps fact-0002
	}{
		{"merge of the upstream", func(r *gittest.Repo) {
			r.Git("branch", "-q", "-u", "up")
			r.Git("merge", "-q", "--no-edit", "up")
		}, false, zeta},
		{"merge of the upstream in progress", func(r *gittest.Repo) {
			r.Git("branch", "-q", "-u", "up")
			r.Git("merge", "-q", "--no-commit", "--no-ff", "up")
		}, false, zeta},
		{"rebase on the upstream", func(r *gittest.Repo) {
			r.Git("branch", "-q", "-u", "up")
			r.Git("rebase", "-q", "up")
		}, false, zeta},
		{"merge into up without upstream", func(r *gittest.Repo) {
			r.Git("checkout", "-q", "up")
			r.Git("merge", "-q", "--no-edit", "main")
		}, false, zeta},
		{"merge into up without upstream in progress", func(r *gittest.Repo) {
			r.Git("checkout", "-q", "up")
			r.Git("merge", "-q", "--no-commit", "--no-ff", "main")
		}, false, zeta},
		{"merge into main without upstream", func(r *gittest.Repo) {
			r.Git("merge", "-q", "--no-edit", "up")
		}, false, alpha},
		{"rebase without upstream", func(r *gittest.Repo) {
			r.Git("rebase", "-q", "up")
		}, false, zeta},
		// Neither the merge's parents nor the commits that added the facts
		// are there: history cannot tell.
		{"shallow clone of the merge", func(r *gittest.Repo) {
			r.Git("branch", "-q", "-u", "up")
			r.Git("merge", "-q", "--no-edit", "up")
		}, true, alpha},
		{"not committed", func(r *gittest.Repo) {
			r.Git("checkout", "-q", "up")
			p, content := factFile("fact-0002", "Alpha service owns user profiles", "2026-01-02")
			r.Write(p, content)
		}, false, zeta},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			p1, f1 := factFile("fact-0001", "Service mesh is Linkerd", "2026-01-01")
			r.Write(p1, f1)
			r.CommitAll("base")
			r.Git("branch", "up")
			pa, fa := factFile("fact-0002", "Alpha service owns user profiles", "2026-01-02")
			r.Write(pa, fa)
			r.CommitAll("main: alpha")
			r.Git("checkout", "-q", "up")
			pz, fz := factFile("fact-0002", "Zeta queue retries five times", "2026-01-02")
			r.Write(pz, fz)
			r.CommitAll("up: zeta")
			r.Git("checkout", "-q", "main")
			tt.steps(r)
			dir := r.Dir
			if tt.shallow {
				dir = filepath.Join(t.TempDir(), "shallow")
				r.Git("clone", "-q", "--depth", "1", "file://"+r.Dir, dir)
			}

			changes, err := doctor.Fix(context.Background(), doctor.Env{Project: open(t, dir, project.Source{}), Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			lost := map[string]string{alpha: zeta, zeta: alpha}[tt.want]
			renamed := facts.Dir + "/fact-0003-" + lost[len(facts.Dir+"/fact-0002-"):]
			want := fmt.Sprintf("renumbered fact-0002 to fact-0003: %s → %s", lost, renamed)
			if len(changes) == 0 || changes[0].String() != want {
				t.Errorf("changes = %v, want first %q", changes, want)
			}
		})
	}
}
