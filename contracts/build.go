package contracts

// This file defines the decoding of a document that scan has accepted into
// the values the validator takes: the values encoding/json gives an `any`
// with UseNumber (map[string]any, []any, json.Number, string, bool, nil),
// built directly from the bytes instead of through encoding/json's
// reflection, which dominated a bulk validation. A string with an escape or
// a byte that is not plain ASCII is handed to encoding/json, so every
// string decodes exactly as before.

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"unicode/utf8"
)

// build decodes doc[start:], which scan accepted.
func build(doc []byte, start int) any {
	sc := scratchPool.Get().(*scratch)
	d := builder{b: doc, i: start, sc: sc, keys: sc.keys[:0], vals: sc.vals[:0]}
	d.ws()
	v := d.value()
	sc.keys, sc.vals = d.keys, d.vals
	if cap(sc.keys)+cap(sc.vals) > scratchKeep {
		sc.keys, sc.vals = nil, nil
	}
	scratchPool.Put(sc)
	return v
}

// scratch is what a builder reuses from one document to the next: the
// space for open objects and arrays (each closed value clears its part),
// and the short strings met so far.
type scratch struct {
	keys []string
	vals []any
	// strs maps a short string to itself as a value: documents of one
	// contract repeat their keys and many values ("schema", "finding.v1",
	// "severity", "high"), and a string met before costs neither its copy
	// nor its boxing again, which were most of a document's allocations.
	// At most internMax strings of at most internLen bytes are kept.
	strs map[string]any
}

var scratchPool = sync.Pool{New: func() any { return &scratch{strs: map[string]any{}} }}

const (
	// scratchKeep bounds the scratch space kept for reuse: a document with
	// thousands of values open at once (a long array) keeps its own.
	scratchKeep = 4096
	internMax   = 512
	internLen   = 32
)

// intern returns the string b as a value, the one kept if b was met before.
func (sc *scratch) intern(b []byte) any {
	if len(b) > internLen {
		return string(b)
	}
	if v, ok := sc.strs[string(b)]; ok {
		return v
	}
	s := string(b)
	var v any = s
	if len(sc.strs) < internMax {
		sc.strs[s] = v
	}
	return v
}

// builder holds, besides its place in the document, the members of the
// objects and the elements of the arrays being built: each map and slice is
// made once, at its final size, when it closes, instead of growing as it
// fills (a map of more than eight members grew twice, the slices of an array
// once per doubling).
type builder struct {
	b    []byte
	i    int
	sc   *scratch
	keys []string // the keys of the open objects' members, innermost last
	vals []any    // their values, and the open arrays' elements
}

func (d *builder) ws() {
	for d.i < len(d.b) && isSpace(d.b[d.i]) {
		d.i++
	}
}

func (d *builder) value() any {
	switch d.b[d.i] {
	case '{':
		d.i++
		d.ws()
		if d.b[d.i] == '}' {
			d.i++
			return map[string]any{}
		}
		kb, vb := len(d.keys), len(d.vals)
		for {
			k := d.str().(string)
			d.ws()
			d.i++ // :
			d.ws()
			v := d.value()
			d.keys, d.vals = append(d.keys, k), append(d.vals, v)
			d.ws()
			c := d.b[d.i]
			d.i++
			if c == '}' {
				break
			}
			d.ws()
		}
		keys, vals := d.keys[kb:], d.vals[vb:]
		m := make(map[string]any, len(keys))
		for j, k := range keys {
			m[k] = vals[j] // in document order: a repeated key's last value wins
		}
		clear(keys) // the scratch space keeps nothing alive
		clear(vals)
		d.keys, d.vals = d.keys[:kb], d.vals[:vb]
		return m
	case '[':
		d.i++
		d.ws()
		if d.b[d.i] == ']' {
			d.i++
			return []any{}
		}
		vb := len(d.vals)
		for {
			d.vals = append(d.vals, d.value())
			d.ws()
			c := d.b[d.i]
			d.i++
			if c == ']' {
				break
			}
			d.ws()
		}
		a := slices.Clone(d.vals[vb:])
		clear(d.vals[vb:])
		d.vals = d.vals[:vb]
		return a
	case '"':
		return d.str()
	case 't':
		d.i += len("true")
		return true
	case 'f':
		d.i += len("false")
		return false
	case 'n':
		d.i += len("null")
		return nil
	}
	start := d.i
	for d.i < len(d.b) && isNumberByte(d.b[d.i]) {
		d.i++
	}
	return json.Number(d.b[start:d.i])
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str decodes the string at d.i, as a value.
func (d *builder) str() any {
	start := d.i
	d.i++ // "
	plain := true
	for {
		c := d.b[d.i]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			d.i += 2
			continue
		}
		if c >= utf8.RuneSelf {
			plain = false
		}
		d.i++
	}
	d.i++ // "
	tok := d.b[start:d.i]
	inner := tok[1 : len(tok)-1]
	if plain || (bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner)) {
		return d.sc.intern(inner)
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		// Unreachable after scan; keep the raw text rather than lose it.
		return string(inner)
	}
	return s
}
