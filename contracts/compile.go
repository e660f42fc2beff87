package contracts

// This file defines how schemas are compiled: one place that configures the
// JSON Schema library (draft, formats, loader) for every caller.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// baseURL is the directory every contract and shared piece lives in. The
// schemas carry relative $ids (their file names), so a $ref to a file name
// resolves to a sibling, exactly as it does for a tool reading the files
// from disk. The .invalid host can never be fetched.
const baseURL = "https://schemas.foundry.invalid/"

// compileOptions selects the validation mode of a compiler.
type compileOptions struct {
	// assertFormat makes "format" an assertion (contracts) instead of an
	// annotation (the 2020-12 default the conformance suite expects).
	assertFormat bool
	// loader resolves references to documents not added as resources: a
	// set's files (setLoader). compile's callers may leave it nil for the
	// embedded contracts; tests use it to serve the suite's remotes.
	loader jsonschema.URLLoader
}

func newCompiler(opts compileOptions) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		return checkURI(s)
	}})
	if opts.assertFormat {
		c.AssertFormat()
	}
	c.UseLoader(opts.loader)
	c.UseRegexpEngine((&regexpCache{m: map[string]*ecmaRegexp{}}).compile)
	return c
}

// ecmaRegexp is a schema's pattern, an ECMA-262 regular expression (see
// ecmaToGo), compiled as Go's regexp. String returns the pattern as the
// schema spells it, for messages.
type ecmaRegexp struct {
	*regexp.Regexp
	src string
}

func (e *ecmaRegexp) String() string { return e.src }

// regexpCache is a compiler's regular expression engine: Go's regexp,
// reading each pattern as ECMA-262 (ecmaToGo), compiling it once. Checking
// a schema against its metaschema compiles every "pattern" (its format is
// "regex"), and compiling the schema compiled each again. The validation
// of a document whose value has format "regex" calls the engine too,
// concurrently and with patterns the document chooses, so it is locked and
// holds at most regexpCacheMax.
type regexpCache struct {
	mu sync.Mutex
	m  map[string]*ecmaRegexp
}

const regexpCacheMax = 256

func (c *regexpCache) compile(pattern string) (jsonschema.Regexp, error) {
	c.mu.Lock()
	re, ok := c.m[pattern]
	c.mu.Unlock()
	if ok {
		return re, nil
	}
	translated, err := ecmaToGo(pattern)
	if err != nil {
		return nil, err
	}
	compiled, err := regexp.Compile(translated)
	if err != nil {
		return nil, err
	}
	re = &ecmaRegexp{compiled, pattern}
	c.mu.Lock()
	if len(c.m) < regexpCacheMax {
		c.m[pattern] = re
	}
	c.mu.Unlock()
	return re, nil
}

// Schema is a compiled JSON Schema, safe for concurrent use.
type Schema struct {
	s *jsonschema.Schema
}

// Compile compiles an arbitrary JSON Schema (2020-12 unless its $schema says
// otherwise), for example an MCP tool's input or output schema. Formats are
// asserted as in contracts. A $ref may name an embedded contract or shared
// piece by file name ("finding.v1.schema.json"); any other external
// reference is an error, since nothing is fetched.
func Compile(schemaJSON []byte) (*Schema, error) {
	return compile(schemaJSON, compileOptions{assertFormat: true})
}

func compile(schemaJSON []byte, opts compileOptions) (*Schema, error) {
	doc, err := parse(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	clampLimits(doc)
	if opts.loader == nil {
		emb, err := embedded()
		if err != nil {
			return nil, fmt.Errorf("compile schema: %w", err)
		}
		opts.loader = setLoader{emb}
	}
	c := newCompiler(opts)
	const url = baseURL + "inline.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("compile schema: %w: %v", ErrInvalidSchema, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w: %s", ErrInvalidSchema, compileErrorText(err))
	}
	return &Schema{s: s}, nil
}

// compileErrorText flattens the library's multi-line compile errors into one
// line.
func compileErrorText(err error) string {
	var verr *jsonschema.SchemaValidationError
	if errors.As(err, &verr) {
		var parts []string
		if ve, ok := verr.Err.(*jsonschema.ValidationError); ok {
			for _, v := range violationsOf(ve, nil, nil) {
				parts = append(parts, v.String())
			}
		}
		if len(parts) > 0 {
			return "not valid against its metaschema: " + strings.Join(parts, "; ")
		}
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Validate validates an already-decoded JSON value (as produced by
// encoding/json, with or without UseNumber); values of other Go types are
// converted through encoding/json first. Violations carry no line or
// column, and come sorted by pointer.
func (s *Schema) Validate(v any) []Violation {
	v, err := normalize(v)
	if err != nil {
		return []Violation{{Pointer: "#", Message: "is not a JSON value: " + err.Error()}}
	}
	return violationsOf(s.s.Validate(v), v, nil)
}

// ValidateJSON parses doc and validates it; violations carry the line and
// column of the offending value and come in document order. The error is a
// *ParseError when doc is not parseable JSON.
func (s *Schema) ValidateJSON(doc []byte) ([]Violation, error) {
	v, err := parse(doc)
	if err != nil {
		return nil, err
	}
	return violationsOf(s.s.Validate(v), v, doc), nil
}
