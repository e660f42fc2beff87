package yamlerr

import (
	"math/bits"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestLocate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text string
		line       int
		problem    string
	}{
		{"unclosed flow list", "title: t\ntags: [a, b\n", 2, `: "[" is not closed on this line`},
		{"unclosed flow map", "a: {b: 1\n", 1, `: "{" is not closed on this line`},
		{"unclosed quote", "a: 1\nb: 'x\nc: 2\n", 2, ": the quoted value is not closed on this line"},
		{"colon in a plain value", "a: 1\nb: c: d\n", 2, `: the value holds ": "; put it in quotes`},
		{"a list left open over lines", "a: [x,\n  y: z\n", 1, `: "[" is not closed on this line`},
		{"bad indentation", "a:\n  b: 1\n c: 2\n", 3, ""},
		{"crlf", "a: 1\r\nb: 'x\r\n", 2, ": the quoted value is not closed on this line"},
		{"no final newline", "a: 1\nb: [", 2, `: "[" is not closed on this line`},
		{"first line", "a: b: c\n", 1, `: the value holds ": "; put it in quotes`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n yaml.Node
			if yaml.Unmarshal([]byte(tt.text), &n) == nil {
				t.Fatalf("%q parses; the case needs a document that does not", tt.text)
			}
			line, problem := Locate(tt.text)
			if line != tt.line || problem != tt.problem {
				t.Errorf("Locate(%q) = %d, %q; want %d, %q", tt.text, line, problem, tt.line, tt.problem)
			}
		})
	}
}

// TestErrorLineBounded counts the parses errorLine asks for: at most
// exactTries from the end, then a bisection, however long the document
// and wherever it breaks, and the line it returns is the one after the
// longest parsing run when that run is found.
func TestErrorLineBounded(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ n, good int }{
		{1, 0}, {2, 1}, {10, 3}, {100, 99}, {100, 36}, {100, 35}, {16384, 0}, {16384, 2}, {16384, 16320}, {1 << 20, 5},
	} {
		calls := 0
		got := errorLine(tt.n, func(k int) bool {
			calls++
			if k < 0 || k >= tt.n {
				t.Fatalf("n=%d: parses(%d) asks for a run that is not a proper prefix", tt.n, k)
			}
			return k <= tt.good
		})
		if got != tt.good {
			t.Errorf("n=%d, first %d lines parse: errorLine = %d", tt.n, tt.good, got)
		}
		limit := exactTries + bits.Len(uint(tt.n)) + 1
		if calls > limit {
			t.Errorf("n=%d, first %d lines parse: %d parses, want at most %d", tt.n, tt.good, calls, limit)
		}
	}
}

// FuzzLocate: for any document that does not parse, Locate names a line of
// it and never panics.
func FuzzLocate(f *testing.F) {
	for _, s := range []string{"a: [\n", "a: 'x\n", "a: b: c", "a:\n  b: 1\n c: 2\n", "\n\n\t", "- [\n- {\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(text), &n) == nil {
			return
		}
		line, _ := Locate(text)
		if lines := strings.Count(text, "\n") + 1; line < 1 || line > lines {
			t.Fatalf("Locate(%q) = line %d of %d", text, line, lines)
		}
	})
}
