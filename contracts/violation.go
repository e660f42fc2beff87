package contracts

// This file turns the JSON Schema library's error tree into Violations: leaf
// causes only, in the seed's wording, sorted into document order.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Violation is one problem, in the seed's one-line form.
type Violation struct {
	// Pointer locates the offending value as "#" followed by a JSON pointer
	// (RFC 6901): "#", "#/evidence/0/kind". For a problem with a property
	// name (unexpected property, invalid property name) it is the object
	// holding the property.
	Pointer string
	// Message states the problem, e.g. `missing required property "failureScenario"`.
	Message string
	// Line and Column give the 1-based position of the offending value (of
	// the property name, for a problem with a property name) in the
	// document; both are 0 when unknown (the document was not given as
	// bytes). Columns count Unicode code points.
	Line, Column int
}

// String renders the violation as "<pointer>: <message>".
func (v Violation) String() string { return v.Pointer + ": " + v.Message }

// Ranks order problems that share a position: the value's type first, then
// its identity, then everything else in the order a reader checks them.
const (
	rankType = iota
	rankConst
	rankEnum
	rankFormat
	rankRequired
	rankDependent
	rankUnexpected
	rankPropertyName
	rankCount
	rankUnique
	rankContains
	rankLength
	rankPattern
	rankNumber
	rankContent
	rankNot
	rankOneOf
	rankFalse
	rankOther
)

// leaf is one problem before it is positioned.
type leaf struct {
	path    []string // instance location the problem is about
	name    string   // property name whose key is the position, when hasName
	hasName bool
	msg     string
	rank    int
	seq     int // order among problems of one keyword (required lists)

	// Kept so that failing anyOf/oneOf branches can be merged.
	types []string // wanted types of a type problem
	got   string   // actual type of a type problem
	enum  []any    // allowed values of a const or enum problem
}

// violationsOf flattens err (a *jsonschema.ValidationError or nil) into
// sorted, de-duplicated violations. inst is the validated instance, used to
// repair the locations the library leaves aliased (nil skips that). With
// doc, they carry positions and come in document order; without, they are
// sorted by pointer.
func violationsOf(err error, inst any, doc []byte) []Violation {
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Pointer: "#", Message: err.Error()}}
	}
	if inst != nil {
		repairLocations(ve, inst)
	}
	leaves := collect(ve)
	out := make([]Violation, len(leaves))
	if doc == nil {
		slices.SortStableFunc(leaves, func(a, b leaf) int {
			if c := comparePaths(a.sortPath(), b.sortPath()); c != 0 {
				return c
			}
			return compareTies(a, b)
		})
		for i, l := range leaves {
			out[i] = Violation{Pointer: "#" + pointer(l.path), Message: l.msg}
		}
		return dedupe(out)
	}

	o := newOffsets()
	for _, l := range leaves {
		if l.hasName {
			o.wantName(pointer(append(slices.Clip(l.path), l.name)))
		} else {
			o.wantValue(pointer(l.path))
		}
	}
	o.scan(doc)
	offs := make([]int, len(leaves))
	for i, l := range leaves {
		offs[i] = -1
		if l.hasName {
			if off, ok := o.key[pointer(append(slices.Clip(l.path), l.name))]; ok {
				offs[i] = off
			}
		}
		if offs[i] < 0 {
			if off, ok := o.val[pointer(l.path)]; ok {
				offs[i] = off
			}
		}
	}
	idx := make([]int, len(leaves))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if offs[a] != offs[b] {
			return offs[a] - offs[b]
		}
		return compareTies(leaves[a], leaves[b])
	})
	li := newLineIndex(doc)
	for i, j := range idx {
		l := leaves[j]
		out[i] = Violation{Pointer: "#" + pointer(l.path), Message: l.msg}
		if offs[j] >= 0 {
			out[i].Line, out[i].Column = li.position(offs[j])
		}
	}
	return dedupe(out)
}

func (l leaf) sortPath() []string {
	if l.hasName {
		return append(slices.Clip(l.path), l.name)
	}
	return l.path
}

func compareTies(a, b leaf) int {
	if a.rank != b.rank {
		return a.rank - b.rank
	}
	if a.seq != b.seq {
		return a.seq - b.seq
	}
	return strings.Compare(a.msg, b.msg)
}

// comparePaths orders instance locations depth-first: a parent before its
// children, array elements by index, properties by name.
func comparePaths(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		na, errA := strconv.Atoi(a[i])
		nb, errB := strconv.Atoi(b[i])
		if errA == nil && errB == nil {
			return na - nb
		}
		return strings.Compare(a[i], b[i])
	}
	return len(a) - len(b)
}

// dedupe drops repeats of the same problem at the same place, which arise
// when several subschemas (allOf branches, a $ref and its sibling) check the
// same thing. vs is sorted, so repeats need not be adjacent only when they
// tie on position; a set handles both.
func dedupe(vs []Violation) []Violation {
	seen := make(map[Violation]bool, len(vs))
	out := vs[:0]
	for _, v := range vs {
		if seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	return out
}

// collect returns the leaf problems under e.
func collect(e *jsonschema.ValidationError) []leaf {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		var out []leaf
		for _, c := range e.Causes {
			out = append(out, collect(c)...)
		}
		if len(out) == 0 {
			out = append(out, leaf{path: loc, msg: "is invalid", rank: rankOther})
		}
		return out
	case *kind.AnyOf:
		return branches(e, "anyOf")
	case *kind.OneOf:
		if len(k.Subschemas) < 2 {
			return branches(e, "oneOf")
		}
		return []leaf{{path: loc, rank: rankOneOf,
			msg: fmt.Sprintf("must match exactly one oneOf schema, matches %d and %d", k.Subschemas[0], k.Subschemas[1])}}
	case *kind.Required:
		out := make([]leaf, len(k.Missing))
		for i, p := range k.Missing {
			out[i] = leaf{path: loc, rank: rankRequired, seq: i, msg: "missing required property " + jsonText(p)}
		}
		return out
	case *kind.DependentRequired:
		return dependent(loc, k.Prop, k.Missing)
	case *kind.Dependency:
		return dependent(loc, k.Prop, k.Missing)
	case *kind.AdditionalProperties:
		out := make([]leaf, len(k.Properties))
		for i, p := range k.Properties {
			out[i] = leaf{path: loc, name: p, hasName: true, rank: rankUnexpected, msg: "unexpected property " + jsonText(p)}
		}
		return out
	case *kind.PropertyNames:
		var out []leaf
		for _, c := range e.Causes {
			for _, l := range collect(c) {
				out = append(out, leaf{path: loc, name: k.Property, hasName: true, rank: rankPropertyName,
					msg: fmt.Sprintf("property name %s: %s", jsonText(k.Property), l.msg)})
			}
		}
		if len(out) == 0 {
			out = append(out, leaf{path: loc, name: k.Property, hasName: true, rank: rankPropertyName,
				msg: fmt.Sprintf("property name %s is not allowed", jsonText(k.Property))})
		}
		return out
	case *kind.ContentSchema:
		var out []leaf
		for _, c := range e.Causes {
			for _, l := range collect(c) {
				out = append(out, leaf{path: loc, rank: rankContent,
					msg: fmt.Sprintf("decoded content at %s: %s", "#"+pointer(l.path), l.msg)})
			}
		}
		if len(out) == 0 {
			out = append(out, leaf{path: loc, rank: rankContent, msg: "decoded content does not match contentSchema"})
		}
		return out
	case *kind.Contains, *kind.MinContains:
		// The causes are every item's reasons for not matching; the problem
		// is the array's.
		return []leaf{{path: loc, rank: rankContains, msg: messageOf(e.ErrorKind)}}
	case *kind.FalseSchema:
		if n := len(loc); n > 0 {
			switch {
			case strings.HasSuffix(e.SchemaURL, "/unevaluatedProperties"), strings.HasSuffix(e.SchemaURL, "/additionalProperties"):
				return []leaf{{path: loc[:n-1], name: loc[n-1], hasName: true, rank: rankUnexpected,
					msg: "unexpected property " + jsonText(loc[n-1])}}
			case strings.HasSuffix(e.SchemaURL, "/unevaluatedItems"), strings.HasSuffix(e.SchemaURL, "/items"):
				return []leaf{{path: loc, rank: rankFalse, msg: "unexpected item"}}
			}
		}
		return []leaf{{path: loc, rank: rankFalse, msg: "is not allowed"}}
	case *kind.Type:
		return []leaf{{path: loc, rank: rankType, types: k.Want, got: k.Got, msg: typeMessage(k.Want, k.Got)}}
	case *kind.Const:
		return []leaf{{path: loc, rank: rankConst, enum: []any{k.Want}, msg: "must equal " + jsonText(k.Want)}}
	case *kind.Enum:
		return []leaf{{path: loc, rank: rankEnum, enum: k.Want, msg: "must be one of " + jsonText(k.Want)}}
	default:
		return []leaf{{path: loc, rank: rankOf(e.ErrorKind), msg: messageOf(e.ErrorKind)}}
	}
}

func dependent(loc []string, prop string, missing []string) []leaf {
	out := make([]leaf, len(missing))
	for i, p := range missing {
		out[i] = leaf{path: loc, rank: rankDependent, seq: i,
			msg: fmt.Sprintf("missing property %s, required when %s is present", jsonText(p), jsonText(prop))}
	}
	return out
}

// branches reports a failed anyOf, or a oneOf that matched nothing. Listing
// every branch's problems would contradict itself ("must be string", "must
// be integer"), so: branches that fail only because the value has another
// type are summarised in one type problem when no branch gets further, and
// dropped otherwise; branches that each want one value are merged into one
// enum problem.
func branches(e *jsonschema.ValidationError, keyword string) []leaf {
	loc := e.InstanceLocation
	var types []string
	got := ""
	var rest [][]leaf
	for _, c := range e.Causes {
		ls := collect(c)
		if len(ls) == 1 && ls[0].types != nil && !ls[0].hasName && slices.Equal(ls[0].path, loc) {
			for _, t := range ls[0].types {
				if !slices.Contains(types, t) {
					types = append(types, t)
				}
			}
			got = ls[0].got
			continue
		}
		rest = append(rest, ls)
	}
	if len(rest) == 0 {
		if len(types) == 0 {
			return []leaf{{path: loc, rank: rankOther, msg: "must match a schema in " + keyword}}
		}
		return []leaf{{path: loc, rank: rankType, types: types, got: got, msg: typeMessage(types, got)}}
	}
	var values []any
	seen := map[string]bool{}
	for _, ls := range rest {
		if len(ls) != 1 || ls[0].enum == nil || ls[0].hasName || !slices.Equal(ls[0].path, loc) {
			values = nil
			break
		}
		for _, v := range ls[0].enum {
			if t := jsonText(v); !seen[t] {
				seen[t] = true
				values = append(values, v)
			}
		}
	}
	if values != nil {
		return []leaf{{path: loc, rank: rankEnum, enum: values, msg: "must be one of " + jsonText(values)}}
	}
	var out []leaf
	for _, ls := range rest {
		out = append(out, ls...)
	}
	return out
}

func typeMessage(want []string, got string) string {
	return fmt.Sprintf("must be %s, got %s", strings.Join(want, " or "), got)
}

func rankOf(k jsonschema.ErrorKind) int {
	switch k.(type) {
	case *kind.Format:
		return rankFormat
	case *kind.MinProperties, *kind.MaxProperties, *kind.MinItems, *kind.MaxItems:
		return rankCount
	case *kind.UniqueItems:
		return rankUnique
	case *kind.MaxContains:
		return rankContains
	case *kind.MinLength, *kind.MaxLength:
		return rankLength
	case *kind.Pattern:
		return rankPattern
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum, *kind.MultipleOf:
		return rankNumber
	case *kind.ContentEncoding, *kind.ContentMediaType:
		return rankContent
	case *kind.Not:
		return rankNot
	case *kind.AdditionalItems:
		return rankFalse
	}
	return rankOther
}

// messageOf words one leaf problem in the seed's style: the pointer is the
// subject, so messages start with a verb or a comparison.
func messageOf(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Format:
		if k.Want == "regex" && k.Err != nil {
			return "is not a valid regex: " + k.Err.Error() // which construct, and why
		}
		return "is not a valid " + k.Want
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("shorter than %d %s", k.Want, plural(k.Want, "character", "characters"))
	case *kind.MaxLength:
		return fmt.Sprintf("longer than %d %s", k.Want, plural(k.Want, "character", "characters"))
	case *kind.Pattern:
		return "does not match pattern " + jsonText(k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("needs at least %d %s", k.Want, plural(k.Want, "item", "items"))
	case *kind.MaxItems:
		return fmt.Sprintf("has more than %d %s", k.Want, plural(k.Want, "item", "items"))
	case *kind.MinProperties:
		return fmt.Sprintf("needs at least %d %s", k.Want, plural(k.Want, "property", "properties"))
	case *kind.MaxProperties:
		return fmt.Sprintf("has more than %d %s", k.Want, plural(k.Want, "property", "properties"))
	case *kind.UniqueItems:
		return fmt.Sprintf("items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.Contains:
		return "has no item matching contains"
	case *kind.MinContains:
		return fmt.Sprintf("needs at least %d %s matching contains, has %d", k.Want, plural(k.Want, "item", "items"), len(k.Got))
	case *kind.MaxContains:
		return fmt.Sprintf("has more than %d %s matching contains", k.Want, plural(k.Want, "item", "items"))
	case *kind.Minimum:
		return "below minimum " + ratText(k.Want)
	case *kind.Maximum:
		return "above maximum " + ratText(k.Want)
	case *kind.ExclusiveMinimum:
		return "at or below exclusive minimum " + ratText(k.Want)
	case *kind.ExclusiveMaximum:
		return "at or above exclusive maximum " + ratText(k.Want)
	case *kind.MultipleOf:
		return "not a multiple of " + ratText(k.Want)
	case *kind.Not:
		return `must not match the "not" schema`
	case *kind.AdditionalItems:
		return fmt.Sprintf("has %d more %s than allowed", k.Count, plural(k.Count, "item", "items"))
	case *kind.ContentEncoding:
		return "is not valid " + k.Want
	case *kind.ContentMediaType:
		return "is not valid " + k.Want
	case *kind.RefCycle:
		return "cannot be validated: the schema's references form a cycle"
	case *kind.InvalidJsonValue:
		return fmt.Sprintf("is not a JSON value (%T)", k.Value)
	}
	// A kind this package does not know yet (a newer library version, a
	// custom vocabulary): name the keyword rather than guess a wording.
	return fmt.Sprintf("fails %s", jsonText(strings.Join(k.KeywordPath(), "/")))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// jsonText renders a value as compact JSON without HTML escaping, the form
// the seed uses in enum lists and quoted names.
func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// ratText renders a schema bound exactly as a decimal when it has one
// (0.1, 1, 1000000), and in shortest float form otherwise.
func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	if n, exact := r.FloatPrec(); exact {
		return r.FloatString(n)
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// repairLocations restores the instance locations of propertyNames and
// contentSchema problems. jsonschema/v6 (v6.0.3, validator.go, the
// propertyNames and contentSchema blocks of (*validator).objValidate and
// (*validator).strValidate) stores its validator's location slice in those
// errors as verr.InstanceLocation = vd.vloc, without the slices.Clone that
// vd.instanceLocation() gives every other error, so the traversal of a
// later sibling overwrites it: {"pn": {"long": 1}, "z": 1} can report the
// property name under "#/z". Upstream has no issue for it; the open pull
// request https://github.com/santhosh-tekuri/jsonschema/pull/269 makes both
// sites call vd.instanceLocation(). Once a release holds that fix, this
// function and relocate can go (TestViolationLocationsNotAliased shows
// when). The length of the stored slice is still right, and every other
// error carries a copy, so the location is found again in inst: below the
// nearest ancestor's location, at that depth, a value the problem can be
// about (an object holding the property, a string), distinct for problems
// of the same keyword.
func repairLocations(e *jsonschema.ValidationError, inst any) {
	used := map[string]bool{}
	var walk func(e *jsonschema.ValidationError, parent []string)
	walk = func(e *jsonschema.ValidationError, parent []string) {
		switch k := e.ErrorKind.(type) {
		case *kind.PropertyNames:
			e.InstanceLocation = relocate(e, parent, inst, used, func(v any) bool {
				obj, ok := v.(map[string]any)
				if !ok {
					return false
				}
				_, ok = obj[k.Property]
				return ok
			})
			return // the causes are about the name, not the instance
		case *kind.ContentSchema:
			e.InstanceLocation = relocate(e, parent, inst, used, func(v any) bool {
				_, ok := v.(string)
				return ok
			})
			return // the causes are about the decoded content
		}
		for _, c := range e.Causes {
			walk(c, e.InstanceLocation)
		}
	}
	walk(e, nil)
}

func relocate(e *jsonschema.ValidationError, parent []string, inst any, used map[string]bool, fits func(any) bool) []string {
	loc := e.InstanceLocation
	n := len(loc)
	if n < len(parent) {
		return slices.Clone(loc)
	}
	// A schema reached through "properties/<name>" names the last token.
	last, hasLast := "", false
	if _, frag, ok := strings.Cut(e.SchemaURL, "#"); ok {
		segs := strings.Split(frag, "/")
		if m := len(segs); m >= 3 && segs[m-3] == "properties" && !strings.ContainsAny(segs[m-2], "~%") {
			last, hasLast = segs[m-2], true
		}
	}
	var cands [][]string
	var find func(v any, path []string)
	find = func(v any, path []string) {
		if len(path) == n {
			if fits(v) && (!hasLast || n > 0 && path[n-1] == last) {
				cands = append(cands, slices.Clone(path))
			}
			return
		}
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				find(v[k], append(path, k))
			}
		case []any:
			for i, x := range v {
				find(x, append(path, strconv.Itoa(i)))
			}
		}
	}
	if at, ok := valueAt(inst, parent); ok {
		find(at, slices.Clone(parent))
	}
	keyOf := func(p []string) string {
		return e.SchemaURL + "\x00" + fmt.Sprint(e.ErrorKind) + "\x00" + pointer(p)
	}
	pick := -1
	for i, c := range cands {
		if used[keyOf(c)] {
			continue
		}
		if slices.Equal(c, loc) {
			pick = i
			break
		}
		if pick < 0 {
			pick = i
		}
	}
	switch {
	case pick >= 0:
		used[keyOf(cands[pick])] = true
		return cands[pick]
	case len(cands) > 0:
		return cands[0] // the same problem twice (allOf of one $ref): deduplicated later
	}
	return slices.Clone(loc)
}

// valueAt returns the value of inst at path.
func valueAt(inst any, path []string) (any, bool) {
	v := inst
	for _, tok := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
