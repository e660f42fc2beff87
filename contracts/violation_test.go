package contracts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestMessages pins the wording and placement of every keyword's message,
// and the leaf-only, one-error-per-wrong-type rules.
func TestMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		doc    string
		want   []string // "line:col: pointer: message"
	}{
		{"type", `{"type": "object"}`, `[1]`, []string{`1:1: #: must be object, got array`}},
		{"type list", `{"type": ["string", "null"]}`, `1`, []string{`1:1: #: must be null or string, got number`}},
		{"integer", `{"type": "integer"}`, `1.5`, []string{`1:1: #: must be integer, got number`}},
		{"integer-valued float is an integer", `{"type": "integer"}`, `2.0`, nil},
		{"wrong type stops the subtree", `{"properties": {"a": {"type": "object", "required": ["x", "y"], "properties": {"x": {"minLength": 3}}}}}`,
			`{"a": "no"}`, []string{`1:7: #/a: must be object, got string`}},
		{"const object", `{"const": {"a": [1, "<b>"]}}`, `{}`, []string{`1:1: #: must equal {"a":[1,"<b>"]}`}},
		{"enum mixed", `{"enum": [1, "a", null, true]}`, `2`, []string{`1:1: #: must be one of [1,"a",null,true]`}},
		{"minLength", `{"minLength": 3}`, `"ab"`, []string{`1:1: #: shorter than 3 characters`}},
		{"minLength 1", `{"minLength": 1}`, `""`, []string{`1:1: #: must not be empty`}},
		{"maxLength counts characters", `{"maxLength": 2}`, `"éé"`, nil},
		{"maxLength 1", `{"maxLength": 1}`, `"ab"`, []string{`1:1: #: longer than 1 character`}},
		{"pattern", `{"pattern": "^a\\d$"}`, `"b"`, []string{`1:1: #: does not match pattern "^a\\d$"`}},
		{"format asserted", `{"format": "date-time"}`, `"2025-01-01"`, []string{`1:1: #: is not a valid date-time`}},
		{"format on another type", `{"format": "date"}`, `5`, nil},
		{"minimum", `{"minimum": 0.5}`, `0.25`, []string{`1:1: #: below minimum 0.5`}},
		{"maximum big", `{"maximum": 100000000000000000000}`, `100000000000000000001`, []string{`1:1: #: above maximum 100000000000000000000`}},
		{"exclusiveMinimum", `{"exclusiveMinimum": 0}`, `0`, []string{`1:1: #: at or below exclusive minimum 0`}},
		{"exclusiveMaximum", `{"exclusiveMaximum": 1}`, `1`, []string{`1:1: #: at or above exclusive maximum 1`}},
		{"multipleOf", `{"multipleOf": 0.01}`, `0.125`, []string{`1:1: #: not a multiple of 0.01`}},
		{"minItems 1", `{"minItems": 1}`, `[]`, []string{`1:1: #: needs at least 1 item`}},
		{"maxItems", `{"maxItems": 2}`, `[1, 2, 3]`, []string{`1:1: #: has more than 2 items`}},
		{"uniqueItems", `{"uniqueItems": true}`, `[1, {"a": 1}, 2, {"a": 1.0}]`, []string{`1:1: #: items 1 and 3 are equal`}},
		{"minProperties", `{"minProperties": 2}`, `{"a": 1}`, []string{`1:1: #: needs at least 2 properties`}},
		{"maxProperties", `{"maxProperties": 1}`, `{"a": 1, "b": 2}`, []string{`1:1: #: has more than 1 property`}},
		{"required keeps schema order", `{"required": ["b", "a", "c"]}`, `{"c": 1}`,
			[]string{`1:1: #: missing required property "b"`, `1:1: #: missing required property "a"`}},
		{"additionalProperties false points at the name", `{"properties": {"a": {}}, "additionalProperties": false}`, "{\n  \"b\": 1,\n  \"a\": 2,\n  \"c~/\": 3\n}",
			[]string{`2:3: #: unexpected property "b"`, `4:3: #: unexpected property "c~/"`}},
		{"additionalProperties schema", `{"additionalProperties": {"type": "string"}}`, `{"x/y": 1}`, []string{`1:9: #/x~1y: must be string, got number`}},
		{"patternProperties", `{"patternProperties": {"^n_": {"type": "number"}}}`, `{"n_a": "1", "s": "1"}`, []string{`1:9: #/n_a: must be number, got string`}},
		{"propertyNames", `{"propertyNames": {"pattern": "^[a-z]+$", "maxLength": 3}}`, `{"ok": 1, "Bad": 2, "long": 3}`,
			[]string{`1:11: #: property name "Bad": does not match pattern "^[a-z]+$"`, `1:21: #: property name "long": longer than 3 characters`}},
		{"propertyNames below a property, siblings after it", `{"properties": {"pn": {"propertyNames": {"maxLength": 3}}, "list": {"items": {"propertyNames": {"maxLength": 3}}}, "z": {}, "zz": {}, "zzz": {}}}`,
			`{"pn": {"long": 1}, "list": [{"long": 1}, {"ok": 1}, {"long": 2, "x": {"y": 1}}], "z": {"a": [1]}, "zz": 1, "zzz": [{"b": 1}]}`,
			[]string{`1:9: #/pn: property name "long": longer than 3 characters`, `1:31: #/list/0: property name "long": longer than 3 characters`,
				`1:55: #/list/2: property name "long": longer than 3 characters`}},
		{"propertyNames twice through one $ref", `{"$defs": {"short": {"propertyNames": {"maxLength": 3}}}, "properties": {"a": {"allOf": [{"$ref": "#/$defs/short"}, {"$ref": "#/$defs/short"}]}, "b": {}}}`,
			`{"a": {"long": 1}, "b": {"long": 1}}`,
			[]string{`1:8: #/a: property name "long": longer than 3 characters`}},
		{"dependentRequired", `{"dependentRequired": {"card": ["cvc", "expiry"]}}`, `{"card": "4111", "cvc": "1"}`,
			[]string{`1:1: #: missing property "expiry", required when "card" is present`}},
		{"dependentSchemas", `{"dependentSchemas": {"a": {"properties": {"b": {"type": "string"}}}}}`, `{"a": 1, "b": 2}`,
			[]string{`1:15: #/b: must be string, got number`}},
		{"allOf gives leaves only", `{"allOf": [{"required": ["a"]}, {"properties": {"b": {"maximum": 1}}}]}`, `{"b": 2}`,
			[]string{`1:1: #: missing required property "a"`, `1:7: #/b: above maximum 1`}},
		{"allOf repeats once", `{"allOf": [{"required": ["a"]}, {"required": ["a"]}]}`, `{}`,
			[]string{`1:1: #: missing required property "a"`}},
		{"anyOf of types merges", `{"anyOf": [{"type": "string"}, {"type": "integer"}]}`, `true`,
			[]string{`1:1: #: must be string or integer, got boolean`}},
		{"anyOf drops branches of another type", `{"anyOf": [{"type": "string"}, {"type": "object", "required": ["id"]}]}`, `{}`,
			[]string{`1:1: #: missing required property "id"`}},
		{"anyOf of consts merges", `{"anyOf": [{"const": "a"}, {"enum": ["b", "a"]}]}`, `"c"`,
			[]string{`1:1: #: must be one of ["a","b"]`}},
		{"oneOf none", `{"oneOf": [{"type": "string", "minLength": 5}, {"type": "number"}]}`, `"abc"`,
			[]string{`1:1: #: shorter than 5 characters`}},
		{"oneOf two", `{"oneOf": [{"type": "number"}, {"minimum": 0}]}`, `1`,
			[]string{`1:1: #: must match exactly one oneOf schema, matches 0 and 1`}},
		{"not", `{"not": {"type": "null"}}`, `null`, []string{`1:1: #: must not match the "not" schema`}},
		{"if then", `{"if": {"properties": {"k": {"const": "url"}}}, "then": {"properties": {"r": {"format": "uri"}}}, "else": {"properties": {"r": {"minLength": 2}}}}`,
			`{"k": "url", "r": "x"}`, []string{`1:19: #/r: is not a valid uri`}},
		{"if else", `{"if": {"properties": {"k": {"const": "url"}}}, "then": {"properties": {"r": {"format": "uri"}}}, "else": {"properties": {"r": {"minLength": 2}}}}`,
			`{"k": "file", "r": "x"}`, []string{`1:20: #/r: shorter than 2 characters`}},
		{"false property", `{"properties": {"a": false}}`, `{"a": 1}`, []string{`1:7: #/a: is not allowed`}},
		{"unevaluatedProperties", `{"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false}`, `{"a": 1, "b": 2}`,
			[]string{`1:10: #: unexpected property "b"`}},
		{"unevaluatedItems", `{"prefixItems": [{}], "unevaluatedItems": false}`, `[1, 2]`, []string{`1:5: #/1: unexpected item`}},
		{"items false", `{"prefixItems": [{}], "items": false}`, `[1, 2]`, []string{`1:5: #/1: unexpected item`}},
		{"contains", `{"contains": {"type": "string"}}`, `[1, 2]`, []string{`1:1: #: has no item matching contains`}},
		{"minContains", `{"contains": {"type": "string"}, "minContains": 2}`, `["a", 2]`, []string{`1:1: #: needs at least 2 items matching contains, has 1`}},
		{"maxContains", `{"contains": {"type": "string"}, "maxContains": 1}`, `["a", "b"]`, []string{`1:1: #: has more than 1 item matching contains`}},
		{"$defs and $ref", `{"$defs": {"pos": {"minimum": 0}}, "items": {"$ref": "#/$defs/pos"}}`, `[1, -1]`, []string{`1:5: #/1: below minimum 0`}},
		{"document order", `{"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["c"]}`, "{\"b\": 1,\n \"a\": 2}",
			[]string{`1:1: #: missing required property "c"`, `1:7: #/b: must be string, got number`, `2:7: #/a: must be string, got number`}},
		{"escaped names", `{"properties": {"a\"b": {"type": "string"}}}`, `{"a\"b": 1, "a\u0022b": 2}`, []string{`1:25: #/a"b: must be string, got number`}},
		{"embedded shared piece", `{"$ref": "evidence.v1.defs.json"}`, `{"kind": "url", "ref": 3}`, []string{`1:24: #/ref: must be string, got number`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, vs := validateWith(t, tt.schema, tt.doc)
			var got []string
			for _, v := range vs {
				got = append(got, fmt.Sprintf("%d:%d: %s", v.Line, v.Column, v))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if err := checkPositions([]byte(tt.doc), vs); err != nil {
				t.Error(err)
			}
			// The decoded value gives the same problems, without positions.
			v, err := parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := len(s.Validate(v)), len(vs); a != b {
				t.Errorf("Validate gives %d violations, ValidateJSON %d", a, b)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, schema, want string }{
		{"not JSON", `{`, "compile schema: not parseable JSON at 1:2: unexpected end of JSON input"},
		{"not a schema", `{"type": 5}`, "compile schema: invalid schema: not valid against its metaschema"},
		{"remote ref", `{"$ref": "https://example.com/s.json"}`, "compile schema: invalid schema:"},
		{"missing sibling", `{"$ref": "nope.v1.schema.json"}`, "compile schema: invalid schema:"},
		{"bad regex", `{"pattern": "("}`, "compile schema: invalid schema:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile([]byte(tt.schema))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want prefix %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			var pe *ParseError
			if !errors.Is(err, ErrInvalidSchema) && !errors.As(err, &pe) {
				t.Errorf("error %v is neither ErrInvalidSchema nor a *ParseError", err)
			}
		})
	}
}

// checkPositions verifies that every violation's line and column point at
// the JSON value its pointer names, or at the name of one of that object's
// properties (for problems with a property name).
func checkPositions(doc []byte, vs []Violation) error {
	root, err := parse(doc)
	if err != nil {
		return err
	}
	li := newLineIndex(doc)
	for _, v := range vs {
		if v.Line < 1 || v.Line > len(li.starts) || v.Column < 1 {
			return fmt.Errorf("%v: bad position %d:%d", v, v.Line, v.Column)
		}
		off := li.starts[v.Line-1]
		for c := 1; c < v.Column; c++ {
			_, size := utf8.DecodeRune(doc[off:])
			off += size
		}
		dec := json.NewDecoder(bytes.NewReader(doc[off:]))
		dec.UseNumber()
		var got any
		if err := dec.Decode(&got); err != nil {
			return fmt.Errorf("%v: at %d:%d no JSON value: %v", v, v.Line, v.Column, err)
		}
		want, ok := resolve(root, strings.TrimPrefix(v.Pointer, "#"))
		if !ok {
			return fmt.Errorf("%v: pointer does not resolve", v)
		}
		if reflect.DeepEqual(got, want) {
			continue
		}
		if obj, isObj := want.(map[string]any); isObj {
			if name, isStr := got.(string); isStr {
				if _, has := obj[name]; has {
					continue
				}
			}
		}
		return fmt.Errorf("%v: %d:%d holds %v, not the value at the pointer", v, v.Line, v.Column, got)
	}
	return nil
}

func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			e, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// validateWith compiles schema and validates doc with it.
func validateWith(t *testing.T, schema, doc string) (*Schema, []Violation) {
	t.Helper()
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.ValidateJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s, vs
}
