package facts

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

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

func TestRenumber(t *testing.T) {
	t.Parallel()
	in := mergedFacts()
	changes, renumbered := Renumber(in)
	wantR := []Renumbering{{OldID: "fact-0016", NewID: "fact-0017", OldPath: ".foundry/memory/fact-0016-cache-is-valkey.md", NewPath: ".foundry/memory/fact-0017-cache-is-valkey.md"}}
	if diff := cmp.Diff(wantR, renumbered); diff != "" {
		t.Errorf("renumbered (-want +got):\n%s", diff)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Fact.ID+" "+c.Fact.Path+" supersedes="+c.Fact.Supersedes+" by="+c.Fact.SupersededBy+" from="+c.OldPath)
	}
	want := []string{
		"fact-0009 .foundry/memory/fact-0009-cache-is-redis.md supersedes= by=fact-0017 from=",
		"fact-0017 .foundry/memory/fact-0017-cache-is-valkey.md supersedes=fact-0009 by= from=.foundry/memory/fact-0016-cache-is-valkey.md",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if !cmp.Equal(in, mergedFacts()) {
		t.Error("Renumber modified its input")
	}
	if c, r := Renumber(in[:3]); len(c) != 0 || len(r) != 0 {
		t.Errorf("no duplicates: %v %v", c, r)
	}
}

func TestStoreFixDuplicateIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, _ := newTestStore(t)
	for _, f := range mergedFacts() {
		writeFile(t, root, f.Path, string(Format(f)))
	}
	done, err := s.FixDuplicateIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done[0].NewID != "fact-0017" {
		t.Fatalf("FixDuplicateIDs = %+v", done)
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
	if done, err := s.FixDuplicateIDs(ctx); err != nil || len(done) != 0 {
		t.Errorf("second fix: %v %v", done, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".foundry/memory/fact-0016-cache-is-valkey.md")); !os.IsNotExist(err) {
		t.Errorf("old file still present: %v", err)
	}
}

// A fact file that cannot be parsed still holds its id: renumbering must not
// hand that id to another fact (ids are never reused within a branch).
func TestStoreFixDuplicateIDsSkipsIDsOfMalformedFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, _ := newTestStore(t)
	for _, f := range mergedFacts() {
		writeFile(t, root, f.Path, string(Format(f)))
	}
	writeFile(t, root, path.Join(Dir, "fact-0017-broken.md"), "---\nid: [broken\n")
	done, err := s.FixDuplicateIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done[0].NewID != "fact-0018" {
		t.Fatalf("FixDuplicateIDs = %+v, want fact-0016 renumbered to fact-0018", done)
	}
}
