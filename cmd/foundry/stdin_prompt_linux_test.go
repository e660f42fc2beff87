package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/foundryhq/foundry/internal/testenv"
)

// openTerminal returns the two ends of a new pseudo-terminal: the one a
// command reads as its stdin, and the one that types into it.
func openTerminal(t *testing.T) (tty, keyboard *os.File) {
	t.Helper()
	keyboard, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		testenv.Missing(t, "pseudo-terminals (/dev/ptmx)", err)
	}
	t.Cleanup(func() { _ = keyboard.Close() })
	fd := int(keyboard.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		testenv.Missing(t, "a pseudo-terminal that unlocks", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		testenv.Missing(t, "a pseudo-terminal with a number", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		testenv.Missing(t, "/dev/pts", err)
	}
	t.Cleanup(func() { _ = tty.Close() })
	return tty, keyboard
}

// TestStdinPromptOnTerminal: a command that reads stdin says so when stdin
// is a terminal, and reads what is typed up to Ctrl-D; piped input gets no
// prompt.
func TestStdinPromptOnTerminal(t *testing.T) {
	// Not parallel: run shares urfave/cli's global help flag.
	for _, tt := range []struct {
		name   string
		args   []string
		typed  string
		prompt string
	}{
		{"blackboard write", []string{"blackboard", "write", "--wave", "audit", "--agent", "appsec", "--schema", "finding.v1"},
			`{"id": "F-1", "severity": "low", "title": "t", "summary": "s", "failureScenario": "f", "confidence": "low"}`,
			"reading the artifact's JSON from the terminal: end it with Ctrl-D on a line of its own (or pass --data-file FILE)"},
		{"memory write", []string{"memory", "write", "--title", "Deploys happen on Thursdays", "--type", "convention", "--body-file", "-"},
			"Weekly, after the freeze.",
			"reading the fact's body from the terminal: end it with Ctrl-D on a line of its own (or pass --body TEXT)"},
		{"validate", []string{"validate", "finding.v1", "-"},
			`{"schema": "finding.v1", "producedBy": "a", "id": "F-1", "severity": "low", "title": "t", "summary": "s", "failureScenario": "f", "confidence": "low"}`,
			"reading the artifact's JSON from the terminal: end it with Ctrl-D on a line of its own (or name a FILE)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, ".foundry"), 0o755); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"foundry", "-C", dir}, tt.args...)

			tty, keyboard := openTerminal(t)
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), args, tty, &stdout, &stderr) }()
			// Canonical mode: a line, then Ctrl-D on a line of its own.
			if _, err := keyboard.WriteString(tt.typed + "\n\x04"); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
			case <-time.After(time.Minute):
				t.Fatal("the command did not end after Ctrl-D")
			}
			if !strings.Contains(stderr.String(), tt.prompt+"\n") {
				t.Errorf("stderr = %q, want the prompt %q", stderr.String(), tt.prompt)
			}

			// The same input piped: no prompt.
			stdout.Reset()
			stderr.Reset()
			piped := append([]string{"foundry", "-C", t.TempDir()}, tt.args...)
			if err := os.MkdirAll(filepath.Join(piped[2], ".foundry"), 0o755); err != nil {
				t.Fatal(err)
			}
			if code := run(context.Background(), piped, strings.NewReader(tt.typed+"\n"), &stdout, &stderr); code != 0 {
				t.Fatalf("piped: exit %d: %s", code, stderr.String())
			}
			if strings.Contains(stderr.String(), "from the terminal") {
				t.Errorf("piped input was prompted for: %q", stderr.String())
			}
		})
	}
}
