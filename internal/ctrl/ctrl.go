// Package ctrl finds and escapes control characters, which stored text must
// not carry: an ESC sequence printed raw drives the reader's terminal (OSC
// 52 writes some terminals' clipboard). Newline and tab are text, and so is
// a carriage return right before a newline (CRLF line ends); every other C0
// or C1 control character, and DEL, is not.
//
// Nor are the bidirectional embedding, override and isolate controls
// (U+202A to U+202E, U+2066 to U+2069): they make text display in another
// order than it is stored, so a reviewer reading a fact or a runbook in a
// diff or a terminal would approve other words than those an agent reads
// (the "Trojan Source" attack). Text in right-to-left scripts needs none
// of them; the implicit marks (U+200E, U+200F, U+061C) stay text.
package ctrl

import (
	"bytes"
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

// bidi reports whether r is a bidirectional embedding, override or isolate
// control.
func bidi(r rune) bool { return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 }

// notText reports whether the character r at s[i] is one stored text must
// not carry: a control character other than newline, tab and CRLF's
// carriage return, or a bidirectional control.
func notText(s string, i int, r rune) bool {
	return unicode.IsControl(r) && !allowed(s, i, r) || bidi(r)
}

// Find returns the first character of s that is not text (a control
// character, a bidirectional control, a byte that is not UTF-8) and its
// byte offset, or ok false when there is none.
func Find(s string) (r rune, offset int, ok bool) {
	for i, c := range s {
		if c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") || notText(s, i, c) {
			return c, i, true
		}
	}
	return 0, 0, false
}

// Has reports whether b holds a character that is not text (see [Find]).
// Printable ASCII with tabs and newlines, what most files and fields are,
// is decided in one pass over the bytes, with no copy.
func Has[T ~string | ~[]byte](b T) bool {
	for i := 0; i < len(b); i++ {
		if c := b[i]; (c < 0x20 || c > 0x7e) && c != '\n' && c != '\t' {
			_, _, ok := Find(string(b))
			return ok
		}
	}
	return false
}

// name names a character Find returned: "the control character U+001B".
// Find returns U+FFFD only for a byte that is not UTF-8 (the character
// itself is text).
func name(r rune) string {
	switch {
	case r == utf8.RuneError:
		return "a byte that is not UTF-8"
	case bidi(r):
		return fmt.Sprintf("the bidirectional control character %U", r)
	}
	return fmt.Sprintf("the control character %U", r)
}

// rule is the rule a character Find returned breaks; control is how the
// caller words it for a control character (findings say what is text,
// refusals what may appear).
func rule(r rune, control string) string {
	switch {
	case r == utf8.RuneError:
		return "text is UTF-8"
	case bidi(r):
		return "it displays text in another order than it is read"
	}
	return control
}

// Describe names a character Find returned and the rule it breaks, for a
// finding: "the control character U+001B; only newline, tab and a carriage
// return before a newline are text".
func Describe(r rune) string {
	return name(r) + "; " + rule(r, "only newline, tab and a carriage return before a newline are text")
}

// Field is a named text, as FindIn looks through them.
type Field struct{ Name, Text string }

// FindIn returns the first of fields that holds a character that is not
// text (see [Find]), with that character.
func FindIn(fields ...Field) (name string, r rune, ok bool) {
	for _, f := range fields {
		if r, _, ok := Find(f.Text); ok {
			return f.Name, r, true
		}
	}
	return "", 0, false
}

// Check returns an error naming field and the first character of s that is
// not text (see [Find]), with the rule, or nil.
func Check(field, s string) error {
	r, off, ok := Find(s)
	if !ok {
		return nil
	}
	return fmt.Errorf("%s holds %s at byte %d: %s", field, name(r), off, rule(r, "only newline, tab and a carriage return before a newline may appear"))
}

// LineEnd returns how data ends its lines: "\r\n" when its first line ends
// so (a checkout or an editor on Windows), "\n" otherwise. Text added to
// a file is written with its line ends, so the file keeps one kind.
func LineEnd(data []byte) string {
	if first, _, ok := bytes.Cut(data, []byte("\n")); ok && bytes.HasSuffix(first, []byte("\r")) {
		return "\r\n"
	}
	return "\n"
}

// Escape returns s with every character that is not text written as a
// visible \uXXXX escape (ESC is \u001b, U+202E is \u202e, a byte that is
// not UTF-8 is \u00XX), so it prints inert. The escape is also valid
// inside a JSON string, so escaping JSON output keeps it JSON with the same
// meaning.
func Escape(s string) string {
	if _, _, ok := Find(s); !ok {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		switch {
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\u%04x`, s[i])
		case notText(s, i, c):
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
