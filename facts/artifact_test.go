package facts

import (
	"context"
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/foundryhq/foundry/contracts"
)

// TestArtifactIsFactV1 checks the contract between memory and the fact.v1
// schema: every fact memory_write accepts, plus schema and producedBy, is a
// valid fact.v1 artifact.
func TestArtifactIsFactV1(t *testing.T) {
	t.Parallel()
	reg, err := contracts.Load(fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	s, root, _ := newTestStore(t)
	ctx := context.Background()
	reqs := []WriteRequest{
		{Title: "Persistence layer uses Flyway, not Liquibase", Type: Decision, Body: decisionBody("Plain SQL."), Tags: []string{"db", "migrations"}, Confidence: High, Source: "adr-0007"},
		{Title: "Checkout p95 latency is 300 ms", Type: Metric, Body: "Last quarter.", Scope: "vertical:checkout", Source: "external:https://grafana.example.com/d/x", Expires: "2030-01-01"},
		{Title: "Persistence layer uses Flyway, not Liquibase", Type: Decision, Body: decisionBody("Plain SQL, again.")}, // supersedes
	}
	for _, r := range reqs {
		if _, err := s.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	_ = root
	all, err := s.RawFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("%d facts", len(all))
	}
	for _, f := range all {
		doc, err := json.Marshal(f.Artifact("memory-writer"))
		if err != nil {
			t.Fatal(err)
		}
		vs, err := reg.Validate("fact.v1", doc)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) > 0 {
			t.Errorf("%s is not a valid fact.v1 artifact: %v\n%s", f.ID, vs, doc)
		}
	}
	// And a broken one is caught, so the check is not vacuous.
	bad := all[0]
	bad.Title = ""
	doc, _ := json.Marshal(bad.Artifact("memory-writer"))
	if vs, _ := reg.Validate("fact.v1", doc); len(vs) == 0 {
		t.Error("an empty title passed fact.v1")
	}
}
