package contracts

// This file defines Example: a skeleton artifact generated from a
// contract's compiled schema, checked against it before it is returned.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/foundryhq/foundry/internal/jsonindent"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrNoExample is returned by [Registry.Example] when the generator cannot
// build a value that satisfies the contract at some pointer.
var ErrNoExample = errors.New("cannot generate an example")

// exampleStrings are the values tried, in order, after the one built from
// a string's "pattern" (when it has no "examples" to take from); each is
// checked against the pattern, length bounds and format before it is used.
var exampleStrings = []string{"example", "x", "a", "A", "1", "x-1", "X-1", "a1", "example-1", "EXAMPLE-1"}

// Example returns a skeleton artifact for contract id, indented by two
// spaces: only the required properties, each the schema's "const", its
// first "enum" value, a pattern's first example, or a value of its type
// that meets its format (date, date-time, uri) and its minimum length,
// item count and value. The result is validated against the contract;
// a value the generator cannot satisfy is an [ErrNoExample] naming its
// pointer instead of an invalid example.
func (r *Registry) Example(id string) ([]byte, error) {
	s, err := r.compiled(id)
	if err != nil {
		return nil, err
	}
	budget := maxExampleValues
	v, err := example(s, "#", 0, &budget)
	if err != nil {
		return nil, fmt.Errorf("example of %s: %w", id, err)
	}
	compact, err := jsonindent.Encode(v)
	if err != nil {
		return nil, fmt.Errorf("example of %s: %w", id, err)
	}
	doc := jsonindent.Indent(compact)
	vs, err := r.Validate(id, doc)
	if err != nil {
		return nil, fmt.Errorf("example of %s: %w", id, err)
	}
	if len(vs) > 0 {
		return nil, fmt.Errorf("example of %s: %w at %s: %s", id, ErrNoExample, vs[0].Pointer, vs[0].Message)
	}
	return doc, nil
}

// maxExampleDepth bounds $ref chains and nesting, so a recursive schema
// fails instead of recursing forever.
const maxExampleDepth = 32

// maxExampleValues bounds the values one example holds: the depth bound
// alone still lets arrays of minItems 64, or objects requiring two
// properties of their own kind, multiply to billions of values.
const maxExampleValues = 10000

func example(s *jsonschema.Schema, ptr string, depth int, budget *int) (any, error) {
	if depth > maxExampleDepth {
		return nil, fmt.Errorf("%w at %s: nested too deep", ErrNoExample, ptr)
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("%w at %s: more than %d values", ErrNoExample, ptr, maxExampleValues)
	}
	if s.Bool != nil {
		if !*s.Bool {
			return nil, fmt.Errorf("%w at %s: the schema is false", ErrNoExample, ptr)
		}
		return map[string]any{}, nil
	}
	if s.Ref != nil {
		return example(s.Ref, ptr, depth+1, budget)
	}
	if s.Const != nil {
		return *s.Const, nil
	}
	if s.Enum != nil && len(s.Enum.Values) > 0 {
		return s.Enum.Values[0], nil
	}
	if len(s.Examples) > 0 {
		return s.Examples[0], nil
	}
	types := []string{}
	if s.Types != nil {
		types = s.Types.ToStrings()
	}
	switch {
	case slices.Contains(types, "object") || len(types) == 0 && (s.Properties != nil || s.Required != nil):
		obj := map[string]any{}
		for _, name := range s.Required {
			ps, ok := s.Properties[name]
			if !ok {
				return nil, fmt.Errorf("%w at %s/%s: required but not described", ErrNoExample, ptr, escapeToken(name))
			}
			v, err := example(ps, ptr+"/"+escapeToken(name), depth+1, budget)
			if err != nil {
				return nil, err
			}
			obj[name] = v
		}
		return obj, nil
	case slices.Contains(types, "array"):
		n := 0
		if s.MinItems != nil {
			n = *s.MinItems
		}
		if n > 64 {
			return nil, fmt.Errorf("%w at %s: minItems %d", ErrNoExample, ptr, n)
		}
		arr := make([]any, 0, n)
		for i := range n {
			item := s.Items2020
			if i < len(s.PrefixItems) {
				item = s.PrefixItems[i]
			}
			if item == nil {
				arr = append(arr, "example")
				continue
			}
			v, err := example(item, fmt.Sprintf("%s/%d", ptr, i), depth+1, budget)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		return arr, nil
	case slices.Contains(types, "string"):
		return exampleString(s, ptr)
	case slices.Contains(types, "integer"), slices.Contains(types, "number"):
		n := new(big.Rat)
		if s.Minimum != nil && s.Minimum.Sign() > 0 {
			n.Set(s.Minimum)
		}
		if s.ExclusiveMinimum != nil && n.Cmp(s.ExclusiveMinimum) <= 0 {
			n.Add(s.ExclusiveMinimum, big.NewRat(1, 1))
		}
		if !n.IsInt() {
			if slices.Contains(types, "integer") {
				return nil, fmt.Errorf("%w at %s: minimum %s is not an integer", ErrNoExample, ptr, n.RatString())
			}
			f, _ := n.Float64()
			return f, nil
		}
		return json.Number(n.Num().String()), nil
	case slices.Contains(types, "boolean"):
		return false, nil
	case slices.Contains(types, "null"):
		return nil, nil
	}
	return nil, fmt.Errorf("%w at %s: no type, const or enum to build from", ErrNoExample, ptr)
}

// maxExampleLength bounds the padding a string's minLength asks for: a
// local contract is untrusted, and minLength 1e12 must not allocate 1 TB.
const maxExampleLength = 4096

func exampleString(s *jsonschema.Schema, ptr string) (string, error) {
	if s.MinLength != nil && *s.MinLength > maxExampleLength {
		return "", fmt.Errorf("%w at %s: minLength %d", ErrNoExample, ptr, *s.MinLength)
	}
	var candidates []string
	if s.Format != nil {
		switch s.Format.Name {
		case "date":
			candidates = []string{"2026-01-01"}
		case "date-time":
			candidates = []string{"2026-01-01T00:00:00Z"}
		case "uri":
			candidates = []string{"https://example.com/"}
		}
	}
	if s.Pattern != nil {
		pattern := s.Pattern.String()
		if e, ok := s.Pattern.(*ecmaRegexp); ok {
			pattern = e.Regexp.String() // in Go's syntax
		}
		if c, ok := fromPattern(pattern); ok {
			candidates = append(candidates, c)
		}
	}
	candidates = append(candidates, exampleStrings...)
	for _, c := range candidates {
		if s.MinLength != nil && len([]rune(c)) < *s.MinLength {
			c += strings.Repeat("x", *s.MinLength-len([]rune(c)))
		}
		if s.MaxLength != nil && len([]rune(c)) > *s.MaxLength {
			continue
		}
		if s.Pattern != nil && !s.Pattern.MatchString(c) {
			continue
		}
		if s.Format != nil && s.Format.Validate != nil && s.Format.Validate(c) != nil {
			continue
		}
		return c, nil
	}
	return "", fmt.Errorf("%w at %s: no value tried matches its pattern or format", ErrNoExample, ptr)
}

// classExample returns a character of the class whose ranges are ranges:
// x, a or 0 where it holds one, else its first printable one, else its
// first.
func classExample(ranges []rune) rune {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range "xa0" {
		if in(r) {
			return r
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := max(ranges[i], '!'); r <= ranges[i+1] && r < 0x3000; r++ {
			if unicode.IsPrint(r) {
				return r
			}
		}
	}
	return ranges[0]
}

// fromPattern builds the shortest string the pattern's first alternatives
// spell: each repeat at its minimum, each class its first character. The
// caller checks the result; a pattern it cannot parse gives nothing.
func fromPattern(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(re *syntax.Regexp, depth int) bool
	walk = func(re *syntax.Regexp, depth int) bool {
		if depth > 100 || b.Len() > 4096 {
			return false
		}
		switch re.Op {
		case syntax.OpLiteral:
			b.WriteString(string(re.Rune))
		case syntax.OpCharClass:
			if len(re.Rune) == 0 {
				return false
			}
			b.WriteRune(classExample(re.Rune))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('x')
		case syntax.OpCapture:
			return walk(re.Sub[0], depth+1)
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				if !walk(sub, depth+1) {
					return false
				}
			}
		case syntax.OpAlternate:
			return walk(re.Sub[0], depth+1)
		case syntax.OpPlus:
			return walk(re.Sub[0], depth+1)
		case syntax.OpRepeat:
			for range min(re.Min, 256) {
				if !walk(re.Sub[0], depth+1) {
					return false
				}
			}
		case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
			syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		default:
			return false
		}
		return true
	}
	if !walk(re, 0) {
		return "", false
	}
	return b.String(), true
}
