package contracts

import (
	"testing"
)

// TestCountLimitsBeyondInt: a count limit larger than an int holds means
// what it says (a maximum that bounds nothing, a minimum nothing meets),
// where the library wrapped it (maxLength 2^64 read as 0); the same number
// as data, in a const, stays itself.
func TestCountLimitsBeyondInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, doc string
		valid             bool
	}{
		{"maxLength 2^64", `{"type":"string","maxLength":18446744073709551616}`, `"abc"`, true},
		{"maxLength 1e30", `{"type":"string","maxLength":1e30}`, `"abc"`, true},
		{"minLength 2^64+1", `{"type":"string","minLength":18446744073709551617}`, `"abc"`, false},
		{"minLength beyond 32 bits", `{"type":"string","minLength":999999999999}`, `"abc"`, false},
		{"maxItems nested", `{"properties":{"a":{"items":{"type":"array","maxItems":1e25}}}}`, `{"a":[[1,2,3]]}`, true},
		{"minProperties in allOf", `{"allOf":[{"minProperties":36893488147419103232}]}`, `{"a":1}`, false},
		{"maxContains in $defs", `{"$ref":"#/$defs/x","$defs":{"x":{"contains":{"const":1},"maxContains":1e20}}}`, `[1,1,1]`, true},
		{"small limits as written", `{"type":"string","maxLength":2}`, `"abc"`, false},
		{"a const holding the word", `{"const":{"maxLength":18446744073709551616}}`, `{"maxLength":18446744073709551616}`, true},
		{"a const is not clamped", `{"const":{"maxLength":18446744073709551616}}`, `{"maxLength":9223372036854775807}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, vs := validateWith(t, tt.schema, tt.doc)
			if got := len(vs) == 0; got != tt.valid {
				t.Errorf("%s against %s: valid %v, want %v (%v)", tt.doc, tt.schema, got, tt.valid, vs)
			}
		})
	}
}
