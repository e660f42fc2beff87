package mcp

import (
	"encoding/base64"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPaginate(t *testing.T) {
	t.Parallel()
	items := []int{1, 2, 3, 4, 5}
	cur := func(s string) *string {
		c := base64.RawURLEncoding.EncodeToString([]byte(s))
		return &c
	}
	raw := func(s string) *string { return &s }
	tests := []struct {
		name     string
		cursor   *string
		want     []int
		wantNext string
		wantErr  bool
	}{
		{name: "first page", want: []int{1, 2}, wantNext: *cur("tools:2")},
		{name: "middle page", cursor: cur("tools:2"), want: []int{3, 4}, wantNext: *cur("tools:4")},
		{name: "last page", cursor: cur("tools:4"), want: []int{5}},
		{name: "other list", cursor: cur("resources:2"), wantErr: true},
		{name: "zero", cursor: cur("tools:0"), wantErr: true},
		{name: "negative", cursor: cur("tools:-2"), wantErr: true},
		{name: "leading zero", cursor: cur("tools:02"), wantErr: true},
		{name: "past the end", cursor: cur("tools:6"), wantErr: true},
		{name: "not base64", cursor: raw("%%%"), wantErr: true},
		{name: "empty", cursor: raw(""), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, next, err := paginate(items, tt.cursor, "tools", 2)
			if (err != nil) != tt.wantErr {
				t.Fatalf("paginate error = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if next != tt.wantNext {
				t.Errorf("next = %q, want %q", next, tt.wantNext)
			}
		})
	}
}

// FuzzCursor checks that no client-supplied cursor can make paginate
// panic or return items outside the list.
func FuzzCursor(f *testing.F) {
	for _, s := range []string{"", "dG9vbHM6Mg", "dG9vbHM6OTk", "%%%", "dG9vbHM6LTE"} {
		f.Add(s)
	}
	items := []int{1, 2, 3, 4, 5}
	f.Fuzz(func(t *testing.T, cursor string) {
		page, next, err := paginate(items, &cursor, "tools", 2)
		if err != nil {
			return
		}
		if len(page) > 2 {
			t.Fatalf("page of %d items", len(page))
		}
		if next != "" {
			if _, _, err := paginate(items, &next, "tools", 2); err != nil {
				t.Fatalf("next cursor %q rejected: %v", next, err)
			}
		}
	})
}
