package hugepages

import "testing"

// TestStretch checks the part of an object that whole huge pages cover,
// for objects not aligned to them and huge pages larger than the object.
func TestStretch(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	tests := []struct {
		name           string
		base, n, size  uintptr
		wantLo, wantHi uintptr
	}{
		{"aligned", 0xc000000000, 4 * mib, 2 * mib, 0xc000000000, 0xc000400000},
		{"unaligned", 0xc000001000, 4 * mib, 2 * mib, 0xc000200000, 0xc000400000},
		{"one page short", 0xc000001000, 2 * mib, 2 * mib, 0xc000200000, 0xc000200000},
		{"huge pages larger than the object", 0xc000002000, 4 * mib, 32 * mib, 0xc002000000, 0xc002000000},
	}
	for _, tt := range tests {
		lo, hi := stretch(tt.base, tt.n, tt.size)
		if lo != tt.wantLo || hi != tt.wantHi {
			t.Errorf("%s: stretch(%#x, %#x, %#x) = [%#x, %#x), want [%#x, %#x)", tt.name, tt.base, tt.n, tt.size, lo, hi, tt.wantLo, tt.wantHi)
		}
	}
}
