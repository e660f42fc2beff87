package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"
)

// ID is a request id: a string or an integer from -2^63 to 2^63-1. The
// zero value is the integer 0. IDs are comparable and can key a map: two
// ids are equal exactly when their JSON texts are, because an integer id
// is accepted only in its one canonical form (see [ID.UnmarshalJSON]).
type ID struct {
	num      int64
	str      string
	isString bool
}

// IntID returns the integer id n.
func IntID(n int64) ID { return ID{num: n} }

// StringID returns the string id s.
func StringID(s string) ID { return ID{str: s, isString: true} }

// Text returns the id's text and true for a string id, "" and false for
// an integer one.
func (id ID) Text() (string, bool) { return id.str, id.isString }

// String returns the id as it appears in JSON: quoted when it is a string.
func (id ID) String() string {
	if id.isString {
		return strconv.Quote(id.str)
	}
	return strconv.FormatInt(id.num, 10)
}

// MarshalJSON encodes the id as a JSON string or integer.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.isString {
		return json.Marshal(id.str)
	}
	return strconv.AppendInt(nil, id.num, 10), nil
}

// UnmarshalJSON accepts a JSON string or an integer from -2^63 to 2^63-1
// written in its canonical form: decimal digits, a minus sign only before
// a nonzero value, no leading zeros. Anything else is an error: null,
// fractions (1.0), exponents (1e3), leading zeros (007), -0 and integers
// outside int64. Refusing -0 keeps the rule that an integer id is echoed
// exactly as it came: -0 would otherwise be a second text for the id 0.
func (id *ID) UnmarshalJSON(data []byte) error {
	v, ok := parseID(data)
	if !ok {
		return errInvalidID
	}
	*id = v
	return nil
}

var errInvalidID = errors.New("id must be a string of Unicode text or an integer from -2^63 to 2^63-1 in plain decimal")

// parseID parses a raw JSON id.
func parseID(raw []byte) (ID, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, false
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || !unicodeText(raw) {
			return ID{}, false
		}
		return StringID(s), true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return ID{}, false
	}
	// The canonical form alone: ParseInt also takes "+1", "007" and "-0".
	var buf [20]byte
	if !bytes.Equal(strconv.AppendInt(buf[:0], n, 10), raw) {
		return ID{}, false
	}
	return IntID(n), true
}

// unicodeText reports whether raw, a valid JSON string with its quotes,
// holds Unicode text alone. Decoding turns a lone surrogate escape
// ("\ud800") and a byte that is not UTF-8 into U+FFFD alike, so two ids
// the client keeps apart would become one, and neither could be echoed as
// it was sent.
func unicodeText(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character: a valid string has one
		if raw[i] != 'u' {
			continue
		}
		r := hex4(raw[i+1:])
		i += 4
		if !utf16.IsSurrogate(r) {
			continue
		}
		// A high surrogate, then an escaped low one: one character.
		if r >= 0xdc00 || i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
			return false
		}
		if lo := hex4(raw[i+3:]); lo < 0xdc00 || lo > 0xdfff {
			return false
		}
		i += 6
	}
	return true
}

// hex4 returns the value of the four hexadecimal digits b starts with.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		case c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			r = r<<4 | rune(c-'a'+10)
		}
	}
	return r
}

// raw returns the id as JSON.
func (id ID) raw() json.RawMessage {
	b, _ := id.MarshalJSON() // never fails
	return b
}

// fromWire converts an id decoded by jsonrpc2. jsonrpc2 decodes an integer
// id as an int64 and stores it converted to uint64, so converting back
// restores a negative id.
func fromWire(id jsonrpc2.ID) ID {
	if id.IsString {
		return StringID(id.Str)
	}
	return IntID(int64(id.Num))
}
