package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
	"github.com/foundryhq/foundry/tokens"
)

// TestWarmTokenReport changes the memory and the event log through a
// running server and behind its back, and asks for token_report right
// after each change, without waiting: with the watcher on (as foundry mcp
// serve runs) and off, the answer, text and structured content, is what a
// fresh tokens.BuildReport says of the project then, although the server
// keeps its figures between calls.
func TestWarmTokenReport(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			mem := filepath.Join(root, filepath.FromSlash(facts.Dir))
			metrics := filepath.Join(root, filepath.FromSlash(tokens.MetricsDir))
			log := filepath.Join(root, filepath.FromSlash(tokens.EventsPath))
			for _, dir := range []string{mem, metrics, filepath.Join(root, ".foundry", "blackboard", "wave-1"), filepath.Join(root, ".foundry", "linked")} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			fact := func(n int, body string) (string, []byte) {
				f := facts.Fact{ID: facts.FormatID(n), Type: facts.Convention, Title: fmt.Sprintf("Convention number %d", n), Scope: "project",
					Confidence: facts.Medium, Source: "code", Created: "2026-01-02", Status: facts.Active, Body: body}
				return filepath.Join(mem, facts.FileName(f.ID, f.Title)), facts.Format(f)
			}
			write := func(name string, data []byte) {
				t.Helper()
				if err := os.WriteFile(name, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			appendTo := func(name, data string) {
				t.Helper()
				f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(data); err != nil {
					t.Fatal(err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
			}
			replace := func(name string, data []byte) {
				t.Helper()
				write(name+".new", data)
				if err := os.Rename(name+".new", name); err != nil {
					t.Fatal(err)
				}
			}
			for n := 1; n <= 5; n++ {
				write(fact(n, strings.Repeat("Plain SQL. ", n)))
			}
			write(filepath.Join(root, ".foundry", "blackboard", "wave-1", "agent.json"), []byte(`{"summary":"one"}`))
			line := func(kind string) string { return fmt.Sprintf(`{"ts":"2026-01-02T03:04:05Z","kind":%q}`+"\n", kind) }
			write(log, []byte(line("memory_search")+line("runbook_get")+"not json\n"))

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

			steps := []struct {
				name string
				do   func(t *testing.T)
			}{
				{"start", func(*testing.T) {}},
				{"a memory_write through the server", func(t *testing.T) {
					if got, _ := call("memory_write", `{"title":"Queue is Kafka","body":"Ordered per partition.","type":"convention"}`); !strings.HasPrefix(got, "created: ") {
						t.Fatalf("memory_write: %s", got)
					}
				}},
				{"a fact edited in place by hand, longer", func(*testing.T) {
					write(fact(2, "Plain SQL, and a much longer body than it had before."))
				}},
				{"a fact replaced by hand, shorter", func(*testing.T) {
					replace(fact(3, "Short."))
				}},
				{"a fact deleted", func(t *testing.T) {
					name, _ := fact(4, "")
					if err := os.Remove(name); err != nil {
						t.Fatal(err)
					}
				}},
				{"a fact file dropped in by hand", func(*testing.T) {
					write(fact(40, "Dropped in."))
				}},
				{"a malformed fact file dropped in", func(*testing.T) {
					write(filepath.Join(mem, "fact-0041-broken.md"), []byte("no front matter at all\n"))
				}},
				{"a folder named as a fact file", func(t *testing.T) {
					if err := os.Mkdir(filepath.Join(mem, "fact-0042-folder.md"), 0o755); err != nil {
						t.Fatal(err)
					}
				}},
				{"a link to a file elsewhere in .foundry", func(t *testing.T) {
					write(filepath.Join(root, ".foundry", "linked", "target.md"), []byte("linked"))
					if err := os.Symlink("../linked/target.md", filepath.Join(mem, "fact-0043-linked.md")); err != nil {
						t.Fatal(err)
					}
				}},
				{"the link's target edited, no event in the memory folder", func(*testing.T) {
					write(filepath.Join(root, ".foundry", "linked", "target.md"), []byte("linked, and longer now"))
				}},
				{"a link out of the project", func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "out.md")
					write(out, []byte("outside"))
					if err := os.Symlink(out, filepath.Join(mem, "fact-0044-out.md")); err != nil {
						t.Fatal(err)
					}
				}},
				{"the link removed", func(t *testing.T) {
					if err := os.Remove(filepath.Join(mem, "fact-0043-linked.md")); err != nil {
						t.Fatal(err)
					}
				}},
				{"events appended by hand", func(*testing.T) {
					appendTo(log, line("gate_blocked")+"\n"+line("custom_kind"))
				}},
				{"a partial last event line", func(*testing.T) {
					appendTo(log, `{"ts":"2026-01-02T03:04:05Z","kind":"blackboard_`)
				}},
				{"the partial line completed", func(*testing.T) {
					appendTo(log, "write\"}\n")
				}},
				{"the event log truncated, then appended to", func(t *testing.T) {
					if err := os.Truncate(log, int64(len(line("memory_search")))); err != nil {
						t.Fatal(err)
					}
					appendTo(log, line("runbook_get"))
				}},
				{"the event log replaced by a longer one with other first lines", func(t *testing.T) {
					data, err := os.ReadFile(log)
					if err != nil {
						t.Fatal(err)
					}
					replace(log, append([]byte(line("memory_write")+line("memory_write")), data...))
				}},
				{"the event log removed", func(t *testing.T) {
					if err := os.Remove(log); err != nil {
						t.Fatal(err)
					}
				}},
				{"another memory_write through the server", func(t *testing.T) {
					if got, _ := call("memory_write", `{"title":"Cache is Redis","body":"Evicts by LRU.","type":"convention"}`); !strings.HasPrefix(got, "created: ") {
						t.Fatalf("memory_write: %s", got)
					}
				}},
			}
			for _, step := range steps {
				step.do(t)
				want, err := tokens.BuildReport(context.Background(), p.FS, confined.OpenFS(root), p.Config.Memory.IndexBudgetTokens)
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				text, structured := call("token_report", `{}`)
				if text != want.Text() {
					t.Errorf("%s: token_report text differs from a fresh report (-want +got):\n%s", step.name, cmp.Diff(want.Text(), text))
				}
				var got tokens.Report
				if err := json.Unmarshal(structured, &got); err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: token_report differs from a fresh report (-want +got):\n%s", step.name, diff)
				}
			}
		})
	}
}

// serveCalls serves reg through Serve over pipes until the test ends, and
// returns a function that calls a tool and returns the text of its
// answer and its structured content.
func serveCalls(t *testing.T, reg *mcp.Registry) func(tool, args string) (string, json.RawMessage) {
	t.Helper()
	call := serveInProcess(t, reg)
	id := 0
	return func(tool, args string) (string, json.RawMessage) {
		t.Helper()
		id++
		line := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
		var resp struct {
			Result struct {
				Content           []struct{ Text string } `json:"content"`
				StructuredContent json.RawMessage         `json:"structuredContent"`
				IsError           bool                    `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || len(resp.Result.Content) == 0 || resp.Result.IsError {
			t.Fatalf("bad response %s: %v", line, err)
		}
		return resp.Result.Content[0].Text, resp.Result.StructuredContent
	}
}
