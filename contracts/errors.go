package contracts

import (
	"errors"
	"fmt"
)

var (
	// ErrUnknownContract means a contract id names no embedded or
	// project-local contract. The wrapping error lists the available ids.
	ErrUnknownContract = errors.New("unknown contract")
	// ErrNoSchemaField means a document has no top-level "schema" string to
	// pick its contract from. The wrapping error lists the available ids.
	ErrNoSchemaField = errors.New(`no "schema" field`)
	// ErrContractRedefined means a project-local schema file redefines an
	// embedded contract (or shared piece) with different content; a
	// published version is never edited.
	ErrContractRedefined = errors.New("redefines a published contract")
	// ErrSchemaTooDeep means a project-local schema file nests arrays and
	// objects deeper than MaxSchemaDepth.
	ErrSchemaTooDeep = errors.New("schema nested too deep")
	// ErrInvalidSchema means a schema does not compile: it is not valid
	// JSON Schema, or a $ref in it cannot be resolved.
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrHostileNumber means a number has more digits or a larger exponent
	// than validation accepts (see checkNumber).
	ErrHostileNumber = errors.New("number too large to validate")
	// ErrTooManyValues means a document holds more values than validation
	// accepts (maxValues), whatever its size.
	ErrTooManyValues = errors.New("too many values to validate")
	// ErrInvalidID means a name is not a contract noun or id
	// (<noun>.v<major>, lowercase).
	ErrInvalidID = errors.New("invalid contract name")
	// ErrValidatorPanic means the JSON Schema library panicked on a
	// document; the document is reported as not validated.
	ErrValidatorPanic = errors.New("validator failed")
)

// ParseError reports a document that is not parseable JSON, with the
// position of the first offending character (the end of the document when
// it ends too early): 1-based line and column under the rule of
// [Position], and the byte offset.
type ParseError struct {
	Line, Column int
	Offset       int
	Err          error
}

func (e *ParseError) Error() string {
	if errors.Is(e.Err, ErrHostileNumber) || errors.Is(e.Err, ErrTooManyValues) {
		return fmt.Sprintf("refused at %d:%d: %v", e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("not parseable JSON at %d:%d: %v", e.Line, e.Column, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// SchemaFieldError is the error of a document without a "schema" string
// naming its contract. It matches [ErrNoSchemaField].
type SchemaFieldError struct {
	// Problem says what the document holds instead, as a violation does:
	// `#: missing required property "schema"`, `#/schema: must be a string
	// naming a contract, got number`, or `#: must be an object with a
	// "schema" field naming its contract`.
	Problem   string
	available string // the contract ids, for the message
}

// missingSchemaField is the Problem of an object without the field.
const missingSchemaField = `#: missing required property "schema"`

func (e *SchemaFieldError) Error() string {
	if e.Missing() {
		return fmt.Sprintf("%v (available: %s)", ErrNoSchemaField, e.available)
	}
	return fmt.Sprintf("%s (available: %s)", e.Problem, e.available)
}

func (e *SchemaFieldError) Is(target error) bool { return target == ErrNoSchemaField }

// Missing reports whether the document is an object without the field.
func (e *SchemaFieldError) Missing() bool { return e.Problem == missingSchemaField }

// schemaFieldProblem is the Problem of v, a decoded document without a
// "schema" string.
func schemaFieldProblem(v any) string {
	top, ok := v.(map[string]any)
	if !ok {
		return `#: must be an object with a "schema" field naming its contract`
	}
	schema, ok := top["schema"]
	if !ok {
		return missingSchemaField
	}
	return "#/schema: must be a string naming a contract, got " + jsonKind(schema)
}

// jsonKind names the JSON type of a decoded value that is not a string.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "number"
}
