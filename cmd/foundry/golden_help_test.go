package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestHelpGolden compares `foundry [<command>...] --help` for the root and
// every command and subcommand with testdata/help/<command path>.golden,
// so that any change to the CLI's surface is a reviewed diff. Run with
// -update to rewrite the files; a missing file fails without it.
//
//nolint:paralleltest // urfave/cli v2 keeps its help flag in a package variable
func TestHelpGolden(t *testing.T) {
	paths := visiblePaths()
	dir := filepath.Join("testdata", "help")
	want := map[string]bool{}
	for _, p := range paths {
		name := "foundry"
		if len(p) > 0 {
			name = strings.Join(p, "_")
		}
		file := filepath.Join(dir, name+".golden")
		want[filepath.Base(file)] = true
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"foundry"}, p...), "--help")
			if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, stderr.String())
			}
			for i, line := range strings.Split(stdout.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > helpWidth {
					t.Errorf("line %d has %d runes, want at most %d: %q", i+1, n, helpWidth, line)
				}
			}
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			golden, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/foundry -run TestHelpGolden -update and review the diff)", err)
			}
			if diff := cmp.Diff(string(golden), stdout.String()); diff != "" {
				t.Errorf("%s changed (-golden +help); review, then run with -update:\n%s", file, diff)
			}
		})
	}
	// A golden file of a command that no longer exists is stale.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !want[e.Name()] {
			if *update {
				_ = os.Remove(filepath.Join(dir, e.Name()))
				continue
			}
			t.Errorf("%s has no command; remove it (or run with -update)", filepath.Join(dir, e.Name()))
		}
	}
}
