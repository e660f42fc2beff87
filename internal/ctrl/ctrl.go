// Package ctrl finds and escapes control characters, which stored text must
// not carry: an ESC sequence printed raw drives the reader's terminal (OSC
// 52 writes some terminals' clipboard). Newline and tab are text, and so is
// a carriage return right before a newline (CRLF line ends); every other C0
// or C1 control character, and DEL, is not.
package ctrl

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// allowed reports whether the control character r at s[i] is text.
func allowed(s string, i int, r rune) bool {
	return r == '\n' || r == '\t' || r == '\r' && i+1 < len(s) && s[i+1] == '\n'
}

// Find returns the first control character of s that is not text and its
// byte offset, or ok false when there is none.
func Find(s string) (r rune, offset int, ok bool) {
	for i, c := range s {
		if c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") || unicode.IsControl(c) && !allowed(s, i, c) {
			return c, i, true
		}
	}
	return 0, 0, false
}

// Check returns an error naming field and the first control character of s
// that is not text, with the rule, or nil.
func Check(field, s string) error {
	r, off, ok := Find(s)
	if !ok {
		return nil
	}
	return fmt.Errorf("%s holds the control character %U at byte %d: only newline, tab and a carriage return before a newline may appear", field, r, off)
}

// Escape returns s with every control character that is not text, and
// every byte that is not UTF-8, written as a visible \u00XX escape (ESC is
// \u001b), so it prints inert. The escape is also valid inside a JSON
// string, so escaping JSON output keeps it JSON with the same meaning.
func Escape(s string) string {
	if _, _, ok := Find(s); !ok {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		switch {
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\u%04x`, s[i])
		case unicode.IsControl(c) && !allowed(s, i, c):
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// Writer escapes what it passes on to w (see [Escape]). A write may end in
// the middle of a UTF-8 sequence or on a carriage return; Writer holds
// those bytes until the next write or Flush decides.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write implements io.Writer; it reports len(p) on success.
func (e *Writer) Write(p []byte) (int, error) {
	data := append(e.pending, p...)
	e.pending = nil
	cut := len(data)
	// Hold a trailing incomplete rune or carriage return.
	for k := 1; k <= utf8.UTFMax && k <= len(data); k++ {
		if utf8.RuneStart(data[len(data)-k]) {
			if !utf8.FullRune(data[len(data)-k:]) {
				cut = len(data) - k
			}
			break
		}
	}
	if cut == len(data) && cut > 0 && data[cut-1] == '\r' {
		cut--
	}
	e.pending = append(e.pending, data[cut:]...)
	if _, err := io.WriteString(e.w, Escape(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the held bytes, escaped.
func (e *Writer) Flush() error {
	if len(e.pending) == 0 {
		return nil
	}
	s := Escape(string(e.pending))
	e.pending = nil
	_, err := io.WriteString(e.w, s)
	return err
}
