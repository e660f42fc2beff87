package mcp_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
)

// TestWarmServerSeesChanges edits memory behind a running server's back and
// through it, and searches right after each change, without waiting: with
// the watcher on (as foundry mcp serve runs) and off, every answer reflects
// the change.
func TestWarmServerSeesChanges(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, filepath.FromSlash(facts.Dir))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			f := facts.Fact{ID: "fact-0001", Type: facts.Convention, Title: "Migrations use Flyway", Scope: "project",
				Confidence: facts.Medium, Source: "code", Created: "2026-01-02", Status: facts.Active, Body: "Plain SQL."}
			file := filepath.Join(dir, facts.FileName(f.ID, f.Title))
			if err := os.WriteFile(file, facts.Format(f), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := project.OpenRoot(root, project.Source{})
			if err != nil {
				t.Fatal(err)
			}
			reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: slog.New(slog.DiscardHandler), WatchMemory: watch})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = reg.Close() })
			call := serveCalls(t, reg)
			search := func(step, q string, want bool) {
				t.Helper()
				got, _ := call("memory_search", fmt.Sprintf(`{"query":%q}`, q))
				if found := strings.Contains(got, "### fact-"); found != want {
					t.Fatalf("%s: search %q found=%v, want %v:\n%s", step, q, found, want, got)
				}
			}
			search("start", "flyway", true)

			// Same inode, same size, same modification time.
			st, _ := os.Stat(file)
			data, _ := os.ReadFile(file)
			if err := os.WriteFile(file, []byte(strings.Replace(string(data), "Plain SQL.", "Plain XQL.", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			_ = os.Chtimes(file, st.ModTime(), st.ModTime())
			search("edit in place", "xql", true)

			// New inode.
			if err := os.WriteFile(file+".tmp", []byte(strings.Replace(string(data), "Plain SQL.", "Plain YQL.", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(file+".tmp", file); err != nil {
				t.Fatal(err)
			}
			search("new inode", "yql", true)
			search("new inode", "xql", false)

			// Truncated, then deleted.
			if err := os.Truncate(file, 0); err != nil {
				t.Fatal(err)
			}
			search("truncate", "flyway", false)
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			search("delete", "flyway", false)

			// Written through Foundry.
			if got, _ := call("memory_write", `{"title":"Queue is Kafka","body":"Ordered per partition.","type":"convention"}`); !strings.HasPrefix(got, "created: ") {
				t.Fatalf("memory_write: %s", got)
			}
			search("write", "kafka", true)

			// A secret written by hand is redacted in both forms of the
			// answer, from the cache on the second search too; the edited
			// fact is redacted afresh.
			key := "AKIA" + "IOSFODNN7EXAMPLE"
			g := f
			g.ID, g.Title, g.Body = "fact-0009", "Deploy account for wombats", "Key "+key+" in the vault."
			gfile := filepath.Join(dir, facts.FileName(g.ID, g.Title))
			if err := os.WriteFile(gfile, facts.Format(g), 0o644); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, _ := call("memory_search", `{"query":"wombats"}`)
				if strings.Contains(got, key) || !strings.Contains(got, "Key [REDACTED] in the vault.") {
					t.Fatalf("secret not redacted in the text:\n%s", got)
				}
			}
			_, line := call("memory_search", `{"query":"wombats"}`)
			if strings.Contains(string(line), key) || !strings.Contains(string(line), `"body":"Key [REDACTED] in the vault."`) {
				t.Fatalf("secret not redacted in structuredContent:\n%s", line)
			}
			g.Body = "Key " + key + " rotated."
			if err := os.WriteFile(gfile, facts.Format(g), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, _ := call("memory_search", `{"query":"wombats"}`); strings.Contains(got, key) || !strings.Contains(got, "Key [REDACTED] rotated.") {
				t.Fatalf("edited secret not redacted:\n%s", got)
			}
		})
	}
}
