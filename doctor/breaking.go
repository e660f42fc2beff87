// This file defines the comparison of two versions of a JSON Schema that
// finds the edits able to invalidate a document the old version accepted.

package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// BreakingChange is one edit of a schema that can make a document valid
// against the old version invalid against the new one.
type BreakingChange struct {
	Pointer string `json:"pointer"` // JSON pointer into the schema, "#/properties/severity"
	Message string `json:"message"` // e.g. `new required property "failureScenario"`
}

// String returns "<pointer>: <message>".
func (c BreakingChange) String() string { return c.Pointer + ": " + c.Message }

// BreakingChanges compares two versions of a JSON Schema document and
// returns the breaking edits in a stable order: a new required property, a
// removed property, a narrowed type, enum or const, a raised lower bound or
// lowered upper bound, a new or changed pattern or format, additional
// properties forbidden, and a changed $ref or combinator, which cannot be
// proved safe. Additive edits (a new optional property, a widened bound, a
// new enum value, descriptions) are not breaking. The error reports a
// version that is not JSON.
func BreakingChanges(oldSchema, newSchema []byte) ([]BreakingChange, error) {
	o, err := decodeJSON(oldSchema)
	if err != nil {
		return nil, fmt.Errorf("compare schemas: old version: %w", err)
	}
	n, err := decodeJSON(newSchema)
	if err != nil {
		return nil, fmt.Errorf("compare schemas: new version: %w", err)
	}
	var d schemaDiff
	d.compare("#", o, n)
	return d.out, nil
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

type schemaDiff struct{ out []BreakingChange }

func (d *schemaDiff) add(ptr, format string, args ...any) {
	d.out = append(d.out, BreakingChange{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// compare records the breaking edits from schema o to schema n at ptr.
func (d *schemaDiff) compare(ptr string, o, n any) {
	if b, ok := o.(bool); ok {
		if !b {
			return // nothing was accepted: nothing can break
		}
		o = map[string]any{}
	}
	if b, ok := n.(bool); ok {
		if !b {
			d.add(ptr, "now rejects every value")
			return
		}
		n = map[string]any{}
	}
	om, ok1 := o.(map[string]any)
	nm, ok2 := n.(map[string]any)
	if !ok1 || !ok2 {
		if !reflect.DeepEqual(o, n) {
			d.add(ptr, "changed schema")
		}
		return
	}

	d.types(ptr, om["type"], nm["type"])
	if nv, ok := nm["const"]; ok {
		if ov, had := om["const"]; !had {
			d.add(ptr, "new const %s", jsonText(nv))
		} else if !sameValue(ov, nv) {
			d.add(ptr, "changed const from %s to %s", jsonText(ov), jsonText(nv))
		}
	}
	if nv, ok := nm["enum"].([]any); ok {
		if ov, had := om["enum"].([]any); !had {
			d.add(ptr, "new enum %s", jsonText(nv))
		} else {
			var removed []any
			for _, v := range ov {
				if !slices.ContainsFunc(nv, func(x any) bool { return sameValue(x, v) }) {
					removed = append(removed, v)
				}
			}
			if len(removed) > 0 {
				d.add(ptr, "narrowed enum: removed %s", joinJSON(removed))
			}
		}
	}
	d.required(ptr, om["required"], nm["required"])
	d.numberBound(ptr, om, nm, "minimum", "exclusiveMinimum", 1)
	d.numberBound(ptr, om, nm, "maximum", "exclusiveMaximum", -1)
	for _, k := range []string{"minLength", "minItems", "minProperties", "minContains"} {
		d.bound(ptr, k, om[k], nm[k], 1)
	}
	for _, k := range []string{"maxLength", "maxItems", "maxProperties", "maxContains"} {
		d.bound(ptr, k, om[k], nm[k], -1)
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		nv, ok := nm[k]
		if !ok {
			continue
		}
		if ov, had := om[k]; !had {
			d.add(ptr, "new %s %s", k, jsonText(nv))
		} else if !reflect.DeepEqual(ov, nv) {
			d.add(ptr, "tightened %s from %s to %s (may reject values the old one accepted)", k, jsonText(ov), jsonText(nv))
		}
	}
	if nv, _ := nm["uniqueItems"].(bool); nv {
		if ov, _ := om["uniqueItems"].(bool); !ov {
			d.add(ptr, "items must now be unique")
		}
	}
	if nv, ok := nm["$ref"]; ok && !reflect.DeepEqual(om["$ref"], nv) {
		if ov, had := om["$ref"]; had {
			d.add(ptr, "changed $ref from %s to %s", jsonText(ov), jsonText(nv))
		} else {
			d.add(ptr, "new $ref %s", jsonText(nv))
		}
	}

	// Properties: a removed one breaks documents that still carry it (and
	// every contract forbids additional properties); a kept one is compared.
	op, _ := om["properties"].(map[string]any)
	np, _ := nm["properties"].(map[string]any)
	for _, name := range sortedKeys(op) {
		sub := ptr + "/properties/" + escapePointer(name)
		nv, ok := np[name]
		if !ok {
			d.add(ptr, "removed property %q", name)
			continue
		}
		d.compare(sub, op[name], nv)
	}
	if nv, ok := nm["additionalProperties"]; ok {
		ov, had := om["additionalProperties"]
		switch {
		case nv == false && ov != false:
			d.add(ptr, "additional properties are no longer allowed")
		case had:
			d.compare(ptr+"/additionalProperties", ov, nv)
		default:
			d.compare(ptr+"/additionalProperties", true, nv)
		}
	}
	for _, k := range []string{"items", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"} {
		nv, ok := nm[k]
		if !ok {
			continue
		}
		ov, had := om[k]
		if !had {
			if k == "not" || k == "if" {
				d.add(ptr, "new %s", k)
				continue
			}
			ov = true
		}
		if k == "not" || k == "if" {
			if !reflect.DeepEqual(ov, nv) {
				d.add(ptr, "changed %s (may reject values the old one accepted)", k)
			}
			continue
		}
		d.compare(ptr+"/"+k, ov, nv)
	}
	for _, k := range []string{"prefixItems", "allOf"} {
		nv, _ := nm[k].([]any)
		ov, _ := om[k].([]any)
		for i := range nv {
			if i >= len(ov) {
				d.add(ptr, "new %s entry %d", k, i)
				continue
			}
			d.compare(fmt.Sprintf("%s/%s/%d", ptr, k, i), ov[i], nv[i])
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "dependentRequired", "dependentSchemas", "patternProperties"} {
		if nv, ok := nm[k]; ok && !reflect.DeepEqual(om[k], nv) {
			d.add(ptr, "changed %s (may reject values the old one accepted)", k)
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		od, _ := om[k].(map[string]any)
		nd, _ := nm[k].(map[string]any)
		for _, name := range sortedKeys(od) {
			if nv, ok := nd[name]; ok {
				d.compare(ptr+"/"+k+"/"+escapePointer(name), od[name], nv)
			}
		}
	}
}

// types records a narrowed "type": some type the old schema accepted (every
// type when it had none) that the new one rejects.
func (d *schemaDiff) types(ptr string, o, n any) {
	if n == nil {
		return
	}
	nt := typeSet(n)
	ot := typeSet(o)
	if o == nil {
		ot = []string{"array", "boolean", "null", "number", "object", "string"}
	}
	var lost []string
	for _, t := range ot {
		ok := slices.Contains(nt, t) || t == "integer" && slices.Contains(nt, "number")
		if !ok {
			lost = append(lost, t)
		}
	}
	if len(lost) == 0 {
		return
	}
	if o == nil {
		d.add(ptr, "new type %s", jsonText(n))
		return
	}
	d.add(ptr, "narrowed type from %s to %s", jsonText(o), jsonText(n))
}

func typeSet(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (d *schemaDiff) required(ptr string, o, n any) {
	had := map[string]bool{}
	for _, v := range typeSet(o) {
		had[v] = true
	}
	for _, v := range typeSet(n) {
		if !had[v] {
			d.add(ptr, "new required property %q", v)
		}
	}
}

// bound records a tightened numeric bound; dir is 1 for lower bounds (a
// larger value is tighter) and -1 for upper bounds.
func (d *schemaDiff) bound(ptr, k string, o, n any, dir int) {
	nr, ok := number(n)
	if !ok {
		return
	}
	or, had := number(o)
	if !had {
		d.add(ptr, "new %s %s", k, jsonText(n))
		return
	}
	if nr.Cmp(or)*dir > 0 {
		verb := "raised"
		if dir < 0 {
			verb = "lowered"
		}
		d.add(ptr, "%s %s from %s to %s", verb, k, jsonText(o), jsonText(n))
	}
}

// numberBound records a tightened numeric bound, where the inclusive and
// the exclusive keyword (minimum and exclusiveMinimum, dir 1; maximum and
// exclusiveMaximum, dir -1) bound together: a new bound is tighter only
// than the tightest old one, so exclusiveMinimum 1 becoming minimum 1
// widens the range.
func (d *schemaDiff) numberBound(ptr string, om, nm map[string]any, incl, excl string, dir int) {
	// The tightest old bound, and whether it is exclusive.
	var old *big.Rat
	oldExcl := false
	for _, k := range []string{incl, excl} {
		r, ok := number(om[k])
		if !ok {
			continue
		}
		if c := cmpBound(r, old, dir); c > 0 || c == 0 && k == excl {
			old, oldExcl = r, k == excl
		}
	}
	for _, k := range []string{incl, excl} {
		nr, ok := number(nm[k])
		if !ok {
			continue
		}
		if old == nil {
			d.add(ptr, "new %s %s", k, jsonText(nm[k]))
			continue
		}
		c := cmpBound(nr, old, dir)
		if c < 0 || c == 0 && (k == incl || oldExcl) {
			continue
		}
		if _, had := number(om[k]); had {
			verb := "raised"
			if dir < 0 {
				verb = "lowered"
			}
			d.add(ptr, "%s %s from %s to %s", verb, k, jsonText(om[k]), jsonText(nm[k]))
		} else {
			d.add(ptr, "new %s %s", k, jsonText(nm[k]))
		}
	}
}

// cmpBound compares bound a with bound b, positive when a is the tighter
// (a nil b is the loosest).
func cmpBound(a, b *big.Rat, dir int) int {
	if b == nil {
		return 1
	}
	return a.Cmp(b) * dir
}

func number(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(n.String())
	return r, ok
}

// sameValue reports whether two decoded JSON values are equal as JSON
// Schema compares them (const, enum): numbers by value, so 1 and 1.0 are
// the same.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		ra, ok1 := number(a)
		rb, ok2 := number(b)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if w, ok := bm[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}

func joinJSON(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jsonText(v)
	}
	return strings.Join(parts, ", ")
}
