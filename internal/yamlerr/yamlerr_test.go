package yamlerr

import (
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
