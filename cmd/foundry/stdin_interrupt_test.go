package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"
)

// TestStdinReadInterrupted: a command reading its input from stdin ends as
// soon as it is interrupted (the context notifyContext cancels on SIGINT
// or SIGTERM), exit 130, instead of waiting for stdin to close and then
// reporting the input it did not get as empty.
//
// Not parallel, nor are its cases: urfave/cli v2 keeps its help flag in a
// package variable, so two apps may not run at once in one process (the
// race detector reports it).
func TestStdinReadInterrupted(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"blackboard write", []string{"blackboard", "write", "--wave", "audit", "--agent", "a", "--schema", "finding.v1"}, "foundry: read artifact from stdin: interrupted\n"},
		{"memory write --body-file -", []string{"memory", "write", "--type", "domain", "--title", "Orders live in Postgres", "--body-file", "-"}, "foundry: read body from stdin: interrupted\n"},
		{"validate -", []string{"validate", "finding.v1", "-"}, "foundry: read stdin: interrupted\n"},
		// Nothing for the model: its input was cut, not the file wrong.
		{"hook claude", []string{"hook", "claude"}, "foundry: interrupted\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{"foundry", "-C", dir, "init"}, nil, &out, &errOut); code != exitOK {
				t.Fatalf("init: exit %d: %s", code, errOut.String())
			}
			// Stdin stays open and empty, as a terminal nobody types in;
			// the interrupt comes once the command is reading it.
			pr, w := io.Pipe()
			defer w.Close()
			stdin := &firstRead{r: pr, reading: make(chan struct{})}
			ctx, cancel := context.WithCancelCause(context.Background())
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, append([]string{"foundry", "-C", dir}, tc.args...), stdin, &stdout, &stderr)
			}()
			select {
			case <-stdin.reading:
			case code := <-done:
				t.Fatalf("exit %d before reading stdin; stderr: %s", code, stderr.String())
			}
			cancel(errors.New("interrupt signal received"))
			select {
			case code := <-done:
				if code != exitInterrupted {
					t.Errorf("exit %d, want %d (interrupted); stderr: %s", code, exitInterrupted, stderr.String())
				}
				if got := stderr.String(); got != tc.stderr {
					t.Errorf("stderr %q, want %q", got, tc.stderr)
				}
				if stdout.Len() > 0 {
					t.Errorf("stdout %q, want nothing", stdout.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatal("still reading stdin 5 s after the interrupt")
			}
		})
	}
}

// firstRead is a reader that closes reading when it is first read from.
type firstRead struct {
	r       io.Reader
	reading chan struct{}
	once    sync.Once
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.reading) })
	return f.r.Read(p)
}
