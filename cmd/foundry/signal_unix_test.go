//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestServeInterrupted signals a running `foundry mcp serve` the moment it
// has answered initialize, its stdin still open: SIGINT and SIGTERM each
// cancel the command, which exits 130 (interrupted), not dead of the
// signal. The subscription to the signals is made alongside start-up
// (notifyContext); the server waits for it before serving, so even a
// signal sent right after the first answer finds it.
func TestServeInterrupted(t *testing.T) {
	t.Parallel()
	bin := buildFoundry(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, "mcp", "serve")
			cmd.Dir = mcpFixture(t)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := stdin.Write([]byte(initializeLine + "\n")); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.Contains(line, `"serverInfo":{"name":"foundry"`) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("no initialize answer (%v): %q\n%s", err, line, stderr.Bytes())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("mcp serve after %v: %v, want exit status 130\n%s", sig, err, stderr.Bytes())
			}
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("mcp serve died of %v instead of exiting 130\n%s", ws.Signal(), stderr.Bytes())
			}
			if exit.ExitCode() != exitInterrupted {
				t.Fatalf("mcp serve after %v: exit status %d, want %d\n%s", sig, exit.ExitCode(), exitInterrupted, stderr.Bytes())
			}
			if got := stderr.String(); !strings.HasSuffix(got, "\nfoundry: interrupted\n") {
				t.Errorf("mcp serve after %v: stderr does not end with the line \"foundry: interrupted\":\n%s", sig, got)
			}
		})
	}
}

// TestNotifyContext checks that notifyContext cancels its context when a
// signal it subscribes to arrives, with the signal as the cause, and that
// awaitSignals returns once the subscription is in place.
func TestNotifyContext(t *testing.T) {
	// Not parallel: the process signals itself.
	ctx := notifyContext(t.Context(), syscall.SIGUSR1)
	awaitSignals(ctx)
	if err := ctx.Err(); err != nil {
		t.Fatalf("context done before any signal: %v", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if cause := context.Cause(ctx); cause == nil || cause.Error() != "user defined signal 1 signal received" {
		t.Fatalf("cause %v, want the signal received", cause)
	}
}
