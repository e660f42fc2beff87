package runbooks

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPage(t *testing.T) {
	t.Parallel()
	var all Listing
	for i := range 45 {
		all.Runbooks = append(all.Runbooks, Runbook{Slug: fmt.Sprintf("rb-%03d", i), Title: "T"})
	}
	// Walk every page at the default size: 20, 20, 5.
	var seen []string
	cursor := ""
	sizes := []int{}
	for {
		p, err := all.Page(0, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 45 {
			t.Fatalf("Total = %d, want 45", p.Total)
		}
		sizes = append(sizes, len(p.Runbooks))
		for _, r := range p.Runbooks {
			seen = append(seen, r.Slug)
		}
		hasMore := strings.Contains(p.Text(), "\nMore: call again with cursor "+fmt.Sprintf("%q", p.NextCursor)+".\n")
		if hasMore != (p.NextCursor != "") {
			t.Fatalf("text %q and NextCursor %q disagree", p.Text(), p.NextCursor)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if !slices.Equal(sizes, []int{20, 20, 5}) || !slices.Equal(seen, all.Slugs()) {
		t.Errorf("pages %v, slugs %v", sizes, seen)
	}

	// A runbook removed between calls does not shift the next page.
	first, _ := all.Page(2, "")
	shrunk := Listing{Runbooks: slices.Delete(slices.Clone(all.Runbooks), 0, 1)}
	next, err := shrunk.Page(2, first.NextCursor)
	if err != nil || next.Runbooks[0].Slug != "rb-002" {
		t.Errorf("after removal: %v, %v", next.Runbooks, err)
	}

	for _, tt := range []struct {
		limit  int
		cursor string
		want   error
	}{
		{101, "", ErrInvalidLimit},
		{-1, "", ErrInvalidLimit},
		{0, "bm90IGEgY3Vyc29y", ErrInvalidCursor},
		{0, "%%%", ErrInvalidCursor},
	} {
		if _, err := all.Page(tt.limit, tt.cursor); !errors.Is(err, tt.want) {
			t.Errorf("Page(%d, %q) = %v, want %v", tt.limit, tt.cursor, err, tt.want)
		}
	}
	if got := (Listing{Runbooks: []Runbook{}}).Text(); got != emptyText {
		t.Errorf("empty listing: %q", got)
	}
	if p, _ := (Listing{}).Page(0, ""); p.Text() != emptyText || p.Runbooks == nil {
		t.Errorf("empty page: %+v", p)
	}
}
