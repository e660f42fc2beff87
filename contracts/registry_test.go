package contracts_test

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/foundryhq/foundry/contracts"
)

func load(t *testing.T) *contracts.Registry {
	t.Helper()
	r, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fixture decodes a valid fixture into a map for a test to change.
func fixture(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(fixtures + "/valid/" + path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSeedErrorTable reproduces each row of the seed's error table
// exactly, through both entry points.
func TestSeedErrorTable(t *testing.T) {
	t.Parallel()
	r := load(t)
	tests := []struct {
		name   string
		id     string
		base   string
		change func(m map[string]any)
		want   string
	}{
		{"missing required", "finding.v1", "finding.v1/seed-example.json",
			func(m map[string]any) { delete(m, "failureScenario") },
			`#: missing required property "failureScenario"`},
		{"unexpected property", "finding.v1", "finding.v1/seed-example.json",
			func(m map[string]any) { m["notes"] = "see summary" },
			`#: unexpected property "notes"`},
		{"enum", "finding.v1", "finding.v1/seed-example.json",
			func(m map[string]any) { m["severity"] = "High" },
			`#/severity: must be one of ["critical","high","medium","low","info"]`},
		{"maxLength", "finding.v1", "finding.v1/seed-example.json",
			func(m map[string]any) { m["title"] = strings.Repeat("t", 121) },
			`#/title: longer than 120 characters`},
		{"minItems", "adr.v1", "adr.v1/minimal.json",
			func(m map[string]any) { m["options"] = m["options"].([]any)[:1] },
			`#/options: needs at least 2 items`},
		{"nested required", "finding.v1", "finding.v1/seed-example.json",
			func(m map[string]any) { m["evidence"] = []any{map[string]any{"kind": "file"}} },
			`#/evidence/0: missing required property "ref"`},
		{"nested enum", "finding.v1", "finding.v1/seed-example.json",
			func(m map[string]any) {
				m["evidence"] = []any{
					map[string]any{"kind": "file", "ref": "a.go"},
					map[string]any{"kind": "command", "ref": "go test"},
					map[string]any{"kind": "screenshot", "ref": "x.png"},
				}
			},
			`#/evidence/2/kind: must be one of ["file","command","url","standard","measurement"]`},
		{"format date", "adr.v1", "adr.v1/minimal.json",
			func(m map[string]any) { m["date"] = "2025-06-31" },
			`#/date: is not a valid date`},
		{"maximum", "risk.v1", "risk.v1/provider.json",
			func(m map[string]any) { m["probability"] = 1.5 },
			`#/probability: above maximum 1`},
		{"const", "finding.v1", "finding.v1/seed-example.json",
			func(m map[string]any) { m["schema"] = "risk.v1" },
			`#/schema: must equal "finding.v1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := fixture(t, tt.base)
			tt.change(m)
			vs, err := r.ValidateValue(tt.id, m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.want}, strings_(vs)); diff != "" {
				t.Errorf("ValidateValue (-want +got):\n%s", diff)
			}
			doc, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			vs, err = r.Validate(tt.id, doc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.want}, strings_(vs)); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			if len(vs) == 1 && (vs[0].Line == 0 || vs[0].Column == 0) {
				t.Errorf("Validate: no position in %+v", vs[0])
			}
		})
	}
}

func strings_(vs []contracts.Violation) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

// TestFactFileMapsToFact checks that a fact file (YAML front matter plus
// body), given schema and producedBy, is a valid fact.v1 artifact.
func TestFactFileMapsToFact(t *testing.T) {
	t.Parallel()
	const file = `---
id: fact-0007
type: convention
scope: module:billing
title: Money amounts are integers in cents
confidence: high
source: ADR-0011
created: "2025-03-14"
tags: [money, billing]
expires: "2026-03-14"
supersedes: fact-0003
status: active
---
Never use floating point for money: store and compute amounts as int64 cents.
`
	front, body, ok := strings.Cut(strings.TrimPrefix(file, "---\n"), "\n---\n")
	if !ok {
		t.Fatal("no front matter")
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(front), &m); err != nil {
		t.Fatal(err)
	}
	m["body"] = strings.TrimSpace(body)
	m["schema"] = "fact.v1"
	m["producedBy"] = "memory-curator"
	vs, err := load(t).ValidateValue("fact.v1", m)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 {
		t.Errorf("fact file is not a valid fact.v1: %v", vs)
	}
}

func TestValidateErrors(t *testing.T) {
	t.Parallel()
	r := load(t)
	tests := []struct {
		name    string
		id      string
		doc     string
		wantErr string
		wantIs  error
		wantPos [2]int
	}{
		{"unknown contract", "finding.v9", `{}`,
			`unknown contract "finding.v9" (available: adr.v1, compliance-check.v1, estimate.v1, fact.v1, finding.v1, handoff.v1, plan.v1, requirement.v1, review.v1, risk.v1, tracker-item.v1)`,
			contracts.ErrUnknownContract, [2]int{}},
		{"syntax error", "finding.v1", "{\n  \"a\": 1,\n  \"b\": }", `not parseable JSON at 3:8: invalid character '}' looking for beginning of value`, nil, [2]int{3, 8}},
		{"truncated", "finding.v1", "{\"a\": [1, 2", `not parseable JSON at 1:12: unexpected end of JSON input`, nil, [2]int{1, 12}},
		{"empty", "finding.v1", "", `not parseable JSON at 1:1: unexpected end of JSON input`, nil, [2]int{1, 1}},
		{"trailing data", "finding.v1", "{}\n{}", `not parseable JSON at 2:1: invalid character '{' after top-level value`, nil, [2]int{2, 1}},
		{"column counts characters", "finding.v1", `{"é": x}`, `not parseable JSON at 1:7: invalid character 'x' looking for beginning of value`, nil, [2]int{1, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := r.Validate(tt.id, []byte(tt.doc))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
			var pe *contracts.ParseError
			if tt.wantIs == nil {
				if !errors.As(err, &pe) {
					t.Fatalf("error %T is not a *ParseError", err)
				}
				if got := [2]int{pe.Line, pe.Column}; got != tt.wantPos {
					t.Errorf("position = %v, want %v", got, tt.wantPos)
				}
			}
		})
	}
}

func TestValidateAuto(t *testing.T) {
	t.Parallel()
	r := load(t)
	id, vs, err := r.ValidateAuto([]byte(`{"schema": "risk.v1", "producedBy": "x"}`))
	if err != nil || id != "risk.v1" || len(vs) == 0 {
		t.Errorf("ValidateAuto = %q, %v, %v; want risk.v1 with violations", id, vs, err)
	}
	for _, doc := range []string{`{"producedBy": "x"}`, `{"schema": 1}`, `[1]`} {
		_, _, err := r.ValidateAuto([]byte(doc))
		if !errors.Is(err, contracts.ErrNoSchemaField) || !strings.Contains(err.Error(), "adr.v1, compliance-check.v1") {
			t.Errorf("ValidateAuto(%s) error = %v, want ErrNoSchemaField listing the contracts", doc, err)
		}
	}
	if _, _, err := r.ValidateAuto([]byte(`{"schema": "nope.v1"}`)); !errors.Is(err, contracts.ErrUnknownContract) {
		t.Errorf("unknown id: error = %v", err)
	}
	var pe *contracts.ParseError
	if _, _, err := r.ValidateAuto([]byte(`{"schema": `)); !errors.As(err, &pe) {
		t.Errorf("bad JSON: error = %v, want *ParseError", err)
	}
}

func TestSchemaField(t *testing.T) {
	t.Parallel()
	tests := []struct{ doc, want string }{
		{`{"schema": "finding.v1", "x": [1]}`, "finding.v1"},
		{`{"Schema": "finding.v1"}`, ""},
		{`{"schema": 3}`, ""},
		{`{"schema": null}`, ""},
		{`["schema"]`, ""},
		{`{"schema": "a"`, ""},
		{``, ""},
		{`{"schema": "a", "schema": "b"}`, "b"},
	}
	for _, tt := range tests {
		if got := contracts.SchemaField([]byte(tt.doc)); got != tt.want {
			t.Errorf("SchemaField(%s) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}

// TestValidateValueOrder checks that decoded values, which have no document
// order, come out sorted by pointer, parents first and indices numerically.
func TestValidateValueOrder(t *testing.T) {
	t.Parallel()
	r := load(t)
	m := fixture(t, "finding.v1/seed-example.json")
	ev := []any{}
	for i := 0; i < 12; i++ {
		ev = append(ev, map[string]any{"kind": "file", "ref": "a"})
	}
	ev[10] = map[string]any{"kind": "file"}
	ev[2] = map[string]any{"kind": "nope", "ref": "a"}
	m["evidence"] = ev
	m["zzz"] = 1
	m["aaa"] = 1
	delete(m, "confidence")
	m["title"] = 5
	vs, err := r.ValidateValue("finding.v1", m)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`#: missing required property "confidence"`,
		`#: unexpected property "aaa"`,
		`#/evidence/2/kind: must be one of ["file","command","url","standard","measurement"]`,
		`#/evidence/10: missing required property "ref"`,
		`#/title: must be string, got number`,
		`#: unexpected property "zzz"`,
	}
	if diff := cmp.Diff(want, strings_(vs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, v := range vs {
		if v.Line != 0 || v.Column != 0 {
			t.Errorf("%v has a position", v)
		}
	}
}

func TestValidateValueGoTypes(t *testing.T) {
	t.Parallel()
	r := load(t)
	type evidence struct {
		Kind string `json:"kind"`
		Ref  string `json:"ref,omitempty"`
	}
	v := map[string]any{
		"schema": "finding.v1", "producedBy": "x", "id": "F-1", "severity": "low",
		"title": "t", "summary": "s", "failureScenario": "f", "confidence": "low",
		"evidence": []evidence{{Kind: "file"}},
		"tags":     []string{"a"},
	}
	vs, err := r.ValidateValue("finding.v1", v)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`#/evidence/0: missing required property "ref"`}, strings_(vs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	vs, err = r.ValidateValue("finding.v1", map[string]any{"f": func() {}})
	if err != nil || len(vs) != 1 || !strings.HasPrefix(vs[0].Message, "is not a JSON value") {
		t.Errorf("func value: %v, %v", vs, err)
	}
}

func TestLoadLocal(t *testing.T) {
	t.Parallel()
	finding, err := load(t).Schema("finding.v1")
	if err != nil {
		t.Fatal(err)
	}
	const local = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "incident.v1.schema.json",
  "type": "object",
  "additionalProperties": false,
  "required": ["schema", "producedBy", "severity", "evidence"],
  "properties": {
    "schema": {"const": "incident.v1"},
    "producedBy": {"$ref": "actor.v1.defs.json"},
    "severity": {"$ref": "sev.v1.defs.json"},
    "evidence": {"type": "array", "items": {"$ref": "evidence.v1.defs.json"}}
  }
}`
	tests := []struct {
		name    string
		files   fstest.MapFS
		wantIDs int
		wantErr string
		wantIs  error
	}{
		{name: "no folder", files: fstest.MapFS{}, wantIDs: 11},
		{name: "identical copy of an embedded contract", files: fstest.MapFS{
			".foundry/schemas/finding.v1.schema.json": {Data: finding},
		}, wantIDs: 11},
		{name: "identical content, other formatting", files: fstest.MapFS{
			".foundry/schemas/finding.v1.schema.json": {Data: []byte(strings.ReplaceAll(string(finding), "\n", "\r\n"))},
		}, wantIDs: 11},
		{name: "local contract with shared pieces", files: fstest.MapFS{
			".foundry/schemas/incident.v1.schema.json": {Data: []byte(local)},
			".foundry/schemas/sev.v1.defs.json":        {Data: []byte(`{"$id": "sev.v1.defs.json", "enum": ["sev1", "sev2"]}`)},
			".foundry/schemas/README.md":               {Data: []byte("not a schema")},
		}, wantIDs: 12},
		{name: "redefined embedded contract", files: fstest.MapFS{
			".foundry/schemas/finding.v1.schema.json": {Data: []byte(strings.Replace(string(finding), `"maxLength": 120`, `"maxLength": 200`, 1))},
		}, wantErr: ".foundry/schemas/finding.v1.schema.json: redefines a published contract (finding.v1 differs from the embedded version)", wantIs: contracts.ErrContractRedefined},
		{name: "redefined shared piece", files: fstest.MapFS{
			".foundry/schemas/evidence.v1.defs.json": {Data: []byte(`{"type": "object"}`)},
		}, wantErr: ".foundry/schemas/evidence.v1.defs.json: redefines a published contract (evidence.v1 differs from the embedded version)", wantIs: contracts.ErrContractRedefined},
		{name: "bad name", files: fstest.MapFS{
			".foundry/schemas/Incident.schema.json": {Data: []byte(`{}`)},
		}, wantErr: ".foundry/schemas/Incident.schema.json: name must be <noun>.v<major>.schema.json (lowercase)"},
		{name: "nested as deep as allowed", files: fstest.MapFS{
			".foundry/schemas/deep.v1.schema.json": {Data: []byte(`{"const": ` + strings.Repeat("[", contracts.MaxSchemaDepth-1) + strings.Repeat("]", contracts.MaxSchemaDepth-1) + `}`)},
		}, wantIDs: 12},
		{name: "nested deeper", files: fstest.MapFS{
			".foundry/schemas/deep.v1.schema.json": {Data: []byte(`{"const": ` + strings.Repeat("[", contracts.MaxSchemaDepth) + strings.Repeat("]", contracts.MaxSchemaDepth) + `}`)},
		}, wantErr: ".foundry/schemas/deep.v1.schema.json: schema nested too deep: 257 levels of arrays and objects, at most 256", wantIs: contracts.ErrSchemaTooDeep},
		{name: "not JSON", files: fstest.MapFS{
			".foundry/schemas/incident.v1.schema.json": {Data: []byte("{\n  oops\n}")},
		}, wantErr: ".foundry/schemas/incident.v1.schema.json: not parseable JSON at 2:3: invalid character 'o' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := contracts.Load(tt.files)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" {
				// One bad file is left out, named; the others load.
				broken := r.Broken()
				if len(broken) != 1 || broken[0].Err.Error() != tt.wantErr {
					t.Fatalf("Broken = %v, want one with %q", broken, tt.wantErr)
				}
				if tt.wantIs != nil && !errors.Is(broken[0].Err, tt.wantIs) {
					t.Errorf("errors.Is(%v) = false", tt.wantIs)
				}
				want := 11 // the embedded ones, less one redefined
				if errors.Is(broken[0].Err, contracts.ErrContractRedefined) && strings.HasSuffix(broken[0].Path, ".schema.json") {
					want = 10
				}
				if got := len(r.IDs()); got != want {
					t.Errorf("%d ids, want %d: %v", got, want, r.IDs())
				}
				return
			}
			if len(r.Broken()) != 0 {
				t.Errorf("Broken = %v, want none", r.Broken())
			}
			if got := len(r.IDs()); got != tt.wantIDs {
				t.Errorf("%d ids, want %d: %v", got, tt.wantIDs, r.IDs())
			}
		})
	}

	r, err := contracts.Load(tests[3].files)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Has("incident.v1") || r.Embedded("incident.v1") || r.Has("sev.v1") {
		t.Errorf("incident.v1: Has %v Embedded %v; sev.v1 Has %v", r.Has("incident.v1"), r.Embedded("incident.v1"), r.Has("sev.v1"))
	}
	vs, err := r.Validate("incident.v1", []byte(`{"schema": "incident.v1", "producedBy": "oncall", "severity": "sev3", "evidence": [{"kind": "file"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`#/severity: must be one of ["sev1","sev2"]`, `#/evidence/0: missing required property "ref"`}
	if diff := cmp.Diff(want, strings_(vs)); diff != "" {
		t.Errorf("local contract (-want +got):\n%s", diff)
	}
	if vs, err := r.Validate("finding.v1", []byte(`{}`)); err != nil || len(vs) == 0 {
		t.Errorf("embedded contract through a local registry: %v, %v", vs, err)
	}

	broken, err := contracts.Load(fstest.MapFS{
		".foundry/schemas/broken.v1.schema.json": {Data: []byte(`{"properties": {"a": {"$ref": "missing.v1.defs.json"}}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := broken.Validate("broken.v1", []byte(`{}`)); !errors.Is(err, contracts.ErrInvalidSchema) {
		t.Errorf("broken local schema: error = %v, want ErrInvalidSchema", err)
	}
}

func TestSchemaAndDigest(t *testing.T) {
	t.Parallel()
	r := load(t)
	b, err := r.Schema("fact.v1")
	if err != nil || !json.Valid(b) || !strings.Contains(string(b), `"$id": "fact.v1.schema.json"`) {
		t.Fatalf("Schema(fact.v1) = %.40q…, %v", b, err)
	}
	d1, err := r.Digest("fact.v1")
	if err != nil || !strings.HasPrefix(d1, "sha256:") || len(d1) != len("sha256:")+64 {
		t.Errorf("Digest = %q, %v", d1, err)
	}
	d2, _ := r.Digest("finding.v1")
	if d1 == d2 {
		t.Error("two contracts share a digest")
	}
	if _, err := r.Digest("x.v1"); !errors.Is(err, contracts.ErrUnknownContract) {
		t.Errorf("Digest(x.v1) error = %v", err)
	}
	if _, err := r.Schema("x.v1"); !errors.Is(err, contracts.ErrUnknownContract) {
		t.Errorf("Schema(x.v1) error = %v", err)
	}
}

// TestConcurrentValidate shares one registry (and the process-wide
// compiled contracts) between goroutines; run with -race.
func TestConcurrentValidate(t *testing.T) {
	t.Parallel()
	r := load(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, id := range r.IDs() {
				vs, err := r.Validate(id, []byte(`{"schema": 1}`))
				if err != nil || len(vs) == 0 {
					t.Errorf("%s: %v, %v", id, vs, err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestDigestCoversSharedPieces(t *testing.T) {
	t.Parallel()
	contract := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"thing.v1.schema.json","type":"object","properties":{"x":{"$ref":"bits.v1.defs.json#/$defs/x"}}}`
	digest := func(defs string) string {
		t.Helper()
		r, err := contracts.Load(fstest.MapFS{
			".foundry/schemas/thing.v1.schema.json": {Data: []byte(contract)},
			".foundry/schemas/bits.v1.defs.json":    {Data: []byte(defs)},
		})
		if err != nil {
			t.Fatal(err)
		}
		d, err := r.Digest("thing.v1")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := digest(`{"$id":"bits.v1.defs.json","$defs":{"x":{"type":"string"}}}`)
	b := digest(`{"$id":"bits.v1.defs.json","$defs":{"x":{"type":"integer"}}}`)
	if a == b {
		t.Errorf("an edit of a $ref'd shared file left the digest unchanged: %s", a)
	}
	if a != digest(`{"$id":"bits.v1.defs.json","$defs":{"x":{"type":"string"}}}`) {
		t.Error("digest is not stable")
	}
}

// TestLoadOneBrokenSchema: a local schema that does not parse, or that
// redefines an embedded contract, takes no other contract down: the good
// local contract and the embedded ones validate, and only using the broken
// one fails, naming its file.
func TestLoadOneBrokenSchema(t *testing.T) {
	t.Parallel()
	const note = `{"$id": "note.v1.schema.json", "type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}`
	r, err := contracts.Load(fstest.MapFS{
		".foundry/schemas/note.v1.schema.json":     {Data: []byte(note)},
		".foundry/schemas/incident.v1.schema.json": {Data: []byte("{\n  oops\n}")},
		".foundry/schemas/risk.v1.schema.json":     {Data: []byte(`{"type": "object"}`)},
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if vs, err := r.Validate("note.v1", []byte(`{"title": 3}`)); err != nil || len(vs) != 1 || vs[0].Pointer != "#/title" {
		t.Errorf("note.v1: %v, %v; want one violation at #/title", vs, err)
	}
	if vs, err := r.Validate("finding.v1", []byte(`{}`)); err != nil || len(vs) == 0 {
		t.Errorf("finding.v1: %v, %v; want violations", vs, err)
	}
	for id, want := range map[string]string{
		"incident.v1": "load contract incident.v1: .foundry/schemas/incident.v1.schema.json: not parseable JSON at 2:3: invalid character 'o' looking for beginning of object key string",
		"risk.v1":     "load contract risk.v1: .foundry/schemas/risk.v1.schema.json: redefines a published contract (risk.v1 differs from the embedded version)",
	} {
		if _, err := r.Validate(id, []byte(`{}`)); err == nil || err.Error() != want {
			t.Errorf("Validate(%s) error = %v, want %q", id, err, want)
		}
		if _, err := r.Schema(id); err == nil || err.Error() != want {
			t.Errorf("Schema(%s) error = %v, want %q", id, err, want)
		}
	}
	var paths []string
	for _, b := range r.Broken() {
		paths = append(paths, b.Path)
	}
	if want := []string{".foundry/schemas/incident.v1.schema.json", ".foundry/schemas/risk.v1.schema.json"}; !slices.Equal(paths, want) {
		t.Errorf("Broken = %v, want %v", paths, want)
	}
}
