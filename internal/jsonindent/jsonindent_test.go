package jsonindent

import (
	"bytes"
	"encoding/json"
	"math"
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

// TestAddedSaturates: once the count reaches math.MaxInt it stays there,
// whatever follows (a colon, a line at depth 0), instead of wrapping to a
// negative count that IndentWith takes as small and bytes.Buffer.Grow
// panics on. Where int is 32 bits, a document some megabytes long indented
// with a wide string reaches it (TestIndentWith); here a level as wide as
// a quarter of math.MaxInt does, on any platform.
func TestAddedSaturates(t *testing.T) {
	for _, doc := range []string{`[[1]]`, `[[1],{"a":1}]`, `[[{"a":1,"b":2}]]`, `{"a":{"b":{"c":[1,2]}},"d":3}`} {
		if got := added([]byte(doc), math.MaxInt/4); got != math.MaxInt {
			t.Errorf("added(%s, MaxInt/4) = %d, want math.MaxInt", doc, got)
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
		var tabs bytes.Buffer
		if err := json.Indent(&tabs, compact, "", "\t\t\t"); err != nil {
			t.Fatal(err)
		}
		if got := IndentWith(compact, "\t\t\t"); !bytes.Equal(got, tabs.Bytes()) {
			t.Fatalf("IndentWith(%s, three tabs) = %q, want %q", compact, got, tabs.Bytes())
		}
	})
}

// TestIndentWith checks that IndentWith indents as json.Indent does with
// any indentation, and leaves compact what indentation would blow up: a
// document nested deep, or one whose indentation is itself large.
func TestIndentWith(t *testing.T) {
	t.Parallel()
	var deep any = "bottom"
	for range 9000 {
		deep = []any{deep}
	}
	small := map[string]any{"a": []any{1, map[string]any{"b": "<c>"}}, "d": []any{}}
	for _, tc := range []struct {
		name    string
		v       any
		with    string
		compact bool
	}{
		{"two spaces", small, "  ", false},
		{"a tab", small, "\t", false},
		{"none", small, "", true},
		{"nested deep", deep, "  ", true},
		{"a wide indentation", []any{[]any{[]any{1, 2}}}, strings.Repeat(" ", MaxAdded/4), true},
		{"a wide indentation on a deep document", deep, strings.Repeat(" ", 1<<20), true},
	} {
		compact, err := Encode(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		got := IndentWith(compact, tc.with)
		if tc.compact {
			if !bytes.Equal(got, compact) {
				t.Errorf("%s: IndentWith = %d bytes, want the %d compact ones", tc.name, len(got), len(compact))
			}
			continue
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact, "", tc.with); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: IndentWith = %q, want %q", tc.name, got, want.Bytes())
		}
	}
}

// TestReindent checks that a stored document is printed as Marshal prints
// its value, compact where indentation would pass MaxAdded, and that what
// is not one JSON value is refused.
func TestReindent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw, want string
	}{
		{"{ \"a\" : [1, {\"b\":\"<c>\"}],\n\t\"d\": [ ] }\n", "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"<c>\"\n    }\n  ],\n  \"d\": []\n}\n"},
		{"\"scalar\"", "\"scalar\"\n"},
		{strings.Repeat("[", 9000) + strings.Repeat("]", 9000), strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n"},
	} {
		got, err := Reindent([]byte(tc.raw))
		if err != nil || string(got) != tc.want {
			t.Errorf("Reindent(%.40q) = %.80q, %v; want %.80q", tc.raw, got, err, tc.want)
		}
	}
	for _, raw := range []string{"", "{", "1 2", "{\"a\":}"} {
		if got, err := Reindent([]byte(raw)); err == nil {
			t.Errorf("Reindent(%q) = %q, want an error", raw, got)
		}
	}
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

// TestOf reads a JSON text's indentation from its first indented line
// after the first, skipping blank ones.
func TestOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{`{"a":1}`, ""},
		{"{\n  \"a\": 1\n}\n", "  "},
		{"{\r\n    \"a\": 1\r\n}\r\n", "    "},
		{"{\n\t\"a\": [\n\t\t1\n\t]\n}", "\t"},
		{"  {\n\"a\": 1}", ""},
		{"{\n   \n  \"a\": 1\n}", "  "},
	} {
		if got := Of(tc.text); got != tc.want {
			t.Errorf("Of(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
