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
	"unicode/utf8"
)

// build decodes doc[start:], which scan accepted.
func build(doc []byte, start int) any {
	d := builder{b: doc, i: start}
	d.ws()
	return d.value()
}

type builder struct {
	b []byte
	i int
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
		m := map[string]any{}
		d.ws()
		if d.b[d.i] == '}' {
			d.i++
			return m
		}
		for {
			k := d.str()
			d.ws()
			d.i++ // :
			d.ws()
			m[k] = d.value()
			d.ws()
			c := d.b[d.i]
			d.i++
			if c == '}' {
				return m
			}
			d.ws()
		}
	case '[':
		d.i++
		a := []any{}
		d.ws()
		if d.b[d.i] == ']' {
			d.i++
			return a
		}
		for {
			a = append(a, d.value())
			d.ws()
			c := d.b[d.i]
			d.i++
			if c == ']' {
				return a
			}
			d.ws()
		}
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

// str decodes the string at d.i.
func (d *builder) str() string {
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
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		// Unreachable after scan; keep the raw text rather than lose it.
		return string(inner)
	}
	return s
}
