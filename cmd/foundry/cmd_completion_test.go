package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/git/gittest"
)

// sourceCases give every command the arguments that get it past its own
// argument checks, so that running it shows whether it takes --rev and
// --staged.
var sourceCases = map[string][]string{
	"init":               nil,
	"doctor":             {"--no-history"},
	"memory search":      {"outbox"},
	"memory write":       {"--title", "Release notes are written by the on-call engineer", "--type", "convention", "--body", "Every release."},
	"memory retire":      {"fact-0002", "--reason", "the team moved to another tool"},
	"memory index":       nil,
	"memory show":        {"fact-0001"},
	"memory list":        nil,
	"runbook list":       nil,
	"runbook get":        {"deploy-production"},
	"runbook new":        {"rotate-certs", "--title", "Rotate the TLS certificates", "--trigger", "a certificate expires"},
	"blackboard write":   {"--wave", "w", "--agent", "a", "--schema", "finding.v1", "--data-file", "inputs/rejected-finding.json"},
	"blackboard read":    {"audit"},
	"blackboard list":    nil,
	"blackboard archive": {"ops"},
	"validate":           {"--auto"},
	"contracts list":     nil,
	"contracts show":     {"finding.v1"},
	"contracts example":  {"finding.v1"},
	"contracts new":      {"incident-report"},
	"tokens":             nil,
	"mcp serve":          nil, // stdin is empty: it serves nothing and exits
	"mcp capabilities":   nil,
	"mcp token new":      {"reviewer"},
	"mcp token list":     nil,
	"mcp token revoke":   {"reviewer"},
	"hook install":       nil,
	"hook uninstall":     nil,
	"hook claude":        nil,
	"hook pre-commit":    nil,
	"hook merge-index":   {"base", "ours", "theirs"},
	"plugin build":       {"plugin-out"},
	"config":             nil,
	"version":            nil,
	"completion":         {"bash"},
	"help":               {"memory"},
}

// TestSourceRefused runs every command with --rev HEAD and with --staged
// and checks that it refuses the flag exactly when sourceRefused says so,
// the table completion leaves those flags out by.
func TestSourceRefused(t *testing.T) {
	demo := t.TempDir()
	if err := os.CopyFS(demo, os.DirFS("../../examples/demo")); err != nil {
		t.Fatal(err)
	}
	gittest.Init(t, demo).CommitAll("demo")
	for _, l := range leafCommands() {
		if _, ok := sourceCases[l.name]; !ok && !l.cmd.Hidden {
			t.Errorf("%s has no case in sourceCases", l.name)
		}
	}
	for name, args := range sourceCases {
		for _, flag := range [][]string{{"--rev", "HEAD"}, {"--staged"}} {
			// Not parallel: urfave/cli v2 keeps its help flag in a package
			// variable, so two apps may not run at once in one process.
			t.Run(name+" "+flag[0], func(t *testing.T) {
				line := append(append([]string{"foundry", "-C", demo}, flag...), strings.Fields(name)...)
				line = append(line, args...)
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), line, strings.NewReader(""), &stdout, &stderr)
				// Every refusal is exit 2 and names the flag, in its
				// message or in its hint.
				refused := code == exitUsage && strings.Contains(stderr.String(), flag[0])
				want := refuses(name, strings.TrimPrefix(flag[0], "--"))
				if refused != want {
					t.Errorf("%s: refused %v, want %v (exit %d)\nstderr:\n%s", strings.Join(line[3:], " "), refused, want, code, stderr.String())
				}
			})
			// With the flag that makes it write, it refuses them all.
			if w := writingFlag[name]; w != "" {
				t.Run(name+" --"+w+" "+flag[0], func(t *testing.T) {
					line := append(append([]string{"foundry", "-C", demo}, flag...), strings.Fields(name)...)
					line = append(append(line, args...), "--"+w)
					var stdout, stderr bytes.Buffer
					code := run(context.Background(), line, strings.NewReader(""), &stdout, &stderr)
					if code != exitUsage || !strings.Contains(stderr.String(), flag[0]) {
						t.Errorf("%s: exit %d, want a refusal naming %s\nstderr:\n%s", strings.Join(line[3:], " "), code, flag[0], stderr.String())
					}
				})
			}
		}
	}
}

// TestMatching: the candidates that begin with the word typed, in their
// order, each once.
func TestMatching(t *testing.T) {
	for _, tc := range []struct {
		cands []string
		cur   string
		want  []string
	}{
		{nil, "", nil},
		{[]string{"b", "a", "b", "c", "a"}, "", []string{"b", "a", "c"}},
		{[]string{"fact-0002", "fact-0001", "fact-0002", "other", "fact-0010"}, "fact-000", []string{"fact-0002", "fact-0001"}},
		{[]string{"--json", "--rev", "--json"}, "--j", []string{"--json"}},
		{[]string{"x"}, "y", nil},
	} {
		if got := matching(tc.cands, tc.cur); !slices.Equal(got, tc.want) {
			t.Errorf("matching(%q, %q) = %q, want %q", tc.cands, tc.cur, got, tc.want)
		}
	}
}

// BenchmarkMatching40k measures completing `foundry memory show <TAB>` in a
// memory of 40,000 facts: every id a candidate, each kept once.
func BenchmarkMatching40k(b *testing.B) {
	cands := make([]string, 40000)
	for i := range cands {
		cands[i] = fmt.Sprintf("fact-%04d", i+1)
	}
	for b.Loop() {
		if got := matching(cands, ""); len(got) != len(cands) {
			b.Fatalf("%d candidates of %d", len(got), len(cands))
		}
	}
}
