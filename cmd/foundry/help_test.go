package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/urfave/cli/v2"
)

// TestEveryCommandDocumentsExitCodes runs --help for every command and
// subcommand: each must print usage on stdout, exit 0, and end its
// description with an EXIT STATUS section.
func TestEveryCommandDocumentsExitCodes(t *testing.T) {
	type group struct {
		path []string
		subs []*cli.Command
	}
	var groups []group
	var paths [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, prefix...), c.Name)
			if len(c.Subcommands) > 0 {
				groups = append(groups, group{p, c.Subcommands})
				walk(p, c.Subcommands)
				continue
			}
			paths = append(paths, p)
		}
	}
	walk(nil, commands(&cliEnv{}))
	if len(paths) < 10 {
		t.Fatalf("found only %d commands", len(paths))
	}
	for _, p := range paths {
		// Not parallel: urfave/cli v2 keeps its help flag in a package
		// variable, so two apps may not run at once in one process.
		t.Run(strings.Join(p, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"foundry"}, p...), "--help")
			if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, stderr.String())
			}
			out := stdout.String()
			if !strings.Contains(out, "EXIT STATUS:") {
				t.Errorf("help of %q has no EXIT STATUS section:\n%s", strings.Join(p, " "), out)
			}
			if !strings.Contains(out, "USAGE:\n   foundry "+strings.Join(p, " ")) {
				t.Errorf("help of %q has no usage line:\n%s", strings.Join(p, " "), out)
			}
			checkFlagHelp(t, out)
		})
	}
	checkDescriptionWidth(t, nil, commands(&cliEnv{}))
	for _, g := range groups {
		t.Run(strings.Join(g.path, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"foundry"}, g.path...), "--help")
			if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, stderr.String())
			}
			var names []string
			for _, s := range g.subs {
				names = append(names, s.Name)
			}
			want := "USAGE:\n   foundry " + strings.Join(g.path, " ") + " {" + strings.Join(names, "|") + "}"
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("group help does not show its commands in USAGE (%q):\n%s", want, stdout.String())
			}
		})
	}
}

// checkFlagHelp fails on the flag lines urfave/cli prints by default that
// read wrong: a doubled default, the placeholder "value", a bool's
// "(default: false)", a flag with one dash.
func checkFlagHelp(t *testing.T, help string) {
	t.Helper()
	inOptions := false
	for _, line := range strings.Split(help, "\n") {
		if strings.HasSuffix(line, "OPTIONS:") || strings.HasSuffix(line, "OPTIONS (anywhere on the line):") {
			inOptions = true
			continue
		}
		if !inOptions || !strings.HasPrefix(line, "   -") {
			inOptions = inOptions && line != ""
			continue
		}
		flag, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch {
		case strings.Count(line, "(default") > 1:
			t.Errorf("doubled default: %q", line)
		case strings.Contains(line, " value "):
			t.Errorf("placeholder 'value': %q", line)
		case strings.Contains(line, "(default: false)"), strings.Contains(line, "(default: 0)"):
			t.Errorf("default that says nothing: %q", line)
		case len(strings.TrimRight(flag, ",")) > 2 && !strings.HasPrefix(flag, "--"):
			t.Errorf("long flag with one dash: %q", line)
		}
	}
}

// maxDescriptionRunes is the width of a prose line of a command's
// description, before help indents it by three spaces: a line left long by
// an edit would be wrapped by fitHelp into a ragged paragraph.
const maxDescriptionRunes = helpWidth - 3

// checkDescriptionWidth fails on a prose line (one that does not start
// with a space: indented lines are examples and tables, laid out by hand)
// longer than maxDescriptionRunes, in every command's description.
func checkDescriptionWidth(t *testing.T, prefix []string, cmds []*cli.Command) {
	t.Helper()
	for _, c := range cmds {
		p := append(append([]string{}, prefix...), c.Name)
		for i, line := range strings.Split(c.Description, "\n") {
			if !strings.HasPrefix(line, " ") && utf8.RuneCountInString(line) > maxDescriptionRunes {
				t.Errorf("help of %q, description line %d has %d runes, want at most %d: %q",
					strings.Join(p, " "), i+1, utf8.RuneCountInString(line), maxDescriptionRunes, line)
			}
		}
		checkDescriptionWidth(t, p, c.Subcommands)
	}
}

func TestFitHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"short line kept", "   --json  print JSON\n", "   --json  print JSON\n"},
		{"flag usage under its column",
			"   --type TYPE  one TYPE of decision, constraint,  convention, domain\n",
			"   --type TYPE  one TYPE of decision,\n                constraint,  convention,\n                domain\n"},
		{"a column past half the width hangs at the indent",
			"   --a-rather-long-flag NAME  the NAME of it all\n",
			"   --a-rather-long-flag NAME  the NAME\n   of it all\n"},
		{"prose under its indent",
			"   a line of prose that is long, longer than forty\n",
			"   a line of prose that is long, longer\n   than forty\n"},
		{"a word wider than the line is left whole",
			"   https://example.com/a/very/long/path/to/a/file\n",
			"   https://example.com/a/very/long/path/to/a/file\n"},
		{"no final newline", "   one two three four five six seven eight", "   one two three four five six seven\n   eight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, fitHelp(tt.in, 40)); diff != "" {
				t.Errorf("fitHelp(%q, 40) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// sourceRefusal matches an EXIT STATUS line that names the refusal of
// --rev and --staged together.
var sourceRefusal = regexp.MustCompile(`--rev( or |/)--staged`)

// TestSourceRefusalDocumentedAsUsage checks that every command whose help
// names the refusal of --rev and --staged lists it under exit 2, the code
// exitCode gives it (project.ErrReadOnly, or a usage error): the help
// must say what the command does.
func TestSourceRefusalDocumentedAsUsage(t *testing.T) {
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, prefix...), c.Name)
			walk(p, c.Subcommands)
			_, status, ok := strings.Cut(c.Description, "EXIT STATUS:")
			if !ok {
				continue
			}
			code := ""
			for _, line := range strings.Split(status, "\n") {
				if f := strings.Fields(line); len(f) > 0 && strings.Trim(f[0], "0123456789") == "" {
					code = f[0]
				}
				if sourceRefusal.MatchString(line) && code != "2" {
					t.Errorf("help of %q lists the refusal of --rev and --staged under exit %s, want 2: %q",
						strings.Join(p, " "), code, strings.TrimSpace(line))
				}
			}
		}
	}
	walk(nil, commands(&cliEnv{}))
}

// TestHelpCommand checks that `foundry help NAME…` (and `foundry help --
// NAME…`, which the help command prints itself) prints what `foundry NAME…
// --help` does, for every command and subcommand, help included.
func TestHelpCommand(t *testing.T) {
	paths := visiblePaths()
	help := func(t *testing.T, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"foundry"}, args...), nil, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
			t.Fatalf("foundry %s: exit %d, stderr: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	for _, p := range paths {
		// Not parallel: urfave/cli v2 keeps its help flag in a package
		// variable, so two apps may not run at once in one process.
		t.Run(strings.Join(append([]string{"foundry"}, p...), " "), func(t *testing.T) {
			want := help(t, append(p, "--help")...)
			for _, args := range [][]string{
				append([]string{"help"}, p...),
				append([]string{"h"}, p...),
				append([]string{"help", "--"}, p...),
			} {
				if diff := cmp.Diff(want, help(t, args...)); diff != "" {
					t.Errorf("foundry %s (-want +got):\n%s", strings.Join(args, " "), diff)
				}
			}
		})
	}
}
