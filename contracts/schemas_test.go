package contracts_test

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/schemas"
)

// seedRequired is the seed's table of contracts: the fields each requires
// beyond schema and producedBy.
var seedRequired = map[string][]string{
	"adr.v1":              {"number", "title", "status", "date", "context", "options", "decision"},
	"compliance-check.v1": {"controlId", "jurisdiction", "instrument", "requirement", "status", "rationale", "assessedOn", "disclaimer"},
	"estimate.v1":         {"scope", "items", "assumptions"},
	"fact.v1":             {"id", "type", "scope", "title", "body", "confidence", "source", "created"},
	"finding.v1":          {"id", "severity", "title", "summary", "failureScenario", "confidence"},
	"handoff.v1":          {"wave", "status", "artifacts", "summary"},
	"plan.v1":             {"goal", "waves"},
	"requirement.v1":      {"id", "kind", "title", "acceptanceCriteria", "priority"},
	"review.v1":           {"target", "dimension", "verdict", "findings", "summary"},
	"risk.v1":             {"id", "title", "category", "probability", "impactEur", "mitigation", "owner", "status"},
	"tracker-item.v1":     {"provider", "sourceId", "title", "type", "state", "nativeState"},
}

func TestRegistryIDs(t *testing.T) {
	t.Parallel()
	r, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for id := range seedRequired {
		want = append(want, id)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, r.IDs()); diff != "" {
		t.Errorf("IDs (-want +got):\n%s", diff)
	}
	for _, id := range want {
		if !r.Has(id) || !r.Embedded(id) {
			t.Errorf("%s: Has = %v, Embedded = %v, want true, true", id, r.Has(id), r.Embedded(id))
		}
	}
	for _, id := range []string{"evidence.v1", "actor.v1", "finding.v2", ""} {
		if r.Has(id) || r.Embedded(id) {
			t.Errorf("%q: Has or Embedded is true, want false", id)
		}
	}
}

// TestSchemasShape checks the rules every embedded contract follows: it
// requires schema (a const of its own id), producedBy and exactly the
// seed's fields, sets additionalProperties false on every object it
// declares, and describes every property.
func TestSchemasShape(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(schemas.FS, "*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := fs.ReadFile(schemas.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if got := doc["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
				t.Errorf("$schema = %v, want 2020-12", got)
			}
			if got := doc["$id"]; got != name {
				t.Errorf("$id = %v, want %q (its file name)", got, name)
			}
			if d, _ := doc["description"].(string); d == "" {
				t.Error("no description")
			}
			walkDeclared(t, "#", doc)
			id, ok := strings.CutSuffix(name, ".schema.json")
			if !ok {
				return // a shared piece
			}
			props, _ := doc["properties"].(map[string]any)
			schemaProp, _ := props["schema"].(map[string]any)
			if schemaProp["const"] != id {
				t.Errorf("properties.schema.const = %v, want %q", schemaProp["const"], id)
			}
			var required []string
			for _, r := range doc["required"].([]any) {
				required = append(required, r.(string))
			}
			want := append([]string{"schema", "producedBy"}, seedRequired[id]...)
			if diff := cmp.Diff(want, required); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
		})
	}
}

// walkDeclared visits the schemas that declare the document's shape (the
// root, properties, items, $defs), not the conditional ones (if/then/else),
// which only add constraints to properties declared elsewhere.
func walkDeclared(t *testing.T, at string, s map[string]any) {
	t.Helper()
	isObject := s["type"] == "object" || s["properties"] != nil
	if isObject && s["additionalProperties"] != false {
		t.Errorf("%s: object without additionalProperties: false", at)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			ps := p.(map[string]any)
			if d, _ := ps["description"].(string); d == "" {
				t.Errorf("%s/properties/%s: no description", at, name)
			}
			walkDeclared(t, at+"/properties/"+name, ps)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkDeclared(t, at+"/items", items)
	}
	if defs, ok := s["$defs"].(map[string]any); ok {
		for name, d := range defs {
			walkDeclared(t, at+"/$defs/"+name, d.(map[string]any))
		}
	}
}
