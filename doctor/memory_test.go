package doctor_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
	"github.com/google/go-cmp/cmp"
)

// bigFacts commits n facts of about size bytes each (words of random
// letters) to a new repository and returns it.
func bigFacts(tb testing.TB, n, size int) *gittest.Repo {
	tb.Helper()
	r := gittest.New(tb)
	rng := rand.New(rand.NewPCG(13, 3))
	var body strings.Builder
	for i := 1; i <= n; i++ {
		body.Reset()
		for body.Len() < size {
			for range 3 + rng.IntN(8) {
				body.WriteByte(byte('a' + rng.IntN(26)))
			}
			body.WriteByte(' ')
		}
		title := fmt.Sprintf("Big fact %d", i)
		p, content := factFile(facts.FormatID(i), title, "2026-01-01", func(f *facts.Fact) { f.Body = body.String() })
		r.Write(p, content)
	}
	r.CommitAll("big facts")
	return r
}

// liveProbe is a project's fs.FS that measures the live heap (after a
// collection) every few fact files read: what a sweep holds while it runs,
// however short its peak.
type liveProbe struct {
	fs.FS
	every  int
	prefix string // of the files whose reads (or stats) are counted; facts' by default

	mu    sync.Mutex
	reads int
	peak  uint64
}

func (p *liveProbe) ReadFile(name string) ([]byte, error) {
	data, err := fs.ReadFile(p.FS, name)
	p.count(name)
	return data, err
}

// Stat counts too: the blackboard sweep stats each artifact before it
// reads it.
func (p *liveProbe) Stat(name string) (fs.FileInfo, error) {
	p.count(name)
	return fs.Stat(p.FS, name)
}

func (p *liveProbe) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(p.FS, name) }

// count samples the live heap every p.every counted names.
func (p *liveProbe) count(name string) {
	prefix := p.prefix
	if prefix == "" {
		prefix = facts.Dir + "/fact-"
	}
	if !strings.HasPrefix(name, prefix) {
		return
	}
	p.mu.Lock()
	if p.reads++; p.reads%p.every == 0 {
		p.sample()
	}
	p.mu.Unlock()
}

// sample records the live heap; p.mu is held.
func (p *liveProbe) sample() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.peak = max(p.peak, ms.HeapAlloc)
}

// sweepGrowth runs doctor (no history) on p through a liveProbe counting
// the files under prefix ("" for facts) and returns the report, the files
// counted and how far the live heap grew above where it started.
func sweepGrowth(t *testing.T, p *project.Project, prefix string) (*doctor.Report, int, int64) {
	t.Helper()
	probe := &liveProbe{FS: p.FS, every: 50, prefix: prefix}
	p.FS = probe
	probe.mu.Lock()
	probe.sample()
	base := probe.peak
	probe.peak = 0
	probe.mu.Unlock()
	rep, err := doctor.Run(context.Background(), doctor.Env{Project: p, Now: clock, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	grew := int64(probe.peak) - int64(base)
	t.Logf("live heap grew by %.1f MiB", float64(grew)/(1<<20))
	return rep, probe.reads, grew
}

// TestRunHoldsOneFactAtATime is the memory bound of issue 13: doctor over
// facts whose bodies total more than the bound, in the working tree and at
// a revision, holds their metadata, never every body. A store holding
// every fact kept 13.1 MiB here in the working tree, and 25.5 MiB at a
// revision while git's object cache kept every blob too.
func TestRunHoldsOneFactAtATime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12 MB repository")
	}
	const n, size = 400, 30_000 // 11.4 MiB of bodies
	r := bigFacts(t, n, size)
	const bound = 4 << 20
	for _, src := range []project.Source{{}, {Rev: "HEAD"}} {
		t.Run(fmt.Sprintf("rev=%q", src.Rev), func(t *testing.T) {
			rep, reads, grew := sweepGrowth(t, open(t, r.Dir, src), "")
			if got := rep.FindingsOf(doctor.CheckFactsParse); len(got) != 0 {
				t.Fatalf("parse findings: %+v", got)
			}
			if reads < n {
				t.Fatalf("%d fact files read; want at least %d", reads, n)
			}
			if grew > bound {
				t.Errorf("live heap grew by %.1f MiB during the sweep of %d facts of %d bytes (%.1f MiB); want at most %d MiB",
					float64(grew)/(1<<20), n, size, float64(n*size)/(1<<20), bound>>20)
			}
		})
	}
}

// TestSweepHoldsNoArtifact checks that the blackboard sweep keeps what it
// found in an artifact, not the artifact: the results of 300 artifacts of
// 40 KB each that fail their contract were all held until the history
// pass (which now reads again those it explains), and so were 300 with
// conflict markers until the sweep ended.
func TestSweepHoldsNoArtifact(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 12 MB of artifacts")
	}
	const n, size, bound = 300, 40_000, 4 << 20
	summary := strings.Repeat("a long summary ", size/15)
	side := strings.Repeat("a long line of one side\n", size/48)
	for _, tc := range []struct {
		name, check string
		doc         func(i int) string
	}{
		{"invalid", doctor.CheckBlackboardValid, func(i int) string {
			// No failureScenario: each fails finding.v1.
			return fmt.Sprintf(`{"schema": "finding.v1", "producedBy": "x", "id": "F-%d", "severity": "high", "title": "t", "summary": %q, "confidence": "high"}`, i, summary)
		}},
		{"conflicted", doctor.CheckConflicts, func(int) string {
			return "<<<<<<< ours\n" + side + "=======\n" + side + ">>>>>>> theirs\n"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{".foundry/config.yaml": ""}
			for i := range n {
				files[fmt.Sprintf(".foundry/blackboard/w/a-%04d.json", i)] = tc.doc(i)
			}
			writeFiles(t, dir, files)
			rep, _, grew := sweepGrowth(t, open(t, dir, project.Source{}), ".foundry/blackboard/")
			if got := len(rep.FindingsOf(tc.check)); got < n {
				t.Fatalf("%d %s findings; want at least %d", got, tc.check, n)
			}
			if grew > bound {
				t.Errorf("live heap grew by %.1f MiB during a sweep of %d artifacts of %d bytes; want at most %d MiB",
					float64(grew)/(1<<20), n, size, bound>>20)
			}
		})
	}
}

// BenchmarkRunBigFacts runs doctor over 600 facts of 60 KB each, in the
// working tree and at --rev HEAD, and reports the peak live heap a sweep
// reached (sampled after a collection every 200 fact files, which the
// time includes) as live-B.
func BenchmarkRunBigFacts(b *testing.B) {
	const n, size = 600, 60_000
	r := bigFacts(b, n, size)
	for _, bc := range sweepSources {
		b.Run(bc.name, func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				p, err := project.OpenLenient(r.Dir, bc.src)
				if err != nil {
					b.Fatal(err)
				}
				probe := &liveProbe{FS: p.FS, every: 200}
				p.FS = probe
				if _, err := doctor.Run(context.Background(), doctor.Env{Project: p, Now: clock, NoHistory: true}); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, probe.peak)
				p.Close()
			}
			b.ReportMetric(float64(peak), "live-B")
		})
	}
}

// TestStagedIndexLeftBehind: the staged check warns of facts staged
// without the INDEX.md the working tree rebuilt for them, and of nothing
// when INDEX.md is staged with them, or when the working tree's is the
// one staged (a body edited, the index unchanged).
func TestStagedIndexLeftBehind(t *testing.T) {
	t.Parallel()
	const fact = "---\nid: fact-0001\ntype: convention\nimportance: medium\ncreated: 2026-01-01\nsource: code\n---\n# Payments use the outbox\n\nAll payment events go through the outbox.\n"
	const index = "# Memory index\n\nfact-0001 listed\n"
	tests := []struct {
		name  string
		stage []string // beside the fact file
		index string   // the working tree's INDEX.md; "" none
		want  []string // messages
	}{
		{name: "fact alone, index rebuilt", index: index,
			want: []string{"facts are staged without INDEX.md, which the working tree has rebuilt for them: git add it too, or the commit's INDEX.md will not list them"}},
		{name: "fact with its index", stage: []string{".foundry/memory/INDEX.md"}, index: index},
		{name: "fact alone, the index as committed", index: "# Memory index\n"},
		{name: "fact alone, no index in the working tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write(".foundry/config.yaml", "")
			r.Write(".foundry/memory/INDEX.md", "# Memory index\n")
			r.CommitAll("init")
			r.Write(".foundry/memory/fact-0001-payments.md", fact)
			if tt.index != "" {
				r.Write(".foundry/memory/INDEX.md", tt.index)
			} else {
				r.Git("rm", "-q", ".foundry/memory/INDEX.md")
				r.Git("commit", "-q", "-m", "no index")
			}
			r.Git(append([]string{"add", ".foundry/memory/fact-0001-payments.md"}, tt.stage...)...)
			var got []string
			for _, f := range stagedCheck(t, r.Dir).Findings {
				if f.Check == doctor.CheckFactsIndex {
					got = append(got, f.Message)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("INDEX.md findings (-want +got):\n%s", diff)
			}
		})
	}
}
