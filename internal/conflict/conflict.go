// Package conflict finds the conflict markers git leaves in a file it could
// not merge, and splits such a file back into the two sides.
//
// A marker is a line that starts with seven '<', '|' or '>' characters
// followed by a space or the end of the line; "=======" counts only inside a
// block opened by "<<<<<<<", because on its own it is a Markdown heading
// underline.
package conflict

import (
	"bytes"
	"fmt"
	"strings"
)

// Block is one conflict in a file. Lines are 1-based; End is 0 when the
// block is never closed, and Start equals End for a stray closing or base
// marker with no opening one.
type Block struct {
	Start int // the "<<<<<<<" line
	Mid   int // the "=======" line; 0 when missing
	End   int // the ">>>>>>>" line
}

// String describes the block as findings and warnings do.
func (b Block) String() string {
	switch {
	case b.Start == b.End:
		return fmt.Sprintf("stray git conflict marker at line %d", b.Start)
	case b.End == 0:
		return fmt.Sprintf("unresolved git conflict markers (<<<<<<< at line %d, never closed)", b.Start)
	}
	return fmt.Sprintf("unresolved git conflict markers (<<<<<<< at line %d, >>>>>>> at line %d)", b.Start, b.End)
}

// Has reports cheaply whether data may hold a marker: [Find] is exact.
func Has(data []byte) bool {
	return bytes.Contains(data, []byte("<<<<<<<")) || bytes.Contains(data, []byte(">>>>>>>")) || bytes.Contains(data, []byte("|||||||"))
}

type kind int

const (
	none kind = iota
	open
	base
	mid
	closing
)

func lineKind(line string) kind {
	line = strings.TrimRight(line, "\r\n")
	if line == "=======" {
		return mid
	}
	if len(line) < 7 || (len(line) > 7 && line[7] != ' ') {
		return none
	}
	switch line[:7] {
	case "<<<<<<<":
		return open
	case "|||||||":
		return base
	case ">>>>>>>":
		return closing
	}
	return none
}

// Find returns the conflict blocks of data in file order, none for a file
// without markers.
func Find(data []byte) []Block {
	if !Has(data) {
		return nil
	}
	var out []Block
	var cur *Block
	for i, line := range strings.SplitAfter(string(data), "\n") {
		n := i + 1
		switch lineKind(line) {
		case open:
			if cur != nil {
				out = append(out, *cur) // a new block opens inside one: the first is never closed
			}
			cur = &Block{Start: n}
		case mid:
			if cur != nil && cur.Mid == 0 {
				cur.Mid = n
			}
		case base:
			if cur == nil {
				out = append(out, Block{Start: n, End: n})
			}
		case closing:
			if cur == nil {
				out = append(out, Block{Start: n, End: n})
				continue
			}
			cur.End = n
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// Split returns the file as each side of the merge left it: the lines
// outside the blocks plus, in each block, the lines of that side. The
// common ancestor's lines of a diff3-style block are dropped: they are in
// the history of both sides. ok is false when data has no markers or a
// block is malformed (never closed, no "=======", a stray marker).
func Split(data []byte) (ours, theirs []byte, ok bool) {
	blocks := Find(data)
	if len(blocks) == 0 {
		return nil, nil, false
	}
	for _, b := range blocks {
		if b.Start == b.End || b.End == 0 || b.Mid == 0 {
			return nil, nil, false
		}
	}
	var o, t bytes.Buffer
	const (
		outside = iota
		inOurs
		inBase
		inTheirs
	)
	state := outside
	for _, line := range strings.SplitAfter(string(data), "\n") {
		k := lineKind(line)
		switch {
		case state == outside && k == open:
			state = inOurs
		case state == inOurs && k == base:
			state = inBase
		case (state == inOurs || state == inBase) && k == mid:
			state = inTheirs
		case state == inTheirs && k == closing:
			state = outside
		case state == outside:
			o.WriteString(line)
			t.WriteString(line)
		case state == inOurs:
			o.WriteString(line)
		case state == inTheirs:
			t.WriteString(line)
		}
	}
	return o.Bytes(), t.Bytes(), true
}
