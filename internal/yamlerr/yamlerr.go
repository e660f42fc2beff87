// Package yamlerr locates a YAML syntax error and names it in Foundry's own
// words, without reading the parser's message: go.yaml.in/yaml/v3 carries
// an error's position only in its text, whose wording and line base are
// the library's to change. Fact files, runbooks and the config report their
// YAML errors through it, so all three say the same thing.
package yamlerr

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Locate returns the 1-based line of text, a YAML document that does not
// parse, at which it breaks, and what that line shows as text to append to
// "not valid YAML" (": the quoted value is not closed on this line"), or
// "" when the line shows none of the shapes hand edits most often break.
func Locate(text string) (line int, problem string) {
	lines := strings.SplitAfter(text, "\n")
	ends := make([]int, len(lines)+1) // ends[k]: the length of the first k lines
	for i, l := range lines {
		ends[i+1] = ends[i] + len(l)
	}
	b := []byte(text)
	n := errorLine(len(lines), func(k int) bool {
		var n yaml.Node
		return yaml.Unmarshal(b[:ends[k]], &n) == nil
	})
	return n + 1, lineProblem(lines[n])
}

// exactTries bounds how many prefixes errorLine tries one by one before it
// bisects: front matter and a config are a few lines, but a hostile file
// may hold thousands.
const exactTries = 64

// errorLine returns the 0-based line, of a document of n lines, that fails
// to parse as YAML: the line after the longest run of whole lines from the
// start that parses (parses(k) says whether the first k lines do; the whole
// document does not). A value spread over lines ("tags: [a,\n b]") leaves
// shorter runs unparsable, so runs are tried from the longest down; the
// parser stops at its first problem, so each try costs about the text
// before it. After exactTries tries the rest is bisected, which finds a line
// whose addition breaks the parse, though not always the last: a hostile
// document of n lines costs at most exactTries + log2(n) + 1 parses.
func errorLine(n int, parses func(k int) bool) int {
	hi := n // the whole text does not parse
	for tries := 0; hi > 1 && tries < exactTries; tries++ {
		if parses(hi - 1) {
			return hi - 1
		}
		hi--
	}
	lo := 0 // nothing parses as the empty document
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; parses(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// lineProblem names what makes one line unparsable, for the shapes a hand
// edit most often breaks; "" when the line shows none of them.
func lineProblem(line string) string {
	_, val, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
	val = strings.TrimSpace(val)
	if !ok || val == "" {
		return ""
	}
	switch val[0] {
	case '[', '{':
		if !balanced(val) {
			return fmt.Sprintf(": %q is not closed on this line", val[:1])
		}
	case '"', '\'':
		if len(val) < 2 || val[len(val)-1] != val[0] {
			return ": the quoted value is not closed on this line"
		}
	default:
		if strings.Contains(val, ": ") {
			return `: the value holds ": "; put it in quotes`
		}
	}
	return ""
}

// balanced reports whether every bracket of a flow value outside quotes is
// closed within it.
func balanced(v string) bool {
	depth := 0
	var quote byte
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth <= 0 && quote == 0
}
