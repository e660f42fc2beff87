package foundry_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestDemoFactsExpireLate: no fact of the bundled example expires within a
// year. A fact past its expiry is no longer loaded, so doctor on the demo
// (README.md's first command) would report it and a stale INDEX.md, and
// the tests that run the demo and expect it clean, or a search to find the
// fact's expires, would fail on that day with no change of code. This test
// says so a year ahead, naming the fact whose date to move on.
func TestDemoFactsExpireLate(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("examples/demo/.foundry/memory/fact-*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no facts in examples/demo: %v", err)
	}
	expires := regexp.MustCompile(`(?m)^expires: (\d{4}-\d{2}-\d{2})$`)
	limit := time.Now().AddDate(1, 0, 0)
	found := false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := expires.FindSubmatch(data)
		if m == nil {
			continue
		}
		found = true
		day, err := time.Parse(time.DateOnly, string(m[1]))
		if err != nil {
			t.Fatalf("%s: expires %s: %v", f, m[1], err)
		}
		if day.Before(limit) {
			t.Errorf("%s expires on %s, within a year: move the date on by some years (doctor on the demo reports an expired fact, and the tests that run the demo expect none)", f, m[1])
		}
	}
	if !found {
		t.Error("no fact of examples/demo has an expiry: the tests of expires (docs/json's memory search case) need one")
	}
}
