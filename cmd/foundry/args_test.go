package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func TestNormalizeArgs(t *testing.T) {
	t.Parallel()
	env := &cliEnv{}
	app := &cli.App{
		Flags: globalFlags(env),
		Commands: []*cli.Command{
			{Name: "doctor", Flags: []cli.Flag{&cli.BoolFlag{Name: "fix"}, &cli.StringFlag{Name: "format"}}},
			{Name: "memory", Subcommands: []*cli.Command{
				{Name: "search", Flags: []cli.Flag{&cli.StringFlag{Name: "type"}, &cli.IntFlag{Name: "limit"}}},
			}},
			newHelpCommand(),
		},
	}
	tests := []struct {
		in   string
		want string
	}{
		{"doctor --json", "--json doctor"},
		{"--json doctor", "--json doctor"},
		{"doctor --rev HEAD~5 --fix", "--rev HEAD~5 doctor --fix"},
		{"memory search flyway --type decision", "memory search --type decision -- flyway"},
		{"memory search flyway --type=decision --limit 3 --json", "--json memory search --type=decision --limit 3 -- flyway"},
		{"memory search --staged flyway migrations", "--staged memory search -- flyway migrations"},
		{"-C examples/demo doctor", "-C examples/demo doctor"},
		{"doctor -C examples/demo", "-C examples/demo doctor"},
		{"memory search -- --type", "memory search -- --type"},
		{"doctor --bogus", "doctor --bogus"},
		{"memory search doctor", "memory search -- doctor"},
		{"help memory", "memory --help"},
		{"--json help memory", "--json memory --help"},
		{"help memory search", "memory search --help"},
		{"help", "help"},
		{"--json help", "--json help"},
		{"help nosuch", "help nosuch"},
		{"help memory nosuch", "help memory nosuch"},
		// Global flags after a help topic that is not a command are
		// global flags still; a missing value ends the line.
		{"help --json nosuch", "--json help nosuch"},
		{"help nosuch -C dir --staged", "-C dir --staged help nosuch"},
		{"help nosuch --format json", "help nosuch --format json"},
		{"help nosuch -- --json", "help nosuch -- --json"},
		{"help nosuch -C", "-C"},
		// The value of a flag is not a help topic.
		{"help -C dir memory", "-C dir memory --help"},
		{"h -C dir", "-C dir help"},
		{"h memory", "memory --help"},
		{"h", "help"},
		// The help of help is the help command's to print.
		{"help help", "help help"},
		{"help h", "help help"},
		{"h help", "help help"},
		{"help --help", "help help"},
		{"--help help", "help help"},
		{"--json help -h", "--json help help"},
		{"help help memory", "help help memory"},
		// After a command, help is an argument like any other.
		{"memory search help", "memory search -- help"},
		{"memory search flyway --help", "memory search --help"},
		{"memory search flyway -h --type x", "memory search --type x --help"},
		{"memory --help search", "memory search --help"},
		{"--help doctor", "doctor --help"},
		{"--help", "--help"},
		{"memory search -- --help", "memory search -- --help"},
		{"memory search flyway --type", "memory search --type"},
		{"memory search flyway --limit 2 --type", "memory search --limit 2 --type"},
		{"doctor --rev", "--rev"},
		{"memory search flyway -C", "-C"},
		{"--json memory search flyway -C", "--json -C"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got := normalizeArgs(app, append([]string{"foundry"}, strings.Fields(tt.in)...))
			want := append([]string{"foundry"}, strings.Fields(tt.want)...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("normalizeArgs(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestArgsHaveJSON reads lines with foundry's own flags: --json or
// --format json asks for JSON, but not as the value of another flag.
func TestArgsHaveJSON(t *testing.T) {
	t.Parallel()
	app := newApp(&cliEnv{})
	tests := []struct {
		name string
		args string
		want bool
	}{
		{name: "none", args: "memory search flyway"},
		{name: "json", args: "memory search flyway --json", want: true},
		{name: "json first", args: "--json memory search flyway", want: true},
		{name: "one dash", args: "memory list -json", want: true},
		{name: "json=true", args: "memory list --json=true", want: true},
		{name: "json=t", args: "memory list --json=t", want: true},
		{name: "json=false", args: "memory list --json=false"},
		{name: "json=maybe", args: "memory list --json=maybe"},
		{name: "value of a command flag", args: "memory search --type --json x"},
		{name: "value of a command flag, then json", args: "memory search --type --json x --json", want: true},
		{name: "value with =", args: "memory search --type=--json x"},
		{name: "value of a global flag", args: "-C --json doctor"},
		{name: "value of a global flag after the command", args: "doctor --rev --json"},
		{name: "value of --log-file", args: "memory list --log-file --json"},
		{name: "value of an int flag", args: "memory search x --limit --json"},
		{name: "value of a subcommand's flag", args: "blackboard read --agent --json w"},
		{name: "bool flag before json", args: "memory list --all --json", want: true},
		{name: "unknown flag has no value", args: "memory list --bogus --json", want: true},
		{name: "flag of another command", args: "runbook list --type --json", want: true},
		{name: "format json", args: "doctor --format json", want: true},
		{name: "format=json", args: "validate --format=json x.v1 a.json", want: true},
		{name: "format one dash", args: "doctor -format json", want: true},
		{name: "format text", args: "doctor --format text"},
		{name: "format value --json", args: "doctor --format --json"},
		{name: "json as an argument", args: "memory search json"},
		{name: "after --", args: "memory search -- --json"},
		{name: "format json after --", args: "doctor -- --format json"},
		{name: "-- as a flag value", args: "memory search --type -- --json", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"foundry"}, strings.Fields(tt.args)...)
			if got := argsHaveJSON(app, args); got != tt.want {
				t.Errorf("argsHaveJSON(%q) = %v, want %v", tt.args, got, tt.want)
			}
		})
	}
}

// TestFlagNames checks flagNames against urfave/cli's own Names for every
// flag of foundry, global and of each command and subcommand: a flag type
// flagNames reads wrongly, or a name in the "name, alias" form that
// flagNames would not cut, fails it.
func TestFlagNames(t *testing.T) {
	t.Parallel()
	app := newApp(&cliEnv{})
	seen := 0
	check := func(where string, flags []cli.Flag) {
		for _, f := range flags {
			seen++
			if diff := cmp.Diff(f.Names(), flagNames(f)); diff != "" {
				t.Errorf("%s: flagNames(%T %q) (-Names +flagNames):\n%s", where, f, f.Names()[0], diff)
			}
		}
	}
	check("foundry", app.Flags)
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			check(path+" "+c.Name, c.Flags)
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk("foundry", app.Commands)
	if seen < 40 {
		t.Fatalf("checked %d flags; foundry has about 50", seen)
	}
}
