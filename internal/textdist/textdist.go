// Package textdist measures how far apart two words are, for the
// "did you mean" of the CLI and the typo-forgiving memory search.
package textdist

import (
	"slices"
	"unicode/utf8"
)

// Distance returns the optimal-string-alignment Damerau–Levenshtein distance
// between a and b, counted in runes: the fewest insertions, deletions,
// substitutions and transpositions of two adjacent runes that turn a into b.
// It stops counting above max and returns max+1 then, so comparing a word
// against a large vocabulary costs O(len·max) per pair, not O(len²); a
// negative max means no bound.
func Distance(a, b string, max int) int {
	// Words whose lengths differ by more than max are that far apart
	// before either is decoded: a 60,000-rune word among the candidates
	// costs a count, not two rune arrays.
	if d := utf8.RuneCountInString(a) - utf8.RuneCountInString(b); max >= 0 && (d > max || -d > max) {
		return max + 1
	}
	ra, rb := []rune(a), []rune(b)
	if max < 0 {
		max = len(ra) + len(rb)
	}
	if d := len(ra) - len(rb); d > max || -d > max {
		return max + 1
	}
	// Three rolling rows: the one before the previous is what a
	// transposition reads.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if d := prev[len(rb)]; d <= max {
		return d
	}
	return max + 1
}

// Closest returns the candidates within distance max of word, nearest
// first and in the candidates' order among equals. A candidate that starts
// with word also counts, at distance max, so "mem" suggests "memory".
func Closest(word string, candidates []string, max int) []string {
	type hit struct {
		s string
		d int
	}
	var hits []hit
	for _, c := range candidates {
		d := Distance(word, c, max)
		if d > max && len(word) >= 2 && len(c) > len(word) && c[:len(word)] == word {
			d = max
		}
		// A name listed twice (a global flag that is also the command's)
		// is suggested once.
		if d <= max && c != word && !slices.ContainsFunc(hits, func(h hit) bool { return h.s == c }) {
			hits = append(hits, hit{c, d})
		}
	}
	out := make([]string, 0, len(hits))
	for d := 0; d <= max; d++ {
		for _, h := range hits {
			if h.d == d {
				out = append(out, h.s)
			}
		}
	}
	return out
}

// WithinOne reports whether a and b are at most one edit apart — Distance(a,
// b, 1) <= 1 — in one pass without allocating for ASCII text: the check a
// typo-tolerant search runs against every word of a vocabulary.
func WithinOne(a, b string) bool {
	if IsASCII(a) && IsASCII(b) {
		return WithinOneASCII(a, b)
	}
	return withinOneRunes([]rune(a), []rune(b))
}

// IsASCII reports whether s is ASCII text, for which [WithinOneASCII] may
// be called directly.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// WithinOneASCII is [WithinOne] for two ASCII strings, counting bytes: a
// caller that checks one word against many knows which are ASCII already.
func WithinOneASCII(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch {
	case i == len(a): // equal, or b has one more at the end
		return true
	case len(a) == len(b):
		if a[i+1:] == b[i+1:] { // substitution at i
			return true
		}
		// Transposition of i and i+1.
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	}
	return a[i:] == b[i+1:] // b has one more at i
}

// withinOneRunes is withinOne on runes.
func withinOneRunes(a, b []rune) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch {
	case i == len(a):
		return true
	case len(a) == len(b):
		if slices.Equal(a[i+1:], b[i+1:]) {
			return true
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
	}
	return slices.Equal(a[i:], b[i+1:])
}
