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
}

func FuzzEscape(f *testing.F) {
	f.Add("a\x1b[31mb\r\n\u0085\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if _, _, ok := Find(Escape(s)); ok {
			t.Fatalf("Escape(%q) still holds a control character", s)
		}
	})
}
