package facts

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// wordsRunes is the definition of words, rune by rune: the reference the
// ASCII fast path is held to.
func wordsRunes(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
		default:
			flush()
		}
	}
	flush()
	return out
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"plain lowercase words", []string{"plain", "lowercase", "words"}},
		{"Mixed CASE, punctuation!", []string{"mixed", "case", "punctuation"}},
		{"don't won’t 'quoted'", []string{"dont", "wont", "quoted"}},
		{"abc'DEF ghi", []string{"abcdef", "ghi"}},
		{"v2 k8s 10ms", []string{"v2", "k8s", "10ms"}},
		{"Größe straße ÉCOLE", []string{"größe", "straße", "école"}},
		{"mixed-ascii-ünïcode", []string{"mixed", "ascii", "ünïcode"}},
		{"bad\xffutf8\xc3", []string{"bad", "utf8"}},
		{"日本語 テキスト", []string{"日本語", "テキスト"}},
		{"  '  ’ ", nil},
	}
	for _, tt := range tests {
		got := words(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("words(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if ref := wordsRunes(tt.in); !slices.Equal(got, ref) {
			t.Errorf("words(%q) = %q, rune by rune %q", tt.in, got, ref)
		}
	}
}

// FuzzWordsASCII holds the ASCII fast path of words to the rune-by-rune
// definition on any input, valid UTF-8 or not.
func FuzzWordsASCII(f *testing.F) {
	for _, s := range []string{"", "Hello, World", "don't", "Größe straße", "a'B’c", "x\xffy", "ﬀ İstanbul K", "fact-0001 v2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := words(s), wordsRunes(s)
		if !slices.Equal(got, want) {
			t.Fatalf("words(%q) = %q, rune by rune %q", s, got, want)
		}
	})
}

// BenchmarkAnalyze10k measures the text analysis of 10,000 facts, the
// core of an index build: word splitting, stop words, stemming.
func BenchmarkAnalyze10k(b *testing.B) {
	fs := genFacts(b, 10000)
	for b.Loop() {
		memo := map[string]string{}
		for _, f := range fs {
			analyze(f, memo)
		}
	}
}

// BenchmarkWords measures word splitting alone over the text of 10,000
// facts, the fast path against the rune-by-rune definition.
func BenchmarkWords(b *testing.B) {
	var text []string
	for _, f := range genFacts(b, 10000) {
		text = append(text, f.Title, f.Body)
	}
	for _, bm := range []struct {
		name string
		fn   func(string) []string
	}{{"fast", words}, {"runes", wordsRunes}} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				for _, s := range text {
					bm.fn(s)
				}
			}
		})
	}
}
