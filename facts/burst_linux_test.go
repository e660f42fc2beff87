//go:build linux

package facts

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestBurstOfEventsLeavesNoTable: a burst of events, with no scan, fills
// odd and temps past emptiedInPlace; once all but one are gone, FactFiles
// and a write range over no table sized for the burst.
func TestBurstOfEventsLeavesNoTable(t *testing.T) {
	ctx := context.Background()
	const n = 4 * emptiedInPlace
	facts := genFacts(t, 3)
	root := writeTree(t, facts)
	mem := filepath.Join(root, filepath.FromSlash(Dir))
	targets := filepath.Join(root, "targets")
	if err := os.Mkdir(targets, 0o755); err != nil {
		t.Fatal(err)
	}
	warn := &syncBuffer{}
	s := OpenDir(root, Options{Now: fixedNow, Watch: true, Warn: warn, Root: root})
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Search(ctx, Query{Text: "kafka"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(warn.String(), "no file-system events") {
		t.Skipf("no events: %s", warn)
	}
	links := make([]string, n)
	for i := range n {
		f := genFacts(t, 1)[0]
		f.ID = FormatID(1000 + i)
		target := filepath.Join(targets, strconv.Itoa(i)+".md")
		if err := os.WriteFile(target, Format(f), 0o644); err != nil {
			t.Fatal(err)
		}
		links[i] = filepath.Join(mem, FileName(f.ID, "linked "+strconv.Itoa(i)))
		if err := os.Symlink(target, links[i]); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mem, confined.TempPrefix+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Get(ctx, facts[0].ID); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	odd, temps := s.odd, s.temps
	s.mu.Unlock()
	if len(odd) != n || len(temps) != n {
		t.Fatalf("%d odd, %d temps after the burst, want %d", len(odd), len(temps), n)
	}
	for i := 1; i < n; i++ {
		if err := os.Remove(links[i]); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(mem, confined.TempPrefix+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Get(ctx, facts[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FactFiles(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, benchWrite(1)); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.odd) != 1 || reflect.ValueOf(s.odd).UnsafePointer() == reflect.ValueOf(odd).UnsafePointer() {
		t.Errorf("FactFiles still ranges over the table of %d odd files (%d left; oddPeak %d)", n, len(s.odd), s.oddPeak)
	}
	if reflect.ValueOf(s.temps).UnsafePointer() == reflect.ValueOf(temps).UnsafePointer() {
		t.Errorf("a write still ranges over the table of %d temps (%d left)", n, len(s.temps))
	}
}
