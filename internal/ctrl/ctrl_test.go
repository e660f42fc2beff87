package ctrl

import (
	"bytes"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"crlf\r\nend", "crlf\r\nend"},
		{"lone\rcr", `lone\u000dcr`},
		{"osc 52 \x1b]52;c;ZXZpbA==\x07", `osc 52 \u001b]52;c;ZXZpbA==\u0007`},
		{"nul\x00del\x7f", `nul\u0000del\u007f`},
		{"c1 \u0085 \u009b", `c1 \u0085 \u009b`},
		{"bad \xff utf8", `bad \u00ff utf8`},
		{"é ✓ \uFFFD", "é ✓ \uFFFD"},
		// Bidirectional controls reorder what is displayed; the implicit
		// marks, and right-to-left text itself, are text.
		{"if admin \u202e } \u2066 x \u2069", `if admin \u202e } \u2066 x \u2069`},
		{"\u202a\u202b\u202c\u202d \u2067\u2068", `\u202a\u202b\u202c\u202d \u2067\u2068`},
		{"mark \u200e \u200f \u061c עברית العربية", "mark \u200e \u200f \u061c עברית العربية"},
		// The characters on either side of the two ranges are text.
		{"\u2029 \u202f \u2065 \u206a", "\u2029 \u202f \u2065 \u206a"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// Split at every byte: the writer gives the same answer.
		for i := 0; i <= len(tt.in); i++ {
			var b bytes.Buffer
			w := NewWriter(&b)
			_, _ = w.Write([]byte(tt.in[:i]))
			_, _ = w.Write([]byte(tt.in[i:]))
			w.Flush()
			if b.String() != tt.want {
				t.Errorf("Writer split at %d of %q = %q, want %q", i, tt.in, b.String(), tt.want)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	if err := Check("title", "fine\r\ntext\twith tab"); err != nil {
		t.Errorf("Check refused text: %v", err)
	}
	err := Check("title", "Evil \x1b]52;c;x\x07")
	if err == nil || !strings.Contains(err.Error(), "title holds the control character U+001B at byte 5") {
		t.Errorf("Check = %v, want the field, the character and its offset", err)
	}
	err = Check("title", "Use the \u202edeliver\u202c queue")
	if err == nil || !strings.Contains(err.Error(), "title holds the bidirectional control character U+202E at byte 8: it displays text in another order than it is read") {
		t.Errorf("Check = %v, want the field, the bidirectional control and its offset", err)
	}
	err = Check("title", "caf\xe9 \ufffd")
	if err == nil || err.Error() != "title holds a byte that is not UTF-8 at byte 3: text is UTF-8" {
		t.Errorf("Check = %v, want the field, the byte that is not UTF-8 and its offset", err)
	}
	if err := Check("title", "a replacement character \ufffd is text"); err != nil {
		t.Errorf("Check refused U+FFFD itself: %v", err)
	}
}

// TestDescribe: the finding's words for what Find returns.
func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string
	}{
		{"a\x1bb", "the control character U+001B; only newline, tab and a carriage return before a newline are text"},
		{"a\u2066b", "the bidirectional control character U+2066; it displays text in another order than it is read"},
		{"a\xffb", "a byte that is not UTF-8; text is UTF-8"},
	} {
		r, _, ok := Find(tt.in)
		if got := Describe(r); !ok || got != tt.want {
			t.Errorf("Describe(Find(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHas: Has agrees with Find, on ASCII (its fast path) and past it.
func TestHas(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "plain {\"a\": 1}\n\tindented", "crlf\r\n", "lone\rcr", "esc \x1b", "del \x7f",
		"c1 \u0085", "bidi \u2066", "é ✓", "bad \xff", "mark \u200f",
	} {
		_, _, want := Find(s)
		if got := Has([]byte(s)); got != want {
			t.Errorf("Has(%q) = %v, Find says %v", s, got, want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("a\x1b[31mb\r\n\u0085\xff")
	f.Add("a \u202e b \u2069 c")
	f.Fuzz(func(t *testing.T, s string) {
		if _, _, ok := Find(Escape(s)); ok {
			t.Fatalf("Escape(%q) still holds a control character", s)
		}
		if _, _, ok := Find(s); Has([]byte(s)) != ok {
			t.Fatalf("Has(%q) disagrees with Find", s)
		}
	})
}

func TestLineEnd(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"", "\n"}, {"one line", "\n"}, {"a\nb\r\n", "\n"}, {"a\r\nb\n", "\r\n"}, {"\r\n", "\r\n"}, {"a\rb\n", "\n"},
	} {
		if got := LineEnd([]byte(tt.in)); got != tt.want {
			t.Errorf("LineEnd(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
