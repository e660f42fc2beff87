package hugepages

import "testing"

// TestStretch checks the part of an object that whole huge pages cover,
// for objects not aligned to them and huge pages larger than the object.
// The addresses fit 32 bits.
func TestStretch(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	tests := []struct {
		name           string
		base, n, size  uintptr
		wantLo, wantHi uintptr
	}{
		{"aligned", 0x40000000, 4 * mib, 2 * mib, 0x40000000, 0x40400000},
		{"unaligned", 0x40001000, 4 * mib, 2 * mib, 0x40200000, 0x40400000},
		{"one page short", 0x40001000, 2 * mib, 2 * mib, 0x40200000, 0x40200000},
		{"huge pages larger than the object", 0x40002000, 4 * mib, 32 * mib, 0x42000000, 0x42000000},
	}
	for _, tt := range tests {
		lo, hi := stretch(tt.base, tt.n, tt.size)
		if lo != tt.wantLo || hi != tt.wantHi {
			t.Errorf("%s: stretch(%#x, %#x, %#x) = [%#x, %#x), want [%#x, %#x)", tt.name, tt.base, tt.n, tt.size, lo, hi, tt.wantLo, tt.wantHi)
		}
	}
}
