// Package jsonindent indents JSON as every Foundry file and report has it
// (two spaces, no HTML escaping), and counts what indenting costs before it
// is done: a document nested thousands deep is small compact and gigabytes
// indented, since each line carries its depth in spaces.
package jsonindent

import (
	"bytes"
	"encoding/json"
	"io"
)

// MaxAdded bounds the bytes Marshal lets indentation add.
const MaxAdded = 16 << 20

// Marshal returns v as Foundry prints JSON: indented, ending in a newline,
// or compact on one line where indentation alone would add more than
// MaxAdded bytes (data nested thousands deep).
func Marshal(v any) ([]byte, error) {
	out, err := Encode(v)
	if err != nil || Added(out) > MaxAdded {
		return out, err
	}
	return Indent(out), nil
}

// Write writes v to w as Marshal returns it: how every Foundry JSON answer
// and report is written.
func Write(w io.Writer, v any) error {
	out, err := Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// Encode returns v as compact JSON without HTML escaping, ending in a
// newline, as json.Encoder writes it.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Added returns the bytes that Indent adds to compact, the output of
// Encode: a newline and two spaces a level before each element and each
// closing bracket of a non-empty array or object, and a space after each
// colon. It reads compact once and allocates nothing.
func Added(compact []byte) int {
	n, depth, inString := 0, 0, false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if i+1 < len(compact) && compact[i+1] != ']' && compact[i+1] != '}' {
				n += 1 + 2*depth
			}
		case c == ']' || c == '}':
			depth--
			if i > 0 && compact[i-1] != '[' && compact[i-1] != '{' {
				n += 1 + 2*depth
			}
		case c == ',':
			n += 1 + 2*depth
		case c == ':':
			n++
		}
	}
	return n
}

// Indent returns compact, the output of Encode, indented with two spaces,
// as json.Encoder with SetIndent("", "  ") writes it.
func Indent(compact []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(compact) + Added(compact))
	// Encode's output is valid JSON: Indent cannot fail on it.
	_ = json.Indent(&b, compact, "", "  ")
	return b.Bytes()
}
