package main

import (
	"slices"
	"strings"
	"testing"
)

// FuzzArgs feeds command lines (words separated by NUL) to the reading of
// the line that runs before urfave/cli: normalizeArgs, argsHaveJSON and
// commandPath must take any line without panicking, and normalizing a
// normalized line must change nothing.
func FuzzArgs(f *testing.F) {
	for _, line := range []string{
		"memory search flyway",
		"--json memory search --type --json x",
		"help memory search",
		"help nosuch -C dir --staged",
		"help nosuch -C",
		"h help",
		"memory search flyway --help",
		"-C dir --rev HEAD doctor --format json",
		"validate finding.v1 -- -x --json",
		"blackboard read -- -n- --agent a",
		"--rev= --staged=maybe memory",
		"help -- memory search",
	} {
		f.Add(strings.ReplaceAll(line, " ", "\x00"))
	}
	app := newApp(&cliEnv{})
	f.Fuzz(func(t *testing.T, line string) {
		args := append([]string{"foundry"}, strings.Split(line, "\x00")...)
		norm := normalizeArgs(app, slices.Clone(args))
		if len(norm) == 0 || norm[0] != "foundry" {
			t.Fatalf("normalizeArgs(%q) = %q: the program name is lost", args, norm)
		}
		if again := normalizeArgs(app, slices.Clone(norm)); !slices.Equal(again, norm) {
			t.Fatalf("normalizeArgs is not stable:\n%q\n-> %q\n-> %q", args, norm, again)
		}
		_ = argsHaveJSON(app, args)
		_ = commandPath(app, norm)
	})
}
