package jsonindent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestIndent checks that Indent writes what an indenting encoder writes,
// and that Added is the bytes it adds, on values of every shape.
func TestIndent(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{1, []any{"x", map[string]any{"d": nil}}}},
		map[string]any{"s": `quote " and \ and ] and , and : and {`, "t": "<html> & é", "u": "\x1b\u2028"},
		struct {
			Name string   `json:"name"`
			List []string `json:"list"`
		}{"n", []string{"a", "b"}},
		"scalar", 12.5, nil,
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		compact, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := Indent(compact); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("Indent(%s) =\n%s\nwant\n%s", compact, got, want.Bytes())
		}
		if got, want := Added(compact), want.Len()-len(compact); got != want {
			t.Errorf("Added(%s) = %d, want %d", compact, got, want)
		}
	}
}

// FuzzAdded holds Added to what json.Indent adds, on every valid document
// Encode could have written.
func FuzzAdded(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":"]\"["}],"c":{}}`, `"x"`, `[[[[]]],[{}]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var v any
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		compact, err := Encode(v)
		if err != nil {
			return
		}
		if got, want := Added(compact), len(Indent(compact))-len(compact); got != want {
			t.Fatalf("Added(%s) = %d, want %d", compact, got, want)
		}
	})
}

// TestWrite checks that Write indents, and that data nested so deep that
// indentation would pass MaxAdded is written compact, on one line.
func TestWrite(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	if err := Write(&got, map[string]any{"a": []any{1, "<b>"}}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": [\n    1,\n    \"<b>\"\n  ]\n}\n"; got.String() != want {
		t.Errorf("writeJSON = %q, want %q", got.String(), want)
	}
	var deep any = "bottom"
	for range 9000 {
		deep = []any{deep}
	}
	got.Reset()
	if err := Write(&got, map[string]any{"deep": deep}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got.String(), "\n"); n != 1 || !json.Valid(got.Bytes()) {
		t.Errorf("deep data: %d lines of %d bytes, want one line of valid JSON", n, got.Len())
	}
}
