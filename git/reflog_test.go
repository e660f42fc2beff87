package git

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/confined"
)

const (
	idA = "1111111111111111111111111111111111111111"
	idB = "2222222222222222222222222222222222222222"
)

func TestParseReflogLine(t *testing.T) {
	t.Parallel()
	ok := reflogEntry{old: plumbing.NewHash(idA), new: plumbing.NewHash(idB), msg: "checkout: moving from main to side"}
	for _, tt := range []struct {
		name string
		line string
		want *reflogEntry // nil: git skips the line
	}{
		{"as git writes it", idA + " " + idB + " Foundry Test <t@x> 1767261600 +0000\tcheckout: moving from main to side", &ok},
		{"negative zone, upper-case ids", strings.ToUpper(idA) + " " + idB + " A <a> 1 -0130\tcheckout: moving from main to side", &ok},
		{"no message", idA + " " + idB + " A <a> 1 +0000", &reflogEntry{old: ok.old, new: ok.new}},
		{"no tab before the message", idA + " " + idB + " A <a> 1 +0000 hello", &reflogEntry{old: ok.old, new: ok.new}},
		{"empty", "", nil},
		{"short id", idA[:39] + " " + idB + " A <a> 1 +0000", nil},
		{"bad hex", "g" + idA[1:] + " " + idB + " A <a> 1 +0000", nil},
		{"no email end", idA + " " + idB + " A <a 1 +0000", nil},
		{"no space after the email", idA + " " + idB + " A <a>1 +0000", nil},
		{"zero time", idA + " " + idB + " A <a> 000 +0000", nil},
		{"no time", idA + " " + idB + " A <a>  +0000", nil},
		{"zone without sign", idA + " " + idB + " A <a> 1 0000", nil},
		{"short zone", idA + " " + idB + " A <a> 1 +000", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := parseReflogLine([]byte(tt.line))
			if tt.want == nil {
				if ok {
					t.Errorf("parseReflogLine accepted %q as %+v", tt.line, got)
				}
				return
			}
			if !ok || got != *tt.want {
				t.Errorf("parseReflogLine = %+v, %v; want %+v", got, ok, *tt.want)
			}
		})
	}
}

// forwardReflog is the reference eachReflogEntry is checked against: the
// file split into lines front to back, the last line dropped unless a
// newline ends it, corrupt lines dropped, the rest reversed.
func forwardReflog(data []byte) []reflogEntry {
	lines := bytes.Split(data, []byte("\n"))
	var out []reflogEntry
	for _, l := range lines[:len(lines)-1] {
		if e, ok := parseReflogLine(l); ok {
			out = append(out, e)
		}
	}
	slices.Reverse(out)
	return out
}

func backwardReflog(t *testing.T, data []byte, block, limit int64) ([]reflogEntry, error) {
	t.Helper()
	var got []reflogEntry
	err := scanReflog(bytes.NewReader(data), int64(len(data)), "logs/HEAD", block, limit, func(e reflogEntry) bool {
		got = append(got, e)
		return true
	})
	return got, err
}

// FuzzReflog feeds arbitrary reflogs to the backward reader with block
// sizes from 1 byte up: it must never panic, and must yield exactly the
// entries a forward reading finds, newest first.
func FuzzReflog(f *testing.F) {
	r := gittest.New(f)
	r.Write("a", "1")
	r.CommitAll("one")
	r.Git("checkout", "-q", "-b", "side")
	r.Write("a", "2")
	r.CommitAll("two")
	r.Git("checkout", "-q", "main")
	real, err := os.ReadFile(filepath.Join(r.Dir, ".git", "logs", "HEAD"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real, uint8(7))
	f.Add(real[:len(real)-1], uint8(1))
	f.Add([]byte(idA+" "+idB+" A <a> 1 +0000\tx\n\n\n"+idB+" "+idA+" B <b> 2 -0100\n"), uint8(3))
	f.Add([]byte("\n"), uint8(1))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		got, err := backwardReflog(t, data, int64(block%32)+1, maxReflogBytes)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(forwardReflog(data), got, cmp.AllowUnexported(reflogEntry{})); diff != "" {
			t.Fatalf("entries (-forward +backward):\n%s", diff)
		}
	})
}

// TestReflogReadIsBounded checks that a reflog is read from its end and no
// further than the limit: the entries within it are yielded, then the read
// fails with confined.ErrTooLarge instead of reading on.
func TestReflogReadIsBounded(t *testing.T) {
	t.Parallel()
	line := idA + " " + idB + " A <a> 1 +0000\tcommit: x\n"
	data := []byte(strings.Repeat(line, 100))
	limit := int64(10 * len(line))
	got, err := backwardReflog(t, data, 64, limit)
	want := "read logs/HEAD: reflog is " + confined.FormatSize(int64(len(data))) + ", over the " + confined.FormatSize(limit) + " limit"
	if !errors.Is(err, confined.ErrTooLarge) || err.Error() != want {
		t.Errorf("error = %v; want ErrTooLarge: %s", err, want)
	}
	// The oldest line within the limit starts where the read stops, so
	// nothing shows it is whole: 9 of the 10 are yielded.
	if len(got) != 9 {
		t.Errorf("yielded %d entries before the limit, want 9", len(got))
	}
	// Stopping early reads no further.
	n := 0
	if err := scanReflog(bytes.NewReader(data), int64(len(data)), "logs/HEAD", 64, int64(2*len(line)), func(reflogEntry) bool {
		n++
		return false
	}); err != nil || n != 1 {
		t.Errorf("an early stop: %d entries, %v", n, err)
	}
}
