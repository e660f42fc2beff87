package contracts

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/foundryhq/foundry/schemas"
)

// seedKeywords are the keywords of seed 004's subset, which every embedded
// schema is written against on purpose, with the annotations beside them.
var seedKeywords = map[string]bool{
	"const": true, "enum": true, "type": true, "required": true, "properties": true,
	"additionalProperties": true, "minLength": true, "maxLength": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "minItems": true, "maxItems": true, "items": true, "$ref": true,
	// Annotations and identifiers: they constrain nothing.
	"$schema": true, "$id": true, "title": true, "description": true, "examples": true, "$comment": true, "default": true,
}

// seedFormats are the formats of the subset.
var seedFormats = map[string]bool{"date": true, "date-time": true, "uri": true}

// TestEmbeddedSchemasUseTheSeedSubset walks every embedded schema and fails
// on any keyword outside seed 004's subset, on additionalProperties other
// than false, on a format outside it and on a $ref that is not a file name.
func TestEmbeddedSchemasUseTheSeedSubset(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(schemas.FS, "*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded schemas: %v %v", names, err)
	}
	for _, name := range names {
		data, err := fs.ReadFile(schemas.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, p := range subsetProblems(doc, "#") {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// subsetProblems walks a schema (not the instances it describes: the
// children of properties are schemas by name, enum and const values are
// data).
func subsetProblems(v any, ptr string) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{ptr + ": a schema must be an object"}
	}
	var out []string
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := obj[k]
		at := ptr + "/" + k
		switch {
		case !seedKeywords[k]:
			out = append(out, fmt.Sprintf("%s: keyword %q is outside seed 004's subset", at, k))
		case k == "additionalProperties" && val != false:
			out = append(out, at+": only additionalProperties: false is in the subset")
		case k == "format" && !seedFormats[fmt.Sprint(val)]:
			out = append(out, fmt.Sprintf("%s: format %v is outside the subset (date, date-time, uri)", at, val))
		case k == "$ref" && (strings.Contains(fmt.Sprint(val), "#") || strings.Contains(fmt.Sprint(val), "/")):
			out = append(out, fmt.Sprintf("%s: $ref %v must name a schema file", at, val))
		case k == "properties":
			props, _ := val.(map[string]any)
			for name, sub := range props {
				out = append(out, subsetProblems(sub, at+"/"+name)...)
			}
		case k == "items":
			out = append(out, subsetProblems(val, at)...)
		}
	}
	return out
}

// TestLocalContractsKeepFullValidation: the subset binds the embedded
// contracts only; a project-local contract is validated as full JSON
// Schema 2020-12.
func TestLocalContractsKeepFullValidation(t *testing.T) {
	t.Parallel()
	local := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "note.v1.schema.json", "type": "object",
	  "properties": {"tags": {"type": "array", "uniqueItems": true}, "kind": {"type": "string"}, "ref": {"type": "string"}},
	  "if": {"properties": {"kind": {"const": "url"}}}, "then": {"properties": {"ref": {"format": "uri"}}}}`
	r, err := Load(fstest.MapFS{LocalDir + "/note.v1.schema.json": {Data: []byte(local)}})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := r.Validate("note.v1", []byte(`{"tags": ["a", "a"], "kind": "url", "ref": "not a uri"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	slices.Sort(got)
	if want := []string{"#/ref: is not a valid uri", "#/tags: items 0 and 1 are equal"}; !slices.Equal(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
}

// TestLockAcceptsLoosenedDigests: a contracts lock written under an
// earlier embedded content that today's only loosens is current; any other
// digest is not.
func TestLockAcceptsLoosenedDigests(t *testing.T) {
	t.Parallel()
	r, err := Load(fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	for id, olds := range loosened {
		if !r.Embedded(id) {
			t.Errorf("%s is not an embedded contract", id)
		}
		now, _ := r.Digest(id)
		for _, d := range append([]string{now}, olds...) {
			if ok, err := r.AcceptsLock(id, d); !ok || err != nil {
				t.Errorf("AcceptsLock(%s, %s) = %v, %v", id, d, ok, err)
			}
		}
		if slices.Contains(olds, now) {
			t.Errorf("%s: the current digest is listed as an earlier one", id)
		}
	}
	if ok, _ := r.AcceptsLock("finding.v1", "sha256:"+strings.Repeat("0", 64)); ok {
		t.Error("an unknown digest is accepted")
	}
	if ok, _ := r.AcceptsLock("handoff.v1", loosened["finding.v1"][0]); ok {
		t.Error("another contract's earlier digest is accepted")
	}
}
