package runbooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
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

// TestBookPage: Book.Page answers as List and Listing.Page do, every page
// of every size, and reads the runbooks of its page alone; an unknown slug
// lists the slugs without reading any runbook.
func TestBookPage(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		Dir + "/no-front-matter.md": md("Just steps.\n"),
		Dir + "/Bad_Name.md":        md("---\ntitle: Bad name\n---\n"),
		Dir + "/broken-yaml.md":     md("---\ntitle: [unclosed\n---\n"),
		Dir + "/.hidden.md":         md("---\ntitle: Hidden\n---\n"),
		Dir + "/notes.txt":          md("not a runbook"),
		Dir + "/folder.md/inside":   md("a folder named like a runbook"),
		// "a-b" sorts before "a" as a file name ("a-b.md" < "a.md") but
		// after it as a slug.
		Dir + "/a.md":   md("---\ntitle: A\n---\n"),
		Dir + "/a-b.md": md("---\ntitle: A B\n---\n"),
	}
	for i := range 45 {
		m[fmt.Sprintf("%s/task-%02d.md", Dir, i)] = md(fmt.Sprintf("---\ntitle: Task %d\ntrigger: t%d\n---\nSteps.\n", i, i))
	}
	fsys := &openCounter{FS: m}
	b := Open(fsys, Options{})
	ctx := context.Background()
	all, err := b.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := fsys.reads(); n != len(all.Runbooks) || n != 50 {
		t.Fatalf("List read %d runbooks of %d listed, want 50", n, len(all.Runbooks))
	}
	for _, limit := range []int{0, 1, 7, 20, 100} {
		cursor, pages := "", 0
		for {
			want, wantErr := all.Page(limit, cursor)
			got, err := b.Page(ctx, limit, cursor)
			if err != nil || wantErr != nil {
				t.Fatalf("limit %d, cursor %q: Page: %v, Listing.Page: %v", limit, cursor, err, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("limit %d, page %d (-List +Page):\n%s", limit, pages, diff)
			}
			if n := fsys.reads(); n != len(got.Runbooks) {
				t.Fatalf("limit %d, page %d: read %d runbooks for a page of %d", limit, pages, n, len(got.Runbooks))
			}
			pages++
			if got.NextCursor == "" {
				break
			}
			cursor = got.NextCursor
		}
	}
	for _, tt := range []struct {
		limit  int
		cursor string
	}{{101, ""}, {-1, ""}, {0, "bm90IGEgY3Vyc29y"}, {0, "%%%"}} {
		_, want := all.Page(tt.limit, tt.cursor)
		_, got := b.Page(ctx, tt.limit, tt.cursor)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("Page(%d, %q) = %v, want %v", tt.limit, tt.cursor, got, want)
		}
	}
	if n := fsys.reads(); n != 0 {
		t.Errorf("refused pages read %d runbooks", n)
	}

	_, err = b.Get(ctx, "nope")
	want := `unknown runbook "nope" (available: a, a-b, broken-yaml, no-front-matter, task-00,`
	if !errors.Is(err, ErrUnknownRunbook) || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "Bad_Name") {
		t.Errorf("Get(nope) = %v", err)
	}
	if n := fsys.reads(); n != 1 { // the one Get tried
		t.Errorf("an unknown slug read %d runbooks, want only its own try", n)
	}
}
