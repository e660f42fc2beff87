// This file decides which detectors run on a text and on which parts of
// it. Go's regexp engine walks every byte of its input, and the assignment
// patterns cost about 150 ns a byte, so a fact that is one 60 KB word took
// 9 ms a detector once a literal such as "pwd" or "key" appeared in it by
// chance; and testing some sixty literals one strings.Contains at a time
// cost more than the rest. One pass over the text finds every literal, and
// each windowed detector runs on the few windows its matches can lie in.

package secrets

import (
	"strings"
	"sync"
)

// anchor says how a detector's matches can be located before its
// expression runs; see [scan.windows].
type anchor int

const (
	// wholeText runs the expression over the whole text.
	wholeText anchor = iota
	// atAssignment is for the key = value patterns: every match holds a
	// ":" or "=" (its separator), preceded by blanks, an optional quote and
	// a key name ending in a keyword, and followed by blanks and a value
	// that ends on its line (or, JSON-escaped, at the next double quote).
	atAssignment
	// atLiteral is for bounded patterns: every match starts where one of
	// the detector's literals starts and is at most span bytes long.
	atLiteral
)

// maxKeyName caps how far before its separator a key name is read: the
// run of letters, digits, "_" and "-" ending in the keyword. Findings are
// those of the expression over the whole text whenever no such run is
// longer; a longer key name is read from its last maxKeyName bytes, which
// can change only whether its keyword counts as glued to a prefix (see
// passwordValue). Without the cap a text that is one long word would be
// scanned whole from every separator after it.
const maxKeyName = 256

// window is a part [start, end) of a text a detector runs on.
type window struct{ start, end int }

// scan holds a text being searched and what its detectors share.
type scan struct {
	norm string
	// plain is false when the text holds ſ or K (Kelvin), which the (?i)
	// expressions equate with s and k, or İ, which strings.ToLower turns
	// into an i: the byte scans here fold ASCII alone, so such a text is
	// filtered on its lowercase copy and scanned whole.
	plain bool
	// present[i] says whether the text holds a literal of detector i;
	// hits[i] lists where the literals of an atLiteral detector i start.
	present  []bool
	hits     [][]int
	sites    []assignSite // the separators of norm, found on first use
	siteDone bool
}

// newScan finds the literals of the detectors in norm. windowed false
// scans every detector over the whole text.
func newScan(norm string, windowed bool) *scan {
	s := &scan{norm: norm, plain: windowed && !strings.Contains(norm, "\u017f") &&
		!strings.Contains(norm, "\u212a") && !strings.Contains(norm, "\u0130")}
	ds := detectors()
	s.present = make([]bool, len(ds))
	if !s.plain {
		lower := strings.ToLower(norm)
		for i, d := range ds {
			if d.caseSensitive {
				s.present[i] = containsAny(norm, d.literals)
			} else {
				s.present[i] = containsAny(lower, d.literals)
			}
		}
		return s
	}
	s.hits = make([][]int, len(ds))
	literalIndex().find(norm, s.present, s.hits)
	return s
}

// mayMatch reports whether the text holds one of detector i's literals.
func (s *scan) mayMatch(i int) bool { return s.present[i] }

// windows returns the parts of the text detector i's expression runs on.
// They are disjoint and in order; each holds every match that starts in
// it, and starts either after a byte that is no word character (so \b
// reads the same there) or before a byte where no match starts. So the
// engine's leftmost-first choices inside a window are the ones it makes
// over the whole text.
func (s *scan) windows(i int) []window {
	d := &detectors()[i]
	switch {
	case !s.plain || d.anchor == wholeText:
		return []window{{0, len(s.norm)}}
	case d.anchor == atAssignment:
		return s.assignmentWindows(d.literals)
	default:
		return literalWindows(s.hits[i], d.span, len(s.norm))
	}
}

// matches returns what d.re.FindAllStringSubmatchIndex returns over the
// whole text, running the expression only on d's windows.
func (s *scan) matches(i int) [][]int {
	d := &detectors()[i]
	var out [][]int
	for _, w := range s.windows(i) {
		for _, idx := range d.re.FindAllStringSubmatchIndex(s.norm[w.start:w.end], -1) {
			for j := range idx {
				if idx[j] >= 0 {
					idx[j] += w.start
				}
			}
			out = append(out, idx)
		}
	}
	return out
}

// literalWindows returns the windows of an atLiteral detector whose
// literals start at hits, in order: from the byte before each (for \b) to
// one byte past the longest match from it (so that $ never matches at a
// window's end but the text's), merged where they overlap.
func literalWindows(hits []int, span, n int) []window {
	var ws []window
	for _, h := range hits {
		ws = addWindow(ws, window{max(h-1, 0), min(h+span+1, n)})
	}
	return ws
}

// addWindow appends w to windows sorted by start, merging it into the last
// one when they overlap or touch: a match never spans two windows.
func addWindow(ws []window, w window) []window {
	if n := len(ws); n > 0 && w.start <= ws[n-1].end {
		ws[n-1].end = max(ws[n-1].end, w.end)
		return ws
	}
	return append(ws, w)
}

// assignSite is one ":" or "=" of a text seen as the separator of an
// assignment: key is where the key name can start, keyEnd where it ends
// (before the blanks and quote), end how far the value can reach.
type assignSite struct{ key, keyEnd, end int }

// assignSites returns every separator of norm that has a key name before
// it, in order. Scanning back stops at the previous separator (no key,
// quote or blank) and forward the next line end is found once for all the
// separators before it, so the work is linear in the text.
func (s *scan) assignSites() []assignSite {
	if s.siteDone {
		return s.sites
	}
	s.siteDone = true
	t := s.norm
	nl, dq := -1, -1 // the next "\n" and `"` at or after the last query
	next := func(c byte, from int, cache *int) int {
		if *cache < from {
			*cache = len(t)
			if i := strings.IndexByte(t[from:], c); i >= 0 {
				*cache = from + i
			}
		}
		return *cache
	}
	// valueEnd bounds the value that starts at the first non-blank at or
	// after v: every form but the JSON-escaped one stops before a line
	// end; that one stops at its closing \", the next double quote.
	valueEnd := func(v int) int {
		for v < len(t) && isSpace(t[v]) {
			v++
		}
		if v >= len(t) {
			return len(t)
		}
		end := next('\n', v, &nl)
		if t[v] == '\\' && v+2 <= len(t) {
			end = max(end, min(next('"', v+2, &dq)+1, len(t)))
		}
		return end
	}
	colon, eq := -1, -1
	for p := 0; p < len(t); p++ {
		if colon < p {
			colon = indexFrom(t, ':', p)
		}
		if eq < p {
			eq = indexFrom(t, '=', p)
		}
		p = min(colon, eq)
		if p >= len(t) {
			break
		}
		q := p
		for q > 0 && isSpace(t[q-1]) {
			q--
		}
		if q > 0 && (t[q-1] == '"' || t[q-1] == '\'') {
			q--
			if q > 0 && t[q-1] == '\\' {
				q--
			}
		}
		k := q
		for k > 0 && q-k < maxKeyName && isKeyByte(t[k-1]) {
			k--
		}
		if k == q {
			continue
		}
		// A two-byte separator (:= or =>) moves the value one byte on.
		end := valueEnd(p + 1)
		if p+2 <= len(t) {
			end = max(end, valueEnd(p+2))
		}
		s.sites = append(s.sites, assignSite{key: k, keyEnd: q, end: end})
	}
	return s.sites
}

// indexFrom returns the index of the first c in t at or after from, or
// len(t).
func indexFrom(t string, c byte, from int) int {
	if i := strings.IndexByte(t[from:], c); i >= 0 {
		return from + i
	}
	return len(t)
}

// assignmentWindows returns the windows of an atAssignment detector: from
// each key name holding one of its keywords (literals) to the furthest
// end of the value after it.
func (s *scan) assignmentWindows(literals []string) []window {
	var ws []window
	for _, site := range s.assignSites() {
		if containsFold(s.norm[site.key:site.keyEnd], literals) {
			ws = addWindow(ws, window{site.key, site.end})
		}
	}
	return ws
}

// isKeyByte reports whether c can be part of a key name.
func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// isSpace reports whether c is a blank as \s means it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// containsFold reports whether key holds one of literals (lowercase) in
// any ASCII case.
func containsFold(key string, literals []string) bool {
	for _, l := range literals {
		for i := range len(key) {
			if hasLiteralAt(key, i, literalRef{lit: l}) {
				return true
			}
		}
	}
	return false
}

// lowerASCII maps a byte to its ASCII lowercase.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// literalRef is one literal of one detector.
type literalRef struct {
	det           int
	lit           string
	caseSensitive bool
	anchored      bool // the detector is atLiteral: record every start
}

// literalTable indexes every literal of the detectors by its first two bytes,
// ASCII-lowercased, so that one pass over a text finds them all.
type literalTable struct {
	pair    [1 << 16]uint8 // two folded bytes → 1 + index in buckets, 0 for none
	buckets [][]literalRef
	single  []literalRef // one-byte literals, found with IndexByte
}

var literalIndex = sync.OnceValue(func() *literalTable {
	x := &literalTable{}
	for i, d := range detectors() {
		for _, l := range d.literals {
			r := literalRef{det: i, lit: l, caseSensitive: d.caseSensitive, anchored: d.anchor == atLiteral}
			if len(l) == 1 {
				x.single = append(x.single, r)
				continue
			}
			k := int(lowerASCII[l[0]])<<8 | int(lowerASCII[l[1]])
			if x.pair[k] == 0 {
				x.buckets = append(x.buckets, nil)
				x.pair[k] = uint8(len(x.buckets))
			}
			x.buckets[x.pair[k]-1] = append(x.buckets[x.pair[k]-1], r)
		}
	}
	return x
})

// find sets present[i] when text holds a literal of detector i, and
// appends to hits[i] where each literal of an anchored detector starts.
func (x *literalTable) find(text string, present []bool, hits [][]int) {
	for _, r := range x.single {
		present[r.det] = present[r.det] || strings.IndexByte(text, r.lit[0]) >= 0
	}
	for i := 0; i+1 < len(text); i++ {
		b := x.pair[int(lowerASCII[text[i]])<<8|int(lowerASCII[text[i+1]])]
		if b == 0 {
			continue
		}
		for _, r := range x.buckets[b-1] {
			if present[r.det] && !r.anchored || !hasLiteralAt(text, i, r) {
				continue
			}
			present[r.det] = true
			if r.anchored {
				hits[r.det] = append(hits[r.det], i)
			}
		}
	}
}

// hasLiteralAt reports whether r's literal starts at text[i].
func hasLiteralAt(text string, i int, r literalRef) bool {
	if len(text)-i < len(r.lit) {
		return false
	}
	if r.caseSensitive {
		return text[i:i+len(r.lit)] == r.lit
	}
	for j := 0; j < len(r.lit); j++ {
		if lowerASCII[text[i+j]] != r.lit[j] {
			return false
		}
	}
	return true
}
