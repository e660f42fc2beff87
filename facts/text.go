package facts

// This file defines the text analysis shared by search, dedup and the
// near-duplicate warning: case folding, tokenising, stop words, stemming.

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// extraStopWords complements snowball's English list with words people type
// in queries that carry no meaning for retrieval.
var extraStopWords = map[string]bool{
	"also": true, "us": true, "would": true, "could": true, "get": true, "got": true,
	"via": true, "vs": true, "eg": true, "ie": true, "etc": true, "may": true, "must": true,
	"shall": true, "one": true, "use": true, "uses": true, "used": true, "using": true,
}

// words splits s into lowercase runs of letters and digits. Apostrophes
// inside a word are dropped ("don't" → "dont").
//
// Most text is ASCII and most words are already lowercase: such a word is
// returned as a slice of s, read byte by byte; a word with an upper-case
// letter, an apostrophe or a non-ASCII rune is copied into a buffer, and
// only non-ASCII bytes are decoded as runes. FuzzWordsASCII holds the
// result to the rune-by-rune definition.
func words(s string) []string {
	var out []string
	var buf []byte
	const (
		none     = iota
		verbatim // the word so far is s[start:i]
		buffered // the word so far is buf
	)
	mode, start := none, 0
	// copyOut moves a verbatim word into buf, before a byte that makes
	// it differ from s.
	copyOut := func(i int) {
		switch mode {
		case verbatim:
			buf = append(buf[:0], s[start:i]...)
		case none:
			buf = buf[:0]
		}
		mode = buffered
	}
	flush := func(i int) {
		switch mode {
		case verbatim:
			out = append(out, s[start:i])
		case buffered:
			out = append(out, string(buf))
		}
		mode = none
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				switch mode {
				case none:
					mode, start = verbatim, i
				case buffered:
					buf = append(buf, c)
				}
			case 'A' <= c && c <= 'Z':
				copyOut(i)
				buf = append(buf, c+('a'-'A'))
			case c == '\'':
				if mode == verbatim {
					copyOut(i)
				}
			default:
				flush(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			copyOut(i)
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		case r == '’':
			if mode == verbatim {
				copyOut(i)
			}
		default:
			flush(i)
		}
		i += size
	}
	flush(len(s))
	return out
}

// terms returns the search terms of s: words without stop words and single
// letters, stemmed with the English Snowball stemmer, so "Migrations" and
// "migration" give the same term.
func terms(s string) []string { return termsMemo(s, nil) }

// termsMemo is terms with a memo of stems, for analysing many documents:
// stemming dominates the cost, and a vocabulary is far smaller than a text.
func termsMemo(s string, memo map[string]string) []string {
	var out []string
	eachTerm(s, memo, func(_, stem string) { out = append(out, stem) })
	return out
}

// MaxWordBytes is the longest word, in bytes after case folding, that
// search indexes and looks up: the longest words of real text (German
// compounds, an identifier between its punctuation, a SHA-256 in hex) fit,
// and a longer run of letters and digits (an encoded blob, a minified
// line, a fact of one 60,000-letter word) is not a word anyone searches
// for. A longer word is neither stemmed, indexed, cached nor compared for
// typos, in a fact or in a query: it would cost the memory and time of
// its length once as the word, again as its stem and again in the
// persisted cache, for no query that could match it.
const MaxWordBytes = 64

// eachTerm calls fn with every word of s that carries meaning, as written
// (lowercased) and stemmed, in order: the one filter and stemmer behind
// terms and the surface forms the forgiving matches of search compare
// against. Words longer than [MaxWordBytes] are skipped. memo may be nil.
func eachTerm(s string, memo map[string]string, fn func(word, stem string)) {
	for _, w := range words(s) {
		if len(w) < 2 || len(w) > MaxWordBytes || english.IsStopWord(w) || extraStopWords[w] {
			continue
		}
		if memo == nil {
			fn(w, english.Stem(w, true))
			continue
		}
		st, ok := memo[w]
		if !ok {
			// A word may be a slice of a whole fact body: the memo
			// outlives it, so it keeps copies.
			w = strings.Clone(w)
			st = strings.Clone(english.Stem(w, true))
			memo[w] = st
		}
		fn(w, st)
	}
}

// queryWord is one word of a query: as typed (lowercased) and stemmed.
type queryWord struct{ raw, stem string }

// queryWords returns the words of a query that carry meaning, each with its
// stem, for the forgiving matches of search (prefixes, typos), which need
// the word as typed.
func queryWords(s string) []queryWord {
	var out []queryWord
	eachTerm(s, nil, func(w, stem string) { out = append(out, queryWord{raw: w, stem: stem}) })
	return out
}

// normTitle is the form of a title used to decide that two facts state the
// same thing: lowercase words, punctuation and spacing dropped.
func normTitle(s string) string { return strings.Join(words(s), " ") }

// normBody is the form of a body used for dedup: lowercase, whitespace
// collapsed.
func normBody(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func termSet(s string, memo map[string]string) map[string]bool {
	set := map[string]bool{}
	for _, t := range termsMemo(s, memo) {
		set[t] = true
	}
	return set
}

// sortedTerms is the term set of s as a sorted slice, for jaccardSorted.
func sortedTerms(s string, memo map[string]string) []string {
	ts := termsMemo(s, memo)
	sort.Strings(ts)
	return slices.Compact(ts)
}

// jaccardSorted is jaccard of two sorted term sets: a merge, no map.
func jaccardSorted(as, bs []string) float64 {
	if len(as) == 0 || len(bs) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(as) && j < len(bs); {
		switch {
		case as[i] == bs[j]:
			inter++
			i++
			j++
		case as[i] < bs[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(as)+len(bs)-inter)
}

// jaccard is the Jaccard index of two term sets, 0 when either is empty.
func jaccard(as, bs map[string]bool) float64 {
	if len(as) == 0 || len(bs) == 0 {
		return 0
	}
	inter := 0
	for t := range as {
		if bs[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(as)+len(bs)-inter)
}
