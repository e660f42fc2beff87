package contracts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPosition holds the one position rule: 1-based; the column is 1 plus
// the code points before the offset on its line; a tab counts 1; a "\r"
// before "\n" and a leading byte order mark are not counted.
func TestPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		doc      string
		at       string // the offset is the first occurrence of at in doc
		wantLine int
		wantCol  int
	}{
		{"start", `{"a": 1}`, `{`, 1, 1},
		{"ascii", `{"a": 1}`, `1`, 1, 7},
		{"multi-byte counts one", `{"héllo": x}`, `x`, 1, 11},
		{"four-byte counts one", `{"😀": x}`, `x`, 1, 7},
		{"tab counts one", "{\t\"a\":\tx}", `x`, 1, 8},
		{"second line", "{\n  \"a\": x}", `x`, 2, 8},
		{"crlf line", "{\r\n  \"a\": x}", `x`, 2, 8},
		{"cr before lf not counted", "{\"a\": 1\r\n}", "\n", 1, 8},
		{"bom not counted", "\uFEFF{\"a\": x}", `x`, 1, 7},
		{"bom only on line 1", "\uFEFF{\n\"a\": x}", `x`, 2, 6},
		{"invalid utf-8 counts per byte", "{\"\xff\xfe\": x}", `x`, 1, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			off := strings.Index(tt.doc, tt.at)
			line, col := Position([]byte(tt.doc), off)
			if line != tt.wantLine || col != tt.wantCol {
				t.Errorf("Position(%q, %d) = %d:%d, want %d:%d", tt.doc, off, line, col, tt.wantLine, tt.wantCol)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		wantErr string // "" for a document that decodes
	}{
		{"object", `{"a": [1, 2.5e3, "x", true, false, null]}`, ""},
		{"bom ignored", "\uFEFF{\"a\": 1}", ""},
		{"crlf", "{\r\n\t\"a\": 1\r\n}\r\n", ""},
		{"syntax", "{\n  \"b\": }", `not parseable JSON at 2:8: invalid character '}' looking for beginning of value`},
		{"syntax after multi-byte", `{"héllo": x}`, `not parseable JSON at 1:11: invalid character 'x' looking for beginning of value`},
		{"syntax after crlf and tab", "{\r\n\t\"a\": x}", `not parseable JSON at 2:7: invalid character 'x' looking for beginning of value`},
		{"syntax after bom", "\uFEFF{\"a\": x}", `not parseable JSON at 1:7: invalid character 'x' looking for beginning of value`},
		{"eof", `{"a": [1`, `not parseable JSON at 1:9: unexpected end of JSON input`},
		{"empty", ``, `not parseable JSON at 1:1: unexpected end of JSON input`},
		{"trailing", "{}\n{}", `not parseable JSON at 2:1: invalid character '{' after top-level value`},
		{"key", `{1: 2}`, `not parseable JSON at 1:2: invalid character '1' looking for beginning of object key string`},
		{"colon", `{"a" 2}`, `not parseable JSON at 1:6: invalid character '2' after object key`},
		{"pair", `{"a": 2 3}`, `not parseable JSON at 1:9: invalid character '3' after object key:value pair`},
		{"element", `[1 2]`, `not parseable JSON at 1:4: invalid character '2' after array element`},
		{"control in string", "[\"a\tb\"]", `not parseable JSON at 1:4: invalid character '\t' in string literal`},
		{"byte that is not UTF-8 in a string", "{\"a\": \"é\xff\"}", `not parseable JSON at 1:9: invalid UTF-8 byte 0xff in string literal`},
		{"truncated UTF-8 in a string", "[\"\xe2\x82\"]", `not parseable JSON at 1:3: invalid UTF-8 byte 0xe2 in string literal`},
		{"lone high surrogate", `{"a": "x\ud800y"}`, `not parseable JSON at 1:9: lone surrogate \ud800 in string literal`},
		{"high surrogate before another escape", `["\uD83D\u0041"]`, `not parseable JSON at 1:3: lone surrogate \uD83D in string literal`},
		{"lone low surrogate", `["\udc32"]`, `not parseable JSON at 1:3: lone surrogate \udc32 in string literal`},
		{"escape", `["\x"]`, `not parseable JSON at 1:4: invalid character 'x' in string escape code`},
		{"hex escape", `["\u12g4"]`, `not parseable JSON at 1:7: invalid character 'g' in \u hexadecimal character escape`},
		{"minus", `[-x]`, `not parseable JSON at 1:3: invalid character 'x' in numeric literal`},
		{"leading zero", `[01]`, `not parseable JSON at 1:3: invalid character '1' after array element`},
		{"decimal point", `[1.]`, `not parseable JSON at 1:4: invalid character ']' after decimal point in numeric literal`},
		{"exponent", `[1e+]`, `not parseable JSON at 1:5: invalid character ']' in exponent of numeric literal`},
		{"literal", `[trux]`, `not parseable JSON at 1:5: invalid character 'x' in literal true (expecting 'e')`},
		{"hostile exponent", `{"probability": 1e1000000000}`, `refused at 1:17: number too large to validate: exponent 1000000000, at most ±10000`},
		{"hostile negative exponent", `[1E-10001]`, `refused at 1:2: number too large to validate: exponent -10001, at most ±10000`},
		{"exponent at the limit", `[1e10000, 1e-10000]`, ""},
		{"hostile digits", "[" + strings.Repeat("9", 1001) + "]", `refused at 1:2: number too large to validate: 1001 digits, at most 1000`},
		{"digits at the limit", "[0." + strings.Repeat("9", 999) + "]", ""},
		{"values at the limit", "[" + strings.Repeat("0,", maxValues-2) + "0]", ""},
		{"too many values", "[" + strings.Repeat("0,", maxValues-1) + "0]", fmt.Sprintf("refused at 1:%d: too many values to validate: more than %d", 2*maxValues, maxValues)},
		{"too deep", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), `not parseable JSON at 1:10001: exceeded max depth of 10000 nested values`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decode([]byte(tt.doc))
			got := ""
			if err != nil {
				got = err.Error()
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %T is not a *ParseError", err)
				}
			}
			if got != tt.wantErr {
				t.Errorf("Decode(%.40q) error = %q, want %q", tt.doc, got, tt.wantErr)
			}
		})
	}
}

// FuzzDecode holds the syntax scan to encoding/json's grammar, and to
// RFC 8259's UTF-8 (which json.Valid does not check): on every input
// without a byte order mark, a hostile number or deep nesting, both accept
// or both refuse; a refusal's offset lies inside the document.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{``, `{}`, `[1, "a", true, null]`, `{"a": {"b": [1.5e-3]}}`, `"\u00e9\ud800"`, "\xff", `01`, `-`, `1.`, `1e`, `tru`, `{"a" 1}`, "[\"\t\"]", `"\x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, err := Decode(doc)
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %T: %v", err, err)
		}
		if pe != nil && (pe.Offset < 0 || pe.Offset > len(doc) || pe.Line < 1 || pe.Column < 1) {
			t.Fatalf("position %d (%d:%d) outside the document of %d bytes", pe.Offset, pe.Line, pe.Column, len(doc))
		}
		if bytes.HasPrefix(doc, bom) || len(doc) > 900 || bytes.Count(doc, []byte("[")) > 100 || errors.Is(err, ErrHostileNumber) {
			return // outside what encoding/json is compared on
		}
		if want := json.Valid(doc) && utf8.Valid(doc) && !loneSurrogate(doc); want != (err == nil) {
			t.Fatalf("Decode error = %v, but json.Valid && utf8.Valid && no lone surrogate = %v", err, want)
		}
	})
}

// loneSurrogate reports whether a JSON text's strings hold a \u escape of
// a surrogate that is not half of a pair: a second reading of the rule,
// kept simple, for FuzzDecode.
func loneSurrogate(doc []byte) bool {
	var units []uint16
	inString := false
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(doc) && doc[i+1] == 'u' && i+6 <= len(doc):
			v, err := strconv.ParseUint(string(doc[i+2:i+6]), 16, 16)
			if err != nil {
				return false // json.Valid refuses it anyway
			}
			units = append(units, uint16(v))
			i += 5
			continue
		case c == '\\':
			i++
		}
		units = append(units, 0) // anything else ends a pair
	}
	for i := 0; i < len(units); i++ {
		switch u := units[i]; {
		case u >= 0xD800 && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000:
			i++
		case u >= 0xD800 && u < 0xE000:
			return true
		}
	}
	return false
}
