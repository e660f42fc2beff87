package contracts_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/contracts"
)

// TestHostileNumbers checks that a number the JSON Schema library cannot
// compare (it panics in big.Rat or runs out of memory building it) is
// refused by the decoder with a located error, never handed to validation.
func TestHostileNumbers(t *testing.T) {
	t.Parallel()
	reg, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, num string
		wantErr   bool
	}{
		{"huge exponent", "1e1000000000", true},
		{"huge negative exponent", "1e-1000000000", true},
		{"exponent at the bound", "1e10000", false},
		{"exponent past the bound", "1E+10001", true},
		{"many digits", "0." + strings.Repeat("1", 1001), true},
		{"digits at the bound", "0." + strings.Repeat("1", 999), false},
		{"ordinary", "0.25", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := `{"schema": "risk.v1",` + "\n" + `  "probability": ` + tt.num + `}`
			_, err := reg.Validate("risk.v1", []byte(doc))
			var pe *contracts.ParseError
			switch {
			case tt.wantErr && !errors.As(err, &pe):
				t.Fatalf("err = %v, want a ParseError", err)
			case tt.wantErr && (pe.Line != 2 || pe.Column != 18 || !errors.Is(err, contracts.ErrHostileNumber)):
				t.Errorf("err = %v at %d:%d, want ErrHostileNumber at 2:18", err, pe.Line, pe.Column)
			case !tt.wantErr && err != nil:
				t.Errorf("err = %v, want none", err)
			}
			if _, _, err := reg.ValidateAuto([]byte(doc)); tt.wantErr && !errors.Is(err, contracts.ErrHostileNumber) {
				t.Errorf("ValidateAuto: err = %v, want ErrHostileNumber", err)
			}
		})
	}
}

// FuzzNumbers drives the decoder's number guard and validation with any
// literal in a numeric position under minimum, maximum and multipleOf: no
// input may panic, and an accepted literal passed the guard's bounds.
func FuzzNumbers(f *testing.F) {
	reg, err := contracts.Load(nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"0.5", "1e1000000000", "-1e-999999999", "1E+10000", "0." + strings.Repeat("9", 1000), "123456789012345678901234567890e-30", "1e", "--1", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, num string) {
		doc := []byte(`{"schema": "risk.v1", "probability": ` + num + `, "impactEur": ` + num + `}`)
		_, err := reg.Validate("risk.v1", doc)
		if err != nil && !errors.As(err, new(*contracts.ParseError)) {
			t.Fatalf("Validate(%q): unexpected error %v", num, err)
		}
		if _, _, err := reg.ValidateAuto(doc); err != nil && !errors.As(err, new(*contracts.ParseError)) {
			t.Fatalf("ValidateAuto(%q): unexpected error %v", num, err)
		}
	})
}
