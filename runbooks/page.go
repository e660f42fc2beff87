// This file defines the pages of a listing, as runbook_list returns them.

package runbooks

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
)

// Page sizes of [Listing.Page]: seed 003's bounds of every list operation.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// Page is one page of a [Listing].
type Page struct {
	Runbooks []Runbook `json:"runbooks"`
	// Total counts every runbook of the listing.
	Total int `json:"total"`
	// NextCursor, when set, reads the next page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Page returns at most limit runbooks (0 means [DefaultPageSize]) after
// the one cursor names ("" starts at the first). The cursor names the last
// slug returned, so pages stay right while runbooks are added or removed
// between calls.
func (l Listing) Page(limit int, cursor string) (Page, error) {
	if limit == 0 {
		limit = DefaultPageSize
	}
	if limit < 1 || limit > MaxPageSize {
		return Page{}, fmt.Errorf("%w %d: use 1–%d", ErrInvalidLimit, limit, MaxPageSize)
	}
	start := 0
	if cursor != "" {
		after, err := decodeCursor(cursor)
		if err != nil {
			return Page{}, err
		}
		// The listing is sorted by slug.
		start = sort.Search(len(l.Runbooks), func(i int) bool { return l.Runbooks[i].Slug > after })
	}
	end := min(start+limit, len(l.Runbooks))
	p := Page{Runbooks: l.Runbooks[start:end:end], Total: len(l.Runbooks)}
	if p.Runbooks == nil {
		p.Runbooks = []Runbook{}
	}
	if end < len(l.Runbooks) {
		p.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + l.Runbooks[end-1].Slug))
	}
	return p, nil
}

// Text renders the page as runbook_list returns it: the listing's lines
// and, when more runbooks remain, `More: call again with cursor "<c>".`
func (p Page) Text() string {
	if p.Total == 0 {
		return emptyText
	}
	text := Listing{Runbooks: p.Runbooks}.Text()
	if len(p.Runbooks) == 0 {
		text = "No more runbooks.\n"
	}
	if p.NextCursor != "" {
		text += fmt.Sprintf("\nMore: call again with cursor %q.\n", p.NextCursor)
	}
	return text
}

const cursorPrefix = "rb1:"

func decodeCursor(c string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	after, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if err != nil || !ok || after == "" || strings.Contains(after, "/") {
		return "", fmt.Errorf("%w %q: pass the nextCursor of a previous runbook_list", ErrInvalidCursor, c)
	}
	return after, nil
}
