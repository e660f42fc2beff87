package claude

// This file defines the edit init makes to a user's JSON file in place: a
// member added to an object, or an element to an array, the objects on the
// way made where missing, written in the style of their surroundings.
// Every other byte of the file stays as it was (an object written on one
// line stays on one line; key order, spacing and escapes stay), so the
// diff of a committed file shows only what init added.

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/jsonindent"
)

// insertion is one addition to a JSON document whose top level is an
// object.
type insertion struct {
	path  []string        // the keys from the top-level object to the container changed
	key   string          // the member added to the object at path; "" appends to the array at path
	value json.RawMessage // compact
}

// errShape is the error of an insertion whose path crosses a value of
// another kind than it needs; the merge that made it has checked the
// kinds already.
var errShape = errors.New("the file does not have the shape its merge found")

// apply returns data, a JSON document whose top level is an object, with
// the insertion made.
func (in insertion) apply(data []byte) ([]byte, error) {
	s := scanner{data: data}
	at := s.ws(0)
	if at >= len(data) || data[at] != '{' {
		return nil, errShape
	}
	for i, k := range in.path {
		m, ok := s.member(at, k)
		if !ok {
			// Missing from here on: one member carries the rest.
			return s.insertMember(at, k, in.nest(in.path[i+1:]))
		}
		at = m
		want := byte('{')
		if i == len(in.path)-1 && in.key == "" {
			want = '['
		}
		if at >= len(data) || data[at] != want {
			return nil, errShape
		}
	}
	if in.key == "" {
		return s.appendElement(at, in.value)
	}
	return s.insertMember(at, in.key, in.value)
}

// nest is the compact value that holds the insertion under the keys
// rest, for a path missing from there on.
func (in insertion) nest(rest []string) json.RawMessage {
	v := in.value
	if in.key == "" {
		v = slices.Concat([]byte("["), v, []byte("]"))
	} else {
		v = slices.Concat([]byte("{"), raw(in.key), []byte(":"), v, []byte("}"))
	}
	for _, k := range slices.Backward(rest) {
		v = slices.Concat([]byte("{"), raw(k), []byte(":"), v, []byte("}"))
	}
	return v
}

// scanner finds the parts of a valid JSON document by their offsets.
type scanner struct {
	data []byte
}

// ws returns the offset of the first byte at or after i that is not
// white space.
func (s scanner) ws(i int) int {
	for i < len(s.data) && (s.data[i] == ' ' || s.data[i] == '\t' || s.data[i] == '\n' || s.data[i] == '\r') {
		i++
	}
	return i
}

// skip returns the offset just after the value that starts at i.
func (s scanner) skip(i int) int {
	if i >= len(s.data) {
		return i
	}
	switch s.data[i] {
	case '"':
		for i++; i < len(s.data); i++ {
			switch s.data[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(s.data); i++ {
			switch s.data[i] {
			case '"':
				i = s.skip(i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(s.data) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(s.data[i])) {
		i++
	}
	return i
}

// part is one member of an object (key, its value) or one element of an
// array (its value alone: key is -1).
type part struct {
	key, keyEnd int // the key's quotes included
	val, end    int
}

// parts returns the members or elements of the container at open, and
// the offset of its closing bracket.
func (s scanner) parts(open int) (parts []part, closing int) {
	object := s.data[open] == '{'
	i := s.ws(open + 1)
	for i < len(s.data) && s.data[i] != '}' && s.data[i] != ']' {
		p := part{key: -1}
		if object {
			p.key, p.keyEnd = i, s.skip(i)
			i = s.ws(p.keyEnd)
			i = s.ws(i + 1) // the colon
		}
		p.val, p.end = i, s.skip(i)
		parts = append(parts, p)
		i = s.ws(p.end)
		if i < len(s.data) && s.data[i] == ',' {
			i = s.ws(i + 1)
		}
	}
	return parts, i
}

// member returns the offset of the value of key in the object at open,
// the last one where the key repeats, as a decoder takes it.
func (s scanner) member(open int, key string) (int, bool) {
	ps, _ := s.parts(open)
	for _, p := range slices.Backward(ps) {
		var k string
		if json.Unmarshal(s.data[p.key:p.keyEnd], &k) == nil && k == key {
			return p.val, true
		}
	}
	return 0, false
}

// insertMember adds key: value as the last member of the object at open.
func (s scanner) insertMember(open int, key string, value json.RawMessage) ([]byte, error) {
	ps, closing := s.parts(open)
	if closing >= len(s.data) {
		return nil, errShape
	}
	if len(ps) == 0 {
		return s.fillEmpty(open, closing, slices.Concat(raw(key), []byte(": ")), slices.Concat(raw(key), []byte(":")), value), nil
	}
	first, last := ps[0], ps[len(ps)-1]
	colon := s.data[first.keyEnd:first.val]
	return s.after(open, first.key, ps, last.end, slices.Concat(raw(key), colon), value), nil
}

// appendElement adds value as the last element of the array at open.
func (s scanner) appendElement(open int, value json.RawMessage) ([]byte, error) {
	ps, closing := s.parts(open)
	if closing >= len(s.data) {
		return nil, errShape
	}
	if len(ps) == 0 {
		return s.fillEmpty(open, closing, nil, nil, value), nil
	}
	return s.after(open, ps[0].val, ps, ps[len(ps)-1].end, nil, value), nil
}

// after inserts lead followed by value after the last part of the
// container at open, ending at end, in the style of its first part, which
// starts at first: on a line of its own, indented as the first part is,
// where that one is; else on the same line, after the space that
// separates the parts (or follows the opening bracket, or else a space
// in a spaced document).
func (s scanner) after(open, first int, ps []part, end int, lead []byte, value json.RawMessage) []byte {
	nl := []byte(ctrl.LineEnd(s.data))
	var text []byte
	if gap := s.data[open+1 : first]; bytes.IndexByte(gap, '\n') >= 0 {
		ind := gap[bytes.LastIndexByte(gap, '\n')+1:]
		text = slices.Concat([]byte(","), nl, ind, lead, s.indented(value, ind, nl))
	} else {
		sep := gap
		switch {
		case len(ps) > 1:
			sep = bytes.Replace(s.data[ps[0].end:s.partStart(ps[1])], []byte(","), nil, 1)
		case len(gap) == 0 && s.spaced():
			sep = []byte(" ") // one part, no space to copy: the document's
		}
		v := s.oneLine(value)
		if bytes.IndexByte(s.data[ps[len(ps)-1].val:end], '\n') >= 0 {
			// The parts open on the bracket's line and span lines: the
			// new one too, indented as the line it starts on.
			v = s.indented(value, s.lineIndent(end), nl)
		}
		text = slices.Concat([]byte(","), sep, lead, v)
	}
	return slices.Concat(s.data[:end], text, s.data[end:])
}

// partStart is where a part begins: its key, or its value.
func (s scanner) partStart(p part) int {
	if p.key >= 0 {
		return p.key
	}
	return p.val
}

// fillEmpty writes the first member (lead and value) into the empty
// container from open to closing: on a line of its own, one level deeper
// than the line of the opening bracket, in a document of several lines;
// in one with a single line, compact (compactLead).
func (s scanner) fillEmpty(open, closing int, lead, compactLead []byte, value json.RawMessage) []byte {
	if bytes.IndexByte(s.data, '\n') < 0 {
		return slices.Concat(s.data[:open+1], compactLead, s.oneLine(value), s.data[closing:])
	}
	nl := []byte(ctrl.LineEnd(s.data))
	ind := s.lineIndent(open)
	inner := slices.Concat(ind, s.unit())
	return slices.Concat(s.data[:open+1], nl, inner, lead, s.indented(value, inner, nl), nl, ind, s.data[closing:])
}

// spaced reports whether the document puts a space after its colons or
// commas.
func (s scanner) spaced() bool {
	return bytes.Contains(s.data, []byte(": ")) || bytes.Contains(s.data, []byte(", "))
}

// oneLine is value on one line, with a space after each colon and comma
// in a spaced document.
func (s scanner) oneLine(value json.RawMessage) []byte {
	if !s.spaced() {
		return value
	}
	out := make([]byte, 0, len(value)+len(value)/4)
	in := false
	for i := 0; i < len(value); i++ {
		c := value[i]
		out = append(out, c)
		switch {
		case in && c == '\\' && i+1 < len(value):
			i++
			out = append(out, value[i])
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

// lineIndent returns the leading white space of the line that holds the
// offset i.
func (s scanner) lineIndent(i int) []byte {
	start := bytes.LastIndexByte(s.data[:i], '\n') + 1
	end := start
	for end < len(s.data) && (s.data[end] == ' ' || s.data[end] == '\t') {
		end++
	}
	return s.data[start:end]
}

// unit is one level of the document's indentation, two spaces where it
// has none.
func (s scanner) unit() []byte {
	if u := jsonindent.Of(string(s.data)); u != "" {
		return []byte(u)
	}
	return []byte("  ")
}

// indented is value laid out as the document is, its lines after the
// first prefixed with ind and ended with nl.
func (s scanner) indented(value json.RawMessage, ind, nl []byte) []byte {
	var b bytes.Buffer
	if json.Indent(&b, bytes.TrimSpace(value), string(ind), string(s.unit())) != nil {
		return value
	}
	if string(nl) != "\n" {
		return bytes.ReplaceAll(b.Bytes(), []byte("\n"), nl)
	}
	return b.Bytes()
}
