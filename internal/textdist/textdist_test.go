package textdist

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		max  int
		want int
	}{
		{"", "", -1, 0},
		{"abc", "abc", 1, 0},
		{"webhok", "webhook", 1, 1},   // insertion
		{"webhooks", "webhook", 1, 1}, // deletion
		{"serach", "search", 1, 1},    // transposition
		{"searxh", "search", 1, 1},    // substitution
		{"ca", "abc", -1, 3},          // OSA, not unrestricted Damerau
		{"kitten", "sitting", -1, 3},  // the textbook case
		{"kitten", "sitting", 1, 2},   // bounded: max+1
		{"a", "abcdef", 2, 3},         // length gap alone exceeds max
		{"größe", "grösse", 2, 2},     // runes, not bytes
		{"postgres", "postgresql", 2, 2},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b, tt.max); got != tt.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.max, got, tt.want)
		}
	}
}

// TestDistanceLongWordAllocatesNothing: a candidate far longer than the
// word is ruled out by its length, before either is decoded into runes.
func TestDistanceLongWordAllocatesNothing(t *testing.T) {
	long := strings.Repeat("é", 60000)
	if n := testing.AllocsPerRun(10, func() { Distance("deploy", long, 2) }); n != 0 {
		t.Errorf("Distance against a 60,000-rune word allocates %v times, want 0", n)
	}
	if got := Distance("deploy", long, 2); got != 3 {
		t.Errorf("Distance = %d, want 3", got)
	}
}

func TestWithinOne(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"webhok", "webhook", true}, {"serach", "search", true}, {"searxh", "search", true},
		{"search", "search", true}, {"", "a", true}, {"ab", "ba", true}, {"abc", "ca", false},
		{"kitten", "sitting", false}, {"größe", "grösse", false}, {"grösse", "grösze", true},
		{"abcd", "acbe", false}, {"abcd", "abdc", true},
	} {
		if got := WithinOne(tt.a, tt.b); got != tt.want {
			t.Errorf("WithinOne(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	cands := []string{"memory", "doctor", "validate", "version", "contracts"}
	tests := []struct {
		word string
		want []string
	}{
		{"memroy", []string{"memory"}},
		{"docter", []string{"doctor"}},
		{"mem", []string{"memory"}},
		{"verison", []string{"version"}}, //nolint:misspell // a typo is the input
		{"zzz", []string{}},
		{"memory", []string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Closest(tt.word, cands, 2)); diff != "" {
			t.Errorf("Closest(%q) (-want +got):\n%s", tt.word, diff)
		}
	}
	// A candidate listed twice is suggested once.
	if diff := cmp.Diff([]string{"json"}, Closest("jsn", []string{"json", "C", "json"}, 2)); diff != "" {
		t.Errorf("Closest with a repeated candidate (-want +got):\n%s", diff)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("webhok", "webhooks", 1)
	f.Add("", "x", -1)
	f.Fuzz(func(t *testing.T, a, b string, max int) {
		if max > 50 || max < -1 {
			return
		}
		d := Distance(a, b, -1)
		if d != Distance(b, a, -1) {
			t.Fatalf("not symmetric: %q %q", a, b)
		}
		if (d == 0) != (string([]rune(a)) == string([]rune(b))) {
			t.Fatalf("zero distance iff equal: %q %q = %d", a, b, d)
		}
		if WithinOne(a, b) != (d <= 1) {
			t.Fatalf("WithinOne(%q, %q) = %v, distance %d", a, b, WithinOne(a, b), d)
		}
		if max >= 0 {
			bd := Distance(a, b, max)
			if d <= max && bd != d || d > max && bd != max+1 {
				t.Fatalf("bounded %d vs %d at max %d", bd, d, max)
			}
		}
	})
}
