package facts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// mergedFacts is what a git merge of two branches gives when both wrote
// fact-0016 from fact-0015: ours a new fact, theirs one superseding fact-0009.
func mergedFacts() []Fact {
	return []Fact{
		{ID: "fact-0009", Type: Decision, Title: "Cache is Redis", Body: "b", Created: "2025-01-01", Status: Superseded, SupersededBy: "fact-0016", Path: ".foundry/memory/fact-0009-cache-is-redis.md"},
		{ID: "fact-0015", Type: Domain, Title: "Orders have lines", Body: "b", Created: "2025-01-02", Status: Active, Path: ".foundry/memory/fact-0015-orders-have-lines.md"},
		{ID: "fact-0016", Type: Domain, Title: "Invoices are monthly", Body: "b", Created: "2025-02-01", Status: Active, Path: ".foundry/memory/fact-0016-invoices-are-monthly.md"},
		{ID: "fact-0016", Type: Decision, Title: "Cache is Valkey", Body: "b", Created: "2025-02-03", Status: Active, Supersedes: "fact-0009", Path: ".foundry/memory/fact-0016-cache-is-valkey.md"},
	}
}

func factFilesOf(fs []Fact) []file {
	var out []file
	for _, f := range fs {
		out = append(out, file{path: f.Path, data: Format(f)})
	}
	return out
}

func TestPlanRenumbers(t *testing.T) {
	t.Parallel()
	p, err := plan(factFilesOf(mergedFacts()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range p.versions {
		if v.changed() {
			got = append(got, v.out.ID+" "+v.out.Path+" supersedes="+v.out.Supersedes+" by="+v.out.SupersededBy+" from="+v.f.Path)
		}
	}
	want := []string{
		"fact-0009 .foundry/memory/fact-0009-cache-is-redis.md supersedes= by=fact-0017 from=.foundry/memory/fact-0009-cache-is-redis.md",
		"fact-0017 .foundry/memory/fact-0017-cache-is-valkey.md supersedes=fact-0009 by= from=.foundry/memory/fact-0016-cache-is-valkey.md",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	p, err = plan(factFilesOf(mergedFacts()[1:3]), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range p.versions {
		if v.changed() {
			t.Errorf("no duplicates, yet %s changes", v.f.Path)
		}
	}
}

func TestStoreRepair(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, _ := newTestStore(t)
	for _, f := range mergedFacts() {
		testenv.WriteFile(t, root, f.Path, string(Format(f)))
	}
	res, err := s.Repair(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done := res.Renumbered; len(done) != 1 || done[0].NewID != "fact-0017" {
		t.Fatalf("Repair = %+v", res)
	}
	files := factFiles(t, root)
	want := []string{"fact-0009-cache-is-redis.md", "fact-0015-orders-have-lines.md", "fact-0016-invoices-are-monthly.md", "fact-0017-cache-is-valkey.md"}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if got := readFile(t, root, path.Join(Dir, "fact-0009-cache-is-redis.md")); !strings.Contains(got, "supersededBy: fact-0017") {
		t.Errorf("link not updated:\n%s", got)
	}
	idx := readFile(t, root, IndexPath)
	fresh, _ := s.Index(ctx)
	if idx != string(fresh.Content) || !strings.Contains(idx, "fact-0017") {
		t.Errorf("index not rebuilt:\n%s", idx)
	}
	if res, err := s.Repair(ctx, nil); err != nil || res.Changed() {
		t.Errorf("second fix: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".foundry/memory/fact-0016-cache-is-valkey.md")); !os.IsNotExist(err) {
		t.Errorf("old file still present: %v", err)
	}
}

// A fact file that cannot be parsed still holds its id: renumbering must not
// hand that id to another fact (ids are never reused within a branch).
func TestStoreRepairSkipsIDsOfMalformedFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, _ := newTestStore(t)
	for _, f := range mergedFacts() {
		testenv.WriteFile(t, root, f.Path, string(Format(f)))
	}
	testenv.WriteFile(t, root, path.Join(Dir, "fact-0017-broken.md"), "---\nid: [broken\n")
	res, err := s.Repair(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done := res.Renumbered; len(done) != 1 || done[0].NewID != "fact-0018" {
		t.Fatalf("Repair = %+v, want fact-0016 renumbered to fact-0018", res)
	}
}

// A fact file with conflict markers is never served: search, list and get
// skip it with a warning naming the file and the line, and its markers
// reach no reader.
func TestStoreSkipsConflictedFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, warn := newTestStore(t)
	clean := Fact{ID: "fact-0001", Type: Domain, Title: "Deploys run on Fridays", Body: "Deploys run on Fridays.", Created: "2026-01-01", Status: Active}
	testenv.WriteFile(t, root, path.Join(Dir, "fact-0001-deploys-run-on-fridays.md"), string(Format(clean)))
	testenv.WriteFile(t, root, path.Join(Dir, "fact-0002-deploys-run-on-thursdays.md"), "---\nid: fact-0002\ntype: domain\ntitle: Deploys run on Thursdays\n---\n"+
		"<<<<<<< HEAD\nDeploys run on Thursdays.\n=======\nDeploys run Monday to Thursday.\n>>>>>>> topic\n")
	res, err := s.Search(ctx, Query{Text: "deploys thursdays"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.ID == "fact-0002" || strings.Contains(h.Body, "<<<<<<<") {
			t.Errorf("search served the conflicted fact: %+v", h)
		}
	}
	all, err := s.List(ctx, ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].ID != "fact-0001" {
		t.Errorf("list = %+v, want fact-0001 alone", all)
	}
	if _, err := s.Get(ctx, "fact-0002"); !errors.Is(err, ErrNotFound) {
		t.Errorf("get fact-0002: %v, want not found", err)
	}
	if want := "warning: skip fact file .foundry/memory/fact-0002-deploys-run-on-thursdays.md:6: unresolved git conflict markers (<<<<<<< at line 6, >>>>>>> at line 10)"; !strings.Contains(warn.String(), want) {
		t.Errorf("warnings %q lack %q", warn.String(), want)
	}
	problems, err := s.Problems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !errors.Is(problems[0], ErrConflict) {
		t.Errorf("problems = %v, want one matching ErrConflict", problems)
	}
}

// Repair splits a conflicted fact into the facts of both sides, chained,
// and without history the markers give the sides.
func TestStoreRepairSplitsConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, _ := newTestStore(t)
	base := Fact{ID: "fact-0001", Type: Domain, Title: "Deploys run on Fridays", Body: "Deploys run on Fridays.", Created: "2026-01-01", Status: Superseded, SupersededBy: "fact-0002"}
	testenv.WriteFile(t, root, path.Join(Dir, "fact-0001-deploys-run-on-fridays.md"), string(Format(base)))
	testenv.WriteFile(t, root, path.Join(Dir, "fact-0002-deploys-run-on-fridays.md"), "---\nid: fact-0002\ntype: domain\ntitle: Deploys run on Fridays\nscope: project\n"+
		"created: 2026-01-02\nsupersedes: fact-0001\nstatus: active\n---\n"+
		"<<<<<<< HEAD\nDeploys run on Thursdays.\n=======\nDeploys run Monday to Thursday.\n>>>>>>> topic\n")
	res, err := s.Repair(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Split{{Path: Dir + "/fact-0002-deploys-run-on-fridays.md", IDs: []string{"fact-0002", "fact-0003"},
		Paths: []string{Dir + "/fact-0002-deploys-run-on-fridays.md", Dir + "/fact-0003-deploys-run-on-fridays.md"}}}
	if diff := cmp.Diff(want, res.Splits); diff != "" {
		t.Fatalf("splits (-want +got):\n%s", diff)
	}
	all, err := s.List(ctx, ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range all {
		got = append(got, fmt.Sprintf("%s %s<%s >%s %s", f.ID, f.Body, f.Supersedes, f.SupersededBy, f.Status))
	}
	wantFacts := []string{
		"fact-0001 Deploys run on Fridays.< >fact-0002 superseded",
		"fact-0002 Deploys run on Thursdays.<fact-0001 >fact-0003 superseded",
		"fact-0003 Deploys run Monday to Thursday.<fact-0002 > active",
	}
	if diff := cmp.Diff(wantFacts, got); diff != "" {
		t.Errorf("facts after the repair (-want +got):\n%s", diff)
	}
}
