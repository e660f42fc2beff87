// This file defines the edits of mcp.http.tokens made in place: a token's
// lines added after the last entry, or taken out, every other line of the
// config kept byte for byte (its comments' alignment, its quoting, its
// line ends). Where the file's shape is not one these edits know (flow
// collections on the way, block scalars, an entry not in block style),
// the caller re-encodes the file instead.

package config

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/foundryhq/foundry/internal/ctrl"
)

// yamlLines is a config file split in lines, each with its line end.
type yamlLines struct {
	lines [][]byte
	nl    string
	root  *yaml.Node // the top-level mapping; nil for an empty document
}

// splitYAML splits data in lines; ok is false where its nodes' lines and
// columns are not those of the lines (a line ended by a lone CR, which
// YAML counts and this split does not).
func splitYAML(data []byte) (yamlLines, bool) {
	if bytes.Contains(bytes.ReplaceAll(data, []byte("\r\n"), nil), []byte("\r")) {
		return yamlLines{}, false
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return yamlLines{}, false
	}
	y := yamlLines{lines: bytes.SplitAfter(data, []byte("\n")), nl: ctrl.LineEnd(data)}
	if n := len(y.lines); n > 0 && len(y.lines[n-1]) == 0 {
		y.lines = y.lines[:n-1]
	}
	if len(doc.Content) > 0 {
		y.root = doc.Content[0]
		if y.root.Kind != yaml.MappingNode || y.root.Style&yaml.FlowStyle != 0 || !y.within(y.root) {
			return yamlLines{}, false
		}
	}
	return y, true
}

// within reports whether every node of n lies on a line of y, at a column
// of that line.
func (y yamlLines) within(n *yaml.Node) bool {
	if n.Line < 1 || n.Line > len(y.lines) || n.Column < 1 || n.Column-1 > len(y.lines[n.Line-1]) {
		return false
	}
	for _, c := range n.Content {
		if !y.within(c) {
			return false
		}
	}
	return true
}

func (y yamlLines) bytes() []byte { return bytes.Join(y.lines, nil) }

// insert puts text (lines, each ended by y.nl) after line n (1-based; 0:
// first), ending line n first where it has no line end.
func (y *yamlLines) insert(n int, text string) {
	if n > 0 && !bytes.HasSuffix(y.lines[n-1], []byte("\n")) {
		y.lines[n-1] = append(append([]byte{}, y.lines[n-1]...), y.nl...)
	}
	add := bytes.SplitAfter([]byte(text), []byte("\n"))
	add = add[:len(add)-1] // text ends with a line end
	y.lines = append(y.lines[:n], append(add, y.lines[n:]...)...)
}

// valueOf returns the key node and the value of key in the mapping m,
// the last where the key repeats (as the decoder takes it); nil when
// absent.
func valueOf(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			k, v = m.Content[i], m.Content[i+1]
		}
	}
	return k, v
}

// blockValue is [valueOf]; ok is false where the value is there but not
// a block collection of the kind want, holding something.
func blockValue(m *yaml.Node, key string, want yaml.Kind) (k, v *yaml.Node, ok bool) {
	k, v = valueOf(m, key)
	return k, v, v == nil || v.Kind == want && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0
}

// lastLine is the last line a node's text reaches, where no scalar in it
// spans lines; ok is false where one does.
func lastLine(n *yaml.Node) (int, bool) {
	last := n.Line
	if n.Kind == yaml.ScalarNode && (n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.ContainsAny(n.Value, "\n")) {
		return 0, false
	}
	if n.Kind == yaml.AliasNode {
		return 0, false
	}
	for _, c := range n.Content {
		l, ok := lastLine(c)
		if !ok {
			return 0, false
		}
		last = max(last, l)
	}
	return last, true
}

// entryText is a token's entry as a block sequence item indented by ind,
// written as the encoder writes it, and items, the indentation of the
// item's keys after the dash.
func (y yamlLines) entryText(t MCPToken, ind, items int) (string, bool) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if enc.Encode(t) != nil {
		return "", false
	}
	var out strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if i == 0 {
			out.WriteString(strings.Repeat(" ", ind) + "-" + strings.Repeat(" ", max(items-ind-1, 1)))
		} else {
			out.WriteString(strings.Repeat(" ", max(items, ind+2)))
		}
		out.WriteString(line + y.nl)
	}
	return out.String(), true
}

// addTokenLines returns data with t's entry added to mcp.http.tokens in
// place; ok is false where the file's shape is not one it edits.
func addTokenLines(data []byte, t MCPToken) ([]byte, bool) {
	y, ok := splitYAML(data)
	if !ok {
		return nil, false
	}
	if y.root == nil {
		// Empty, or comments alone: the blocks after them.
		text, ok := y.entryText(t, 6, 8)
		if !ok {
			return nil, false
		}
		y.insert(len(y.lines), "mcp:"+y.nl+"  http:"+y.nl+"    tokens:"+y.nl+text)
		return y.bytes(), true
	}
	// Walk down mcp → http → tokens; where a block is missing, its lines
	// go after the last line of the block that should hold it, indented
	// as that block's keys.
	parent := y.root
	keyInd, step := y.root.Content[0].Column-1, 2
	blocks := []string{"mcp", "http"}
	for i, key := range blocks {
		_, v, ok := blockValue(parent, key, yaml.MappingNode)
		switch {
		case !ok:
			return nil, false
		case v == nil:
			// Missing from here on: the blocks' lines go after the last
			// line of parent, the deepest block there.
			var head strings.Builder
			for _, k := range blocks[i:] {
				head.WriteString(strings.Repeat(" ", keyInd) + k + ":" + y.nl)
				keyInd += step
			}
			return y.appendBlock(parent, head.String(), keyInd, step, t)
		}
		if in := v.Content[0].Column - 1; in > keyInd {
			step = in - keyInd // the file's indentation
		}
		parent, keyInd = v, v.Content[0].Column-1
	}
	k, seq, ok := blockValue(parent, "tokens", yaml.SequenceNode)
	switch {
	case k == nil:
		return y.appendBlock(parent, "", keyInd, step, t)
	case !ok:
		if seq.Kind == yaml.SequenceNode && seq.Style&yaml.FlowStyle != 0 && len(seq.Content) == 0 && seq.Line == k.Line {
			// tokens: [] on the key's line, as a revocation of the
			// last token leaves it: the list becomes a block.
			line := y.lines[k.Line-1]
			at := bytes.Index(line[k.Column-1:], []byte("[]"))
			if at < 0 {
				return nil, false
			}
			at += k.Column - 1
			y.lines[k.Line-1] = bytes.Join([][]byte{bytes.TrimRight(line[:at], " "), line[at+2:]}, nil)
			text, ok := y.entryText(t, k.Column-1+step, k.Column-1+step+2)
			if !ok {
				return nil, false
			}
			y.insert(k.Line, text)
			return y.bytes(), true
		}
		return nil, false
	}
	first := seq.Content[0]
	last, ok := lastLine(seq)
	if !ok || first.Kind != yaml.MappingNode || first.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	dash := bytes.IndexByte(y.lines[first.Line-1], '-')
	if dash < 0 || dash >= first.Column-1 {
		return nil, false
	}
	text, ok := y.entryText(t, dash, first.Column-1)
	if !ok {
		return nil, false
	}
	y.insert(last, text)
	return y.bytes(), true
}

// appendBlock adds head (the lines of the missing blocks) and a tokens
// list holding t after the last line of the block mapping m, the new keys
// indented by ind, a level deeper by step.
func (y yamlLines) appendBlock(m *yaml.Node, head string, ind, step int, t MCPToken) ([]byte, bool) {
	last, ok := lastLine(m)
	if !ok {
		return nil, false
	}
	text, ok := y.entryText(t, ind+step, ind+step+2)
	if !ok {
		return nil, false
	}
	y.insert(last, head+strings.Repeat(" ", ind)+"tokens:"+y.nl+text)
	return y.bytes(), true
}

// removeTokenLines returns data without the entry of the token named
// tokenName in mcp.http.tokens, taken out in place; the list left empty
// is written "tokens: []". ok is false where the file's shape is not one
// it edits.
func removeTokenLines(data []byte, tokenName string) ([]byte, bool) {
	y, ok := splitYAML(data)
	if !ok || y.root == nil {
		return nil, false
	}
	m := y.root
	for _, key := range []string{"mcp", "http"} {
		_, v, ok := blockValue(m, key, yaml.MappingNode)
		if !ok || v == nil {
			return nil, false
		}
		m = v
	}
	k, seq, ok := blockValue(m, "tokens", yaml.SequenceNode)
	if !ok || k == nil {
		return nil, false
	}
	for _, item := range seq.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		if _, name := valueOf(item, "name"); name == nil || name.Value != tokenName {
			continue
		}
		if item.Style&yaml.FlowStyle != 0 {
			return nil, false
		}
		last, ok := lastLine(item)
		line := y.lines[item.Line-1]
		if dash := bytes.IndexByte(line, '-'); !ok || dash < 0 || dash >= item.Column-1 || len(bytes.TrimSpace(line[:dash])) > 0 {
			return nil, false
		}
		y.lines = append(y.lines[:item.Line-1], y.lines[last:]...)
		if len(seq.Content) == 1 {
			// The list is empty: written so, where it stood.
			kl := y.lines[k.Line-1]
			colon := bytes.Index(kl[k.Column-1:], []byte("tokens:"))
			if colon < 0 {
				return nil, false
			}
			at := k.Column - 1 + colon + len("tokens:")
			y.lines[k.Line-1] = bytes.Join([][]byte{kl[:at], []byte(" []"), kl[at:]}, nil)
		}
		return y.bytes(), true
	}
	return nil, false
}
