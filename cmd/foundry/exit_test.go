package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// badFlagValues lists, per command and flag, values the flag's own syntax
// rejects (an enum, a range, a pattern): each must exit 2. A flag whose
// value has no syntax of its own (free text, a file name, a revision: a
// wrong one is a failure, exit 1) is listed with no values and a reason, so
// that a new flag cannot be added without deciding which it is. Int and
// bool flags need no entry: "abc" and "maybe" are tried on each of them.
var badFlagValues = map[string]struct {
	values []string
	free   string // why the value has no syntax of its own
}{
	"doctor --format":              {values: []string{"xml", ""}},
	"doctor --sarif-prefix":        {values: []string{"../up", "/abs", ""}},
	"validate --sarif-prefix":      {values: []string{"svc/../..", "/abs", ""}},
	"memory search --type":         {values: []string{"bogus", "decisions"}},
	"memory search --limit":        {values: []string{"0", "26", "-1"}},
	"memory write --title":         {free: "a title's length and wording are content rules (exit 1)"},
	"memory write --type":          {values: []string{"conventions", ""}},
	"memory write --body":          {free: "the body is content"},
	"memory write --body-file":     {free: "a file name; a missing file is a failure"},
	"memory write --scope":         {values: []string{"team:web", "module:"}},
	"memory write --tag":           {values: []string{"two words", "-dash"}},
	"memory write --confidence":    {values: []string{"sure"}},
	"memory write --source":        {values: []string{"slack", "external:not a url"}},
	"memory write --expires":       {values: []string{"2026-02-30", "tomorrow"}},
	"memory write --supersedes":    {values: []string{"fact-x", "4"}},
	"memory list --type":           {values: []string{"bogus"}},
	"memory retire --reason":       {values: []string{"", "  "}},
	"runbook new --title":          {free: "a title's length is a content rule"},
	"runbook new --trigger":        {free: "the trigger is free text"},
	"blackboard write --wave":      {values: []string{"..", ""}},
	"blackboard write --agent":     {values: []string{".", ""}},
	"blackboard write --schema":    {free: "an unknown contract is data not found (exit 1)"},
	"blackboard write --data-file": {free: "a file name; a missing file is a failure"},
	"blackboard read --agent":      {values: []string{".."}},
	"validate --agent":             {values: []string{".", ""}},
	"blackboard read --limit":      {values: []string{"0", "101"}},
	"blackboard read --cursor":     {values: []string{"zz", "not-a-cursor"}},
	"validate --format":            {values: []string{"xml"}},
	"mcp serve --transport":        {values: []string{"pigeon"}},
	"mcp serve --listen":           {values: []string{"7391", "localhost"}},
	"mcp token new --scope":        {values: []string{"admin", "read:everything"}},
}

// baseArgs make each command's line valid apart from the flag under test, so
// the exit status comes from that flag and not from a missing argument.
var baseArgs = map[string][]string{
	"memory search":      {"flyway"},
	"memory write":       {"--title", "A fine title for a fact", "--type", "domain", "--body", "Plain words."},
	"memory show":        {"fact-0001"},
	"memory retire":      {"fact-0001", "--reason", "the service is gone"},
	"runbook get":        {"deploy"},
	"runbook new":        {"a-new-runbook", "--title", "A new runbook", "--trigger", "when deploying"},
	"blackboard write":   {"--wave", "w", "--agent", "a", "--schema", "finding.v1", "--data-file", "x.json"},
	"blackboard read":    {"w"},
	"blackboard archive": {"w"},
	"validate":           {"--auto", "--format", "sarif"},
	"doctor":             {"--format", "sarif"},
	"contracts show":     {"finding.v1"},
	"plugin build":       {"out"},
	"hook merge-index":   {"a", "b", "c", "d"},
}

// TestBadFlagValueExitsTwo runs every command with every flag given a value
// its syntax rejects, and with malformed global flags, and checks exit 2:
// the README's table, the same for every command.
func TestBadFlagValueExitsTwo(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	type line struct {
		name string
		args []string
	}
	var lines []line
	seen := map[string]bool{}
	for _, l := range leafCommands() {
		path, c, cmd := l.path, l.cmd, l.name
		base := append(append([]string{"foundry", "-C", dir}, path...), baseArgs[cmd]...)
		add := func(extra ...string) {
			lines = append(lines, line{cmd + " " + strings.Join(extra, " "), append(append([]string{}, base...), extra...)})
		}
		// Global flags of the wrong form, on every command.
		add("--json=maybe")
		add("--staged=maybe")
		add("--rev", "HEAD", "--staged")
		// An empty revision names none: git rev-parse refuses it too.
		add("--rev", "")
		add("--rev=")
		lines = append(lines, line{cmd + " -C missing", append([]string{"foundry", "-C", filepath.Join(dir, "missing")}, append(path, baseArgs[cmd]...)...)})
		for _, f := range c.Flags {
			name := f.Names()[0]
			key := cmd + " --" + name
			switch f.(type) {
			case *cli.BoolFlag:
				add("--" + name + "=maybe")
				continue
			case *cli.IntFlag:
				add("--"+name, "abc")
			}
			entry, ok := badFlagValues[key]
			seen[key] = true
			switch {
			case !ok && isIntFlag(f):
			case !ok:
				t.Errorf("%s: not in badFlagValues: list the values its syntax rejects, or why it has none", key)
			case entry.free == "" && len(entry.values) == 0:
				t.Errorf("%s: neither bad values nor a reason", key)
			}
			for _, v := range entry.values {
				add("--"+name, v)
			}
		}
	}
	for key := range badFlagValues {
		if !seen[key] {
			t.Errorf("badFlagValues lists %s, which no command has", key)
		}
	}
	for _, l := range lines {
		// Not parallel: urfave/cli v2 keeps its help flag in a package
		// variable, so two apps may not run at once in one process.
		t.Run(l.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), l.args, strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage {
				t.Errorf("%s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", strings.Join(l.args[3:], " "), code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), "run 'foundry ") && !strings.Contains(stderr.String(), "hint: ") {
				t.Errorf("no usage pointer on stderr:\n%s", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout on a usage error:\n%s", stdout.String())
			}
		})
	}
}

func isIntFlag(f cli.Flag) bool {
	_, ok := f.(*cli.IntFlag)
	return ok
}

// TestMessage: an interrupted command says so in words, where Go says
// "context canceled"; other errors are told as they are.
func TestMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"cancelled", context.Canceled, "interrupted"},
		{"wrapped", fmt.Errorf("write fact: lock .foundry/memory/.lock: %w", context.Canceled), "write fact: lock .foundry/memory/.lock: interrupted"},
		{"with the signal", fmt.Errorf("read stdin: %w: %v", context.Canceled, errors.New("interrupt signal received")), "read stdin: interrupted"},
		{"with SIGTERM", fmt.Errorf("%w: %v", context.Canceled, errors.New("terminated signal received")), "interrupted"},
		{"not cancelled", errors.New("tool failed: context canceled"), "tool failed: context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := message(tt.err); got != tt.want {
				t.Errorf("message = %q, want %q", got, tt.want)
			}
		})
	}
}
