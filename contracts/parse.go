package contracts

// This file defines how documents are decoded, and how byte offsets become
// the 1-based line:column positions that violations and parse errors carry.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"
)

// parse decodes one JSON document the way validation needs it: numbers as
// json.Number (no precision lost), nothing but whitespace after the value.
// Failures are *ParseError values.
func parse(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, parseError(doc, err)
	}
	off := int(dec.InputOffset())
	for off < len(doc) && isSpace(doc[off]) {
		off++
	}
	if off < len(doc) {
		return nil, newParseError(doc, off, fmt.Errorf("invalid character %s after top-level value", quoteChar(doc, off)))
	}
	if off, err := checkNumbers(doc); err != nil {
		return nil, newParseError(doc, off, err)
	}
	return v, nil
}

func parseError(doc []byte, err error) *ParseError {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		// Offset counts the bytes read up to and including the offending
		// one.
		off := int(syn.Offset) - 1
		if off < 0 {
			off = 0
		}
		return newParseError(doc, off, errors.New(syn.Error()))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return newParseError(doc, len(doc), errors.New("unexpected end of JSON input"))
	default:
		return newParseError(doc, 0, err)
	}
}

func newParseError(doc []byte, off int, err error) *ParseError {
	line, col := newLineIndex(doc).position(off)
	return &ParseError{Line: line, Column: col, Err: err}
}

// quoteChar renders the character at doc[off] the way encoding/json does in
// its syntax errors.
func quoteChar(doc []byte, off int) string {
	r, _ := utf8.DecodeRune(doc[off:])
	if r == '\'' {
		return `'\''`
	}
	if r == '"' {
		return `'"'`
	}
	s := fmt.Sprintf("%q", r)
	return "'" + s[1:len(s)-1] + "'"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lineIndex maps byte offsets of a document to 1-based lines and columns.
// Columns count Unicode code points, so they match what an editor shows for
// UTF-8 text (SARIF's "unicodeCodePoints" column kind).
type lineIndex struct {
	doc    []byte
	starts []int // byte offset of the first byte of each line
}

func newLineIndex(doc []byte) *lineIndex {
	starts := []int{0}
	for i, c := range doc {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{doc: doc, starts: starts}
}

func (li *lineIndex) position(off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > len(li.doc) {
		off = len(li.doc)
	}
	// The line is the last one starting at or before off.
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	return i + 1, utf8.RuneCount(li.doc[li.starts[i]:off]) + 1
}
