// Package jsonindent indents JSON as every Foundry file and report has it
// (two spaces, no HTML escaping), and counts what indenting costs before it
// is done: a document nested thousands deep is small compact and gigabytes
// indented, since each line carries its depth in spaces.
package jsonindent

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
)

// MaxAdded bounds the bytes Marshal lets indentation add.
const MaxAdded = 16 << 20

// Marshal returns v as Foundry prints JSON: indented, ending in a newline,
// or compact on one line where indentation alone would add more than
// MaxAdded bytes (data nested thousands deep).
func Marshal(v any) ([]byte, error) {
	out, err := Encode(v)
	if err != nil {
		return nil, err
	}
	return IndentWith(out, "  "), nil
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
	return added(compact, 2)
}

// added is Added with width bytes of indentation a level, saturating at
// math.MaxInt where the count would overflow it.
func added(compact []byte, width int) int {
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
				n = line(n, depth, width)
			}
		case c == ']' || c == '}':
			depth--
			if i > 0 && compact[i-1] != '[' && compact[i-1] != '{' {
				n = line(n, depth, width)
			}
		case c == ',':
			n = line(n, depth, width)
		case c == ':' && n < math.MaxInt:
			n++
		}
	}
	return n
}

// line returns n plus a new line indented depth levels of width bytes,
// saturating at math.MaxInt.
func line(n, depth, width int) int {
	if n == math.MaxInt || width > 0 && depth > (math.MaxInt-1-n)/width {
		return math.MaxInt
	}
	return n + 1 + depth*width
}

// Indent returns compact, the output of Encode, indented with two spaces,
// as json.Encoder with SetIndent("", "  ") writes it.
func Indent(compact []byte) []byte {
	return indent(compact, Added(compact), "  ")
}

func indent(compact []byte, added int, with string) []byte {
	var b bytes.Buffer
	b.Grow(len(compact) + added)
	// Encode's output is valid JSON: Indent cannot fail on it.
	_ = json.Indent(&b, compact, "", with)
	return b.Bytes()
}

// IndentWith returns compact, the output of Encode, indented with the
// string with a level, or compact as it is where that would add more than
// MaxAdded bytes.
func IndentWith(compact []byte, with string) []byte {
	n := added(compact, len(with))
	if with == "" || n > MaxAdded {
		return compact
	}
	return indent(compact, n, with)
}

// Of returns the indentation a JSON text is written with: the leading
// white space of its first indented line after the first, "" when it has
// none (compact).
func Of(text string) string {
	_, rest, _ := strings.Cut(text, "\n")
	for line := range strings.Lines(rest) {
		if ws := line[:len(line)-len(strings.TrimLeft(line, " \t"))]; ws != "" && strings.TrimSpace(line) != "" {
			return ws
		}
	}
	return ""
}

// Reindent returns the JSON document raw as Marshal prints a value:
// indented with two spaces and ending in a newline, or compact where
// indentation would add more than MaxAdded bytes. It fails on raw that is
// not one JSON value.
func Reindent(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(raw) + 1)
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return IndentWith(b.Bytes(), "  "), nil
}
