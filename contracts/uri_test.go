package contracts

import "testing"

func TestCheckURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"https://example.com", true},
		{"https://example.com/a/b?c=d&e=f#g", true},
		{"https://user:pa%20ss@example.com:8443/", true},
		{"http://[2001:db8::7]:80/x", true},
		{"http://[v1.fe80::a+en1]/", true},
		{"urn:isbn:0451450523", true},
		{"mailto:a@example.com", true},
		{"file:///etc/hosts", true},
		{"https:", true},
		{"https://example.com:/", true},
		{"x+y-z.w:rest", true},
		{"", false},
		{"example.com/path", false},
		{"/relative", false},
		{"//example.com", false},
		{"1http://x", false},
		{"https://exa mple.com", false},
		{"https://example.com/a b", false},
		{"https://example.com/\\", false},
		{"https://example.com/é", false},
		{"https://example.com/%zz", false},
		{"https://example.com/%4", false},
		{"https://example.com:80a/", false},
		{"https://[::1/", false},
		{"https://[::1]x/", false},
		{"https://[fe80::1%25eth0]/", false},
		{"https://[1.2.3.4]/", false},
		{"https://example.com/#a#b", false},
		{"https://example.com/[x]", false},
		{"https://ex[ample.com/", false},
		{"https://a@b@c/", false},
	}
	for _, tt := range tests {
		if got := checkURI(tt.in) == nil; got != tt.want {
			t.Errorf("checkURI(%q) valid = %v, want %v", tt.in, got, tt.want)
		}
	}
}
