package doctor_test

// This file defines the randomised test of memory across branches: several
// branches write and supersede facts and merge in random orders, through the
// INDEX.md merge driver, committing conflicted merges with their markers;
// doctor --fix must then leave every fact's text, unique ids, chains that
// agree at both ends and an exact INDEX.md.

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/project"
)

var (
	mergeSeeds = flag.Int("merge-seeds", 0, "seeds of TestRandomBranchesMerge; 0: 300 when CI is set without -race, 50 otherwise, 10 with -short (-merge-seeds=5000 for a long run)")
	mergeSeed  = flag.Int64("merge-seed", -1, "run TestRandomBranchesMerge for this seed only")
)

// envMergeDriver makes the test binary the INDEX.md merge driver: git runs
// it with the three versions, as it runs foundry hook merge-index.
const envMergeDriver = "FOUNDRY_TEST_MERGE_DRIVER"

func TestMain(m *testing.M) {
	if os.Getenv(envMergeDriver) != "" {
		if len(os.Args) < 4 {
			os.Exit(2)
		}
		if err := hooks.MergeIndexFiles("", os.Args[1], os.Args[2], os.Args[3], 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRandomBranchesMerge(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Each seed runs some sixty git commands: CI runs a few hundred seeds,
	// a shared development machine fewer, so the suite stays quick there.
	// Under the race detector (scripts/test) CI runs the developer's
	// count too: 300 seeds there outlast go test's 10-minute timeout.
	n := *mergeSeeds
	switch {
	case n > 0:
	case testing.Short():
		n = 10
	case testenv.Required() && !testenv.Race:
		n = 300
	default:
		n = 50
	}
	var seeds []int64
	if *mergeSeed >= 0 {
		seeds = append(seeds, *mergeSeed)
	} else {
		for s := range n {
			seeds = append(seeds, int64(s))
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			mergeScenario(t, exe, seed)
		})
	}
}

// names are the services facts talk about: few, so branches write the same
// titles and supersede the same facts.
var names = []string{"orders", "billing", "search", "auth", "mail", "ledger"}

// scenario is one randomised history.
type scenario struct {
	t      *testing.T
	r      *gittest.Repo
	rng    *rand.Rand
	writes int
	bodies []string // every body written, on any branch
	cur    string   // checked-out branch
}

func (s *scenario) checkout(b string) {
	if s.cur != b {
		s.r.Git("checkout", "-q", b)
		s.cur = b
	}
}

func (s *scenario) store() *facts.Store {
	n := s.writes
	day := time.Date(2026, 1, 1+n/3, 0, 0, 0, 0, time.UTC)
	return facts.OpenDir(s.r.Dir, facts.Options{Now: func() time.Time { return day }})
}

// write writes one fact on the current branch: a new title, a title already
// there (which supersedes its fact), or an explicit supersedes of an active
// fact.
func (s *scenario) write(ctx context.Context) {
	st := s.store()
	s.writes++
	body := fmt.Sprintf("Body %d, written on %s.", s.writes, s.cur)
	req := facts.WriteRequest{Type: facts.Domain, Title: fmt.Sprintf("Service %s keeps its state on disk", names[s.rng.IntN(len(names))]), Body: body}
	if s.rng.IntN(3) == 0 {
		active, err := st.List(ctx, facts.ListOptions{})
		if err != nil {
			s.t.Fatal(err)
		}
		if len(active) > 0 {
			req.Supersedes = active[s.rng.IntN(len(active))].ID
			req.Title = fmt.Sprintf("Service %s keeps its state in memory %d", names[s.rng.IntN(len(names))], s.writes)
		}
	}
	res, err := st.Write(ctx, req)
	if err != nil {
		s.t.Logf("write %+v: %v", req, err)
		return // a rule refused it (a duplicate id it would supersede, say): nothing written
	}
	if res.Action == facts.Created {
		s.bodies = append(s.bodies, body)
		s.commit("write " + res.ID + " on " + s.cur)
	}
}

// merge merges branch from into the current branch; a conflicted merge is
// committed with its markers, as a hurried team would.
func (s *scenario) merge(from string) {
	if _, err := s.r.TryGit("merge", "-q", "--no-edit", from); err != nil {
		s.commit("merge " + from + " with conflicts")
	}
}

// commit stages everything and commits it, each commit a minute after the
// one before, so history has an order.
func (s *scenario) commit(msg string) { s.r.CommitAll(msg) }

func mergeScenario(t *testing.T, exe string, seed int64) {
	ctx := context.Background()
	s := &scenario{t: t, r: gittest.New(t), rng: rand.New(rand.NewPCG(uint64(seed), 15)), cur: "main"}
	s.r.Git("config", "merge."+hooks.DriverName+".driver", envMergeDriver+"=1 '"+exe+"' %O %A %B")
	s.r.Write(".gitattributes", hooks.AttributesLine+"\n")
	for range 2 {
		s.write(ctx)
	}
	s.commit("base")

	const n = 4
	branches := []string{"main"}
	for i := range n {
		b := fmt.Sprintf("b%d", i)
		s.r.Git("branch", b, branches[s.rng.IntN(len(branches))])
		branches = append(branches, b)
	}
	for range 8 + s.rng.IntN(6) {
		b := branches[s.rng.IntN(len(branches))]
		s.checkout(b)
		if s.rng.IntN(4) == 0 {
			if from := branches[s.rng.IntN(len(branches))]; from != b {
				s.merge(from)
				continue
			}
		}
		s.write(ctx)
	}
	s.checkout("main")
	rest := slices.Clone(branches[1:])
	s.rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	for _, b := range rest {
		s.merge(b)
	}

	p, err := project.OpenLenient(s.r.Dir, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	env := doctor.Env{Project: p, NoHistory: true}
	if _, err := doctor.Fix(ctx, env); err != nil {
		t.Fatalf("seed %d: doctor --fix: %v\n%s", seed, err, s.r.Git("log", "--graph", "--oneline", "--all"))
	}
	rep, err := doctor.Run(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity != doctor.Info && (strings.HasPrefix(f.Check, "facts.") || f.Check == doctor.CheckConflicts) {
			t.Errorf("seed %d: after --fix: %s %s:%d: %s", seed, f.Check, f.File, f.Line, f.Message)
		}
	}
	all, err := facts.OpenDir(s.r.Dir, facts.Options{}).List(ctx, facts.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range all {
		have[f.Body] = true
	}
	for _, b := range s.bodies {
		if !have[b] {
			t.Errorf("seed %d: lost the fact %q", seed, b)
		}
	}
	idx, err := facts.OpenDir(s.r.Dir, facts.Options{}).Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(s.r.Dir, filepath.FromSlash(facts.IndexPath)))
	if err != nil || string(onDisk) != string(idx.Content) {
		t.Errorf("seed %d: INDEX.md is not a fresh memory index (%v)", seed, err)
	}
	if t.Failed() {
		t.Logf("history:\n%s", s.r.Git("log", "--graph", "--oneline", "--all"))
	}
}
