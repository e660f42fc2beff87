package artifacts

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"
	"testing/iotest"
)

// TestReadExact: one read of the stat'ed size, and the same bytes when the
// file grew or shrank since, never more than MaxBytes+1.
func TestReadExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		size    int64 // as stat'ed
		want    int   // bytes returned
	}{
		{"exact", "hello", 5, 5},
		{"grew", "hello, world", 5, 12},
		{"shrank", "hi", 5, 2},
		{"empty", "", 0, 0},
		{"hostile size", "x", -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{strings.NewReader(tt.content), iotest.OneByteReader(strings.NewReader(tt.content))} {
				got, err := readExact(r, tt.size)
				if err != nil || len(got) != tt.want || string(got) != tt.content[:tt.want] {
					t.Errorf("readExact = %q, %v; want %q", got, err, tt.content[:tt.want])
				}
			}
		})
	}
	big := bytes.Repeat([]byte("a"), MaxBytes+10)
	got, err := readExact(bytes.NewReader(big), 3)
	if err != nil || len(got) != MaxBytes+1 {
		t.Errorf("a file grown past the limit: %d bytes, %v; want %d", len(got), err, MaxBytes+1)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"a.json":     {Data: []byte(`{"schema": "finding.v1"}`)},
		"empty.json": {Data: nil},
		"big.json":   {Data: bytes.Repeat([]byte(" "), MaxBytes+1)},
	}
	if got, err := ReadFile(fsys, "a.json"); err != nil || string(got) != `{"schema": "finding.v1"}` {
		t.Errorf("ReadFile = %q, %v", got, err)
	}
	if _, err := ReadFile(fsys, "empty.json"); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty file: %v, want ErrEmpty", err)
	}
	var tl *TooLargeError
	if _, err := ReadFile(fsys, "big.json"); !errors.As(err, &tl) {
		t.Errorf("big file: %v, want a TooLargeError", err)
	}
}
