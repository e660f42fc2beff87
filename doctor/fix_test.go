package doctor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		// The trunk's fact keeps its id before the one of the branch's own
		// upstream: merging main into a pushed branch renumbers no fact
		// main already has.
		{"merge of the default branch into a branch with an upstream", func(r *gittest.Repo) {
			r.Git("remote", "add", "origin", r.Dir)
			r.Git("update-ref", "refs/remotes/origin/main", "main")
			r.Git("update-ref", "refs/remotes/origin/up", "up")
			r.Git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
			r.Git("checkout", "-q", "up")
			r.Git("branch", "-q", "-u", "origin/up")
			r.Git("merge", "-q", "--no-edit", "main")
		}, false, alpha},
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

// TestFixLinkNamingARenumberedID has main supersede fact-0002 (zeta) with
// fact-0003 while up, its upstream, writes another fact-0002 (alpha) and
// renumbers one of the two: the link follows zeta, or --fix refuses when
// history shows that fact-0002 was zeta's but zeta is no longer there,
// changing nothing.
func TestFixLinkNamingARenumberedID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		renumber string // the fact up renumbered to fact-0003
		commit   bool   // the merge
		want     []string
		wantErr  error
	}{
		{name: "up renumbered alpha", renumber: "Alpha service owns user profiles", commit: true, want: []string{
			"fact-0001 Service mesh is Linkerd< > active",
			"fact-0002 Zeta queue retries five times< >fact-0004 superseded",
			"fact-0003 Alpha service owns user profiles< > active",
			"fact-0004 Zeta queue retries five times<fact-0002 > active",
		}},
		{name: "up renumbered zeta, merge committed", renumber: "Zeta queue retries five times", commit: true, wantErr: facts.ErrAmbiguousLink},
		{name: "up renumbered zeta, merge in progress", renumber: "Zeta queue retries five times", wantErr: facts.ErrAmbiguousLink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := gittest.New(t)
			p1, f1 := factFile("fact-0001", "Service mesh is Linkerd", "2026-01-01")
			r.Write(p1, f1)
			pz, fz := factFile("fact-0002", "Zeta queue retries five times", "2026-01-02")
			r.Write(pz, fz)
			r.CommitAll("zeta")
			r.Git("branch", "up")

			pc, fc := factFile("fact-0003", "Zeta queue retries five times", "2026-01-03", func(f *facts.Fact) {
				f.Supersedes, f.Body = "fact-0002", "Retries: five, with backoff."
			})
			r.Write(pc, fc)
			_, fz = factFile("fact-0002", "Zeta queue retries five times", "2026-01-02", func(f *facts.Fact) {
				f.SupersededBy, f.Status = "fact-0003", facts.Superseded
			})
			r.Write(pz, fz)
			r.CommitAll("main: zeta superseded")

			r.Git("checkout", "-q", "up")
			pa, fa := factFile("fact-0002", "Alpha service owns user profiles", "2026-01-02")
			r.Write(pa, fa)
			r.CommitAll("up: alpha")
			old, _ := factFile("fact-0002", tt.renumber, "2026-01-02")
			r.Remove(old)
			r.Write(factFile("fact-0003", tt.renumber, "2026-01-02"))
			r.CommitAll("up: doctor --fix")

			r.Git("checkout", "-q", "main")
			r.Git("branch", "-q", "-u", "up")
			_, mergeErr := r.TryGit("merge", "-q", "--no-edit", "up")
			if tt.commit && mergeErr != nil {
				r.CommitAll("merge up, markers and all")
			}

			before := memoryFiles(t, r.Dir)
			_, err := doctor.Fix(ctx, doctor.Env{Project: open(t, r.Dir, project.Source{}), Now: clock})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Fix: %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if diff := cmp.Diff(before, memoryFiles(t, r.Dir)); diff != "" {
					t.Errorf("a refused fix changed memory (-before +after):\n%s", diff)
				}
				return
			}
			all, err := facts.OpenDir(r.Dir, facts.Options{}).List(ctx, facts.ListOptions{All: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range all {
				got = append(got, fmt.Sprintf("%s %s<%s >%s %s", f.ID, f.Title, f.Supersedes, f.SupersededBy, f.Status))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("facts after --fix (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFixLinkWrittenByHand: a supersedes link written by hand since the
// last commit, naming an id one fact has, outside any merge, is that
// fact's: --fix writes its other end. Git history, which has no word on
// an uncommitted link, refused it, and the pre-commit hook refuses to
// commit a one-sided link, so only --no-verify got out.
func TestFixLinkWrittenByHand(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	p1, f1 := factFile("fact-0001", "Persistence uses Flyway", "2026-01-02")
	p2, f2 := factFile("fact-0002", "Persistence uses Liquibase now", "2026-01-03")
	r.Write(p1, f1)
	r.Write(p2, f2)
	r.CommitAll("two facts")
	_, f2 = factFile("fact-0002", "Persistence uses Liquibase now", "2026-01-03", func(f *facts.Fact) { f.Supersedes = "fact-0001" })
	r.Write(p2, f2)
	if _, err := doctor.Fix(context.Background(), doctor.Env{Project: open(t, r.Dir, project.Source{}), Now: clock}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(p1)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := facts.Parse(p1, data)
	if err != nil || f.SupersededBy != "fact-0002" || f.Status != facts.Superseded {
		t.Errorf("fact-0001 after --fix: supersededBy %q, status %q, %v; want fact-0002, superseded", f.SupersededBy, f.Status, err)
	}
}

// memoryFiles returns the content of every file of the memory folder in
// dir, by name, but for the lock file (gitignored, kept by design).
func memoryFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(facts.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		if e.Name() == ".lock" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(facts.Dir), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}
