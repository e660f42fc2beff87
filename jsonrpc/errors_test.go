package jsonrpc

import "testing"

func TestCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{s: "short", n: 10, want: "short"},
		{s: "exactly10!", n: 10, want: "exactly10!"},
		{s: "eleven byte", n: 10, want: "eleven " + "…"},
		{s: "ab€cd", n: 6, want: "ab…"}, // € is 3 bytes: not split
		{s: "abcdef", n: 2, want: "…"},  // no room but for the mark
	}
	for _, tt := range tests {
		if got := Cut(tt.s, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
