package mcp

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// paginate returns the page of items that cursor points at and the cursor
// of the next page ("" on the last page). A cursor is opaque to clients: it
// encodes the list it belongs to and an offset, so a cursor of another list
// or a forged one is rejected with -32602.
func paginate[T any](items []T, cursor *string, list string, size int) ([]T, string, error) {
	start := 0
	if cursor != nil {
		off, ok := decodeCursor(*cursor, list)
		if !ok || off > len(items) {
			return nil, "", invalidParams("Invalid cursor: %q", auditText(*cursor, maxEchoBytes))
		}
		start = off
	}
	end := min(start+size, len(items))
	page := items[start:end]
	if page == nil {
		page = []T{}
	}
	next := ""
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte(list + ":" + strconv.Itoa(end)))
	}
	return page, next, nil
}

func decodeCursor(cursor, list string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), list+":")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}
