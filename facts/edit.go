package facts

// This file defines the edit of a fact file that already exists: retiring
// or superseding a fact changes a key or two of its front matter, and what
// a person wrote around them (comments, quoting, key order, the body as
// typed) stays as it was.

import (
	"bytes"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyOrder is the order of the front-matter keys Format writes; a key an
// edit adds goes after the last key present that comes before it here.
var keyOrder = []string{"id", "type", "title", "scope", "tags", "confidence", "source", "created",
	"expires", "supersedes", "supersededBy", "status", "retiredReason"}

// editFront returns content, the file of fact want, with the front-matter
// keys named set to want's values (a key whose value is empty is removed).
// The front matter goes through a YAML node tree, which keeps comments and
// styles; the body is kept byte for byte. When content cannot be edited so
// (it does not parse as a fact, or the edit would not read back as want) it
// returns Format(want): the fact is right either way, and only the hand
// layout may be lost.
func editFront(content []byte, want Fact, set ...string) []byte {
	canonical := Format(want)
	text, bom := strings.CutPrefix(string(content), "\ufeff")
	// A file written with CRLF is edited as LF and written back with CRLF.
	crlf := strings.Contains(text, "\r\n")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	end, opened := frontBounds(lines)
	if !opened || end < 0 {
		return canonical
	}
	front := strings.Join(lines[1:end], "")
	var doc yaml.Node
	if yaml.Unmarshal([]byte(front), &doc) != nil || doc.Kind != yaml.DocumentNode ||
		len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return canonical
	}
	m := doc.Content[0]
	for _, key := range set {
		setKey(m, key, frontValue(want, key))
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if enc.Encode(&doc) != nil || enc.Close() != nil {
		return canonical
	}
	out := lines[0] + b.String() + strings.Join(lines[end:], "")
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if bom {
		out = "\ufeff" + out
	}
	if got, err := Parse(want.Path, []byte(out)); err != nil || !bytes.Equal(Format(got), canonical) {
		return canonical
	}
	return []byte(out)
}

// frontValue is the front-matter value of key in f, as Format writes it.
func frontValue(f Fact, key string) string {
	switch key {
	case "supersedes":
		return f.Supersedes
	case "supersededBy":
		return f.SupersededBy
	case "status":
		if f.Status == "" {
			return string(Active)
		}
		return string(f.Status)
	case "retiredReason":
		return f.RetiredReason
	}
	return ""
}

// setKey sets key to the string v in mapping m, in place when the key is
// there (keeping the value's comments and quoting), else after the last key
// that precedes it in keyOrder; an empty v removes the key.
func setKey(m *yaml.Node, key, v string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		if v == "" {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
		val := m.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			*val = yaml.Node{Kind: yaml.ScalarNode}
		}
		val.Tag, val.Value = "!!str", v
		if val.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			val.Style = 0
		}
		return
	}
	if v == "" {
		return
	}
	rank := slices.Index(keyOrder, key)
	at := len(m.Content)
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		if r := slices.Index(keyOrder, m.Content[i].Value); r >= 0 && r < rank {
			at = i + 2
			break
		}
	}
	m.Content = slices.Insert(m.Content, at,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
}
