package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"
)

// ID is a request id: a string or a non-negative integer. The zero value
// is the integer 0. IDs are comparable and can key a map.
type ID struct {
	num      uint64
	str      string
	isString bool
}

// IntID returns the integer id n.
func IntID(n uint64) ID { return ID{num: n} }

// StringID returns the string id s.
func StringID(s string) ID { return ID{str: s, isString: true} }

// String returns the id as it appears in JSON: quoted when it is a string.
func (id ID) String() string {
	if id.isString {
		return strconv.Quote(id.str)
	}
	return strconv.FormatUint(id.num, 10)
}

// MarshalJSON encodes the id as a JSON string or integer.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.isString {
		return json.Marshal(id.str)
	}
	return strconv.AppendUint(nil, id.num, 10), nil
}

// UnmarshalJSON accepts a JSON string or an integer from 0 to 2^63-1, the
// ids this package serves; anything else (null, negative, fractional or
// exponent numbers) is an error.
func (id *ID) UnmarshalJSON(data []byte) error {
	v, ok := parseID(data)
	if !ok {
		return errInvalidID
	}
	*id = v
	return nil
}

var errInvalidID = errors.New("id must be a string or a non-negative integer")

// parseID parses a raw JSON id.
func parseID(raw []byte) (ID, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, false
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return ID{}, false
		}
		return StringID(s), true
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return ID{}, false
		}
	}
	if len(raw) > 1 && raw[0] == '0' {
		return ID{}, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return ID{}, false
	}
	return IntID(uint64(n)), true
}

// raw returns the id as JSON.
func (id ID) raw() json.RawMessage {
	b, _ := id.MarshalJSON() // never fails
	return b
}

func fromWire(id jsonrpc2.ID) ID {
	if id.IsString {
		return StringID(id.Str)
	}
	return IntID(id.Num)
}

func (id ID) wire() jsonrpc2.ID {
	return jsonrpc2.ID{Num: id.num, Str: id.str, IsString: id.isString}
}
