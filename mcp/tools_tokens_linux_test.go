//go:build linux

package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// TestTokenReportListsNoMemory checks that token_report on a warm server
// costs nothing in proportion to the memory: it lists no memory folder and
// opens no fact file but the one changed since the last call. The kernel
// says so through inotify: a listing of the folder is an IN_ACCESS event
// on the folder itself, opening a file an IN_OPEN event naming it.
func TestTokenReportListsNoMemory(t *testing.T) {
	t.Parallel()
	const n = 2000
	reg, root := memoryProject(t, n)
	call := serveCalls(t, reg)
	call("memory_search", `{"query":"kw00001"}`)
	call("token_report", `{}`)
	mem := filepath.Join(root, filepath.FromSlash(facts.Dir))
	entries, err := os.ReadDir(mem)
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(mem, entries[n/2].Name())

	accesses := confinedtest.WatchAccesses(t, mem)
	for i := range 3 {
		if i == 1 {
			f, err := os.OpenFile(edited, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("One more line.\n"); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		if text, _ := call("token_report", `{}`); !strings.Contains(text, "Facts stored: 2000,") {
			t.Fatalf("token_report:\n%s", text)
		}
	}
	listings, opened := accesses()
	for name := range opened {
		if strings.HasPrefix(name, "fact-") && name != filepath.Base(edited) {
			t.Errorf("3 reports over %d facts opened %s, a fact not changed", n, name)
		}
	}
	if listings > 0 {
		t.Errorf("3 reports over %d facts listed the memory folder %d times", n, listings)
	}
}
