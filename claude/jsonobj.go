package claude

// This file defines an order-keeping JSON object, so that merging an entry
// into a user's .mcp.json or settings.json leaves every other key where it
// was and every other value byte for byte as written (up to indentation).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/jsonindent"
)

// object is a JSON object whose values stay raw and whose keys keep their
// order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// parseObject reads a JSON document that must be an object.
func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := newObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonError(err)
		}
		o.set(key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the top-level object")
	}
	return o, nil
}

// jsonError words a decoding error, with the byte offset of a syntax error.
func jsonError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("%v (at byte %d)", syn, syn.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("unexpected end of JSON input")
	}
	return err
}

func (o *object) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set replaces key's value in place, or appends key.
func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// child returns the object at key, a new empty one when key is absent, and
// an error when key holds something else.
func (o *object) child(key string) (*object, error) {
	raw, ok := o.get(key)
	if !ok {
		return newObject(), nil
	}
	c, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%q: must be an object", key)
	}
	return c, nil
}

// MarshalJSON writes the object compactly, keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(raw(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// render is the file content for a JSON value, without HTML escaping and
// ending in a newline, written as the file it replaces, was, is written: its
// indentation (two spaces where it has none, or for a new file, was nil)
// and its line ends, so that a merge changes only the lines it adds.
func render(v any, was []byte) ([]byte, error) {
	compact, err := jsonindent.Encode(v)
	if err != nil {
		return nil, err
	}
	indent := jsonindent.Of(string(was))
	if indent == "" {
		indent = "  "
	}
	out := jsonindent.IndentWith(compact, indent)
	if ctrl.LineEnd(was) == "\r\n" {
		// A JSON text holds no newline but between its tokens.
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out, nil
}

// raw marshals a value of this package's own types (which always marshal)
// or one holding a user's raw JSON, without HTML escaping: json.Marshal
// would turn a hook command's "&&" into "\u0026\u0026".
func raw(v any) json.RawMessage {
	b, _ := jsonindent.Encode(v)
	return bytes.TrimSuffix(b, []byte("\n"))
}
