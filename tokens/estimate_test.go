package tokens

import "testing"

func TestEstimate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   int
		want int
	}{
		{"zero", 0, 0},
		{"negative", -5, 0},
		{"one byte", 1, 1},
		{"exact", 8, 2},
		{"seed figure", 2841, 711},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Estimate(tt.in); got != tt.want {
				t.Errorf("Estimate(%d) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}
