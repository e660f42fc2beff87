package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// TestRunDoctorExitCodes checks the codes testscript cannot tell apart: 0
// with warnings only, 3 with errors, 2 for usage and when --fix meets --rev.
func TestRunDoctorExitCodes(t *testing.T) {
	project := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for p, c := range files {
			testenv.WriteFile(t, dir, p, c)
		}
		return dir
	}
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		want  int
	}{
		{"clean", map[string]string{".foundry/blackboard/.keep": ""}, nil, 0},
		{"warning only", map[string]string{".foundry/memory/INDEX.md": "stale\n"}, nil, 0},
		{"error", map[string]string{".foundry/blackboard/w/a.json": "{"}, nil, 3},
		{"error as json", map[string]string{".foundry/blackboard/w/a.json": "{"}, []string{"--json"}, 3},
		{"error as sarif", map[string]string{".foundry/blackboard/w/a.json": "{"}, []string{"--format", "sarif"}, 3},
		{"usage", map[string]string{".foundry/blackboard/.keep": ""}, []string{"--format", "xml"}, 2},
		{"fix at a revision", map[string]string{".foundry/blackboard/.keep": ""}, []string{"--fix", "--rev", "HEAD"}, 2},
	}
	for _, tt := range tests {
		// Not parallel: urfave/cli v2 keeps its help flag in a package
		// variable, so two apps may not run at once in one process.
		t.Run(tt.name, func(t *testing.T) {
			dir := project(t, tt.files)
			var stdout, stderr bytes.Buffer
			args := append([]string{"foundry", "-C", dir, "doctor", "--no-history"}, tt.args...)
			if got := run(context.Background(), args, nil, &stdout, &stderr); got != tt.want {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tt.want, stdout.String(), stderr.String())
			}
			if tt.want == 3 && stderr.Len() != 0 {
				t.Errorf("stderr with findings: %s", stderr.String())
			}
		})
	}
}
