package contracts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fuzzSchema exercises the keywords the contracts do not use, so that the
// message and position code for them meets arbitrary documents too.
const fuzzSchema = `{
  "type": ["object", "array"],
  "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["x"]}]}},
  "patternProperties": {"^n": {"oneOf": [{"type": "number"}, {"minimum": 0}]}},
  "propertyNames": {"maxLength": 5},
  "dependentRequired": {"b": ["c"]},
  "prefixItems": [{"const": 1}],
  "items": {"uniqueItems": true, "contains": {"type": "null"}},
  "unevaluatedProperties": {"not": {"type": "boolean"}},
  "if": {"required": ["k"]}, "then": {"properties": {"k": {"format": "uri"}}}
}`

// FuzzValidate feeds arbitrary bytes to the validator entry points: no
// panic, errors only of the documented kinds, positions that point at the
// offending value, and the same problems through the decoded value.
func FuzzValidate(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "schemas", "testdata", "*", "*", "*.json"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{``, `{`, `[]`, `null`, `{"a": {"x": 1}, "n1": -1, "toolong": true, "b": 1}`, `[2, [null, null]]`, "{\"\\u00e9\\ud800\": 1}", "\xff", `{"schema": "finding.v1"} x`} {
		f.Add([]byte(s))
	}
	r, err := Load(nil)
	if err != nil {
		f.Fatal(err)
	}
	extra, err := Compile([]byte(fuzzSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		vs, err := r.Validate("finding.v1", doc)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		check(t, doc, vs, func(v any) []Violation {
			got, err := r.ValidateValue("finding.v1", v)
			if err != nil {
				t.Fatal(err)
			}
			return got
		})
		if _, _, err := r.ValidateAuto(doc); err != nil {
			if _, ok := err.(*ParseError); ok {
				t.Fatalf("ValidateAuto: parse error on a document Validate parsed: %v", err)
			}
		}
		vs, err = extra.ValidateJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		check(t, doc, vs, extra.Validate)
	})
}

func check(t *testing.T, doc []byte, vs []Violation, validateValue func(any) []Violation) {
	t.Helper()
	if err := checkPositions(doc, vs); err != nil {
		t.Fatal(err)
	}
	v, err := parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	a, b := texts(vs), texts(validateValue(v))
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Fatalf("bytes and value disagree:\n%v\n%v", a, b)
	}
}

func texts(vs []Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprint(v)
	}
	return out
}
