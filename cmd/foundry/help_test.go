package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestEveryCommandDocumentsExitCodes runs --help for every command and
// subcommand: each must print usage on stdout, exit 0, and end its
// description with an EXIT STATUS section.
func TestEveryCommandDocumentsExitCodes(t *testing.T) {
	var paths [][]string
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, prefix...), c.Name)
			if len(c.Subcommands) > 0 {
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
		})
	}
}
