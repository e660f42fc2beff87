package doctor

import "testing"

// TestControlPosition: a control character's finding is placed by the rule
// every Foundry report follows (contracts.Position): a leading byte order
// mark, and a carriage return before a newline, are not counted.
func TestControlPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		data      string
		line, col int
		message   string
	}{
		{"first line", "ab\x1b", 1, 3, "holds the control character U+001B; only newline, tab and a carriage return before a newline are text"},
		{"after a byte order mark", "\uFEFFab\x1b", 1, 3, "holds the control character U+001B; only newline, tab and a carriage return before a newline are text"},
		{"second line, after a tab", "x\r\n\tc\u202e", 2, 3, "holds the bidirectional control character U+202E; it displays text in another order than it is read"},
		{"after multi-byte characters", "é✓\u0085", 1, 3, "holds the control character U+0085; only newline, tab and a carriage return before a newline are text"},
	}
	for _, tt := range tests {
		f, ok := controlIn("f.md", []byte(tt.data))
		if !ok || f.Line != tt.line || f.Column != tt.col || f.Message != tt.message || f.Check != CheckControlChars {
			t.Errorf("%s: controlIn = %+v, %v; want %d:%d %q", tt.name, f, ok, tt.line, tt.col, tt.message)
		}
	}
}
