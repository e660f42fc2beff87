//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPServeClosedStdout checks that a client closing its end of the
// server's stdout ends `foundry mcp serve` with exit 0, not death by
// SIGPIPE (exit 141 from a shell), while stdin stays open, and that a
// write in flight is finished first.
func TestMCPServeClosedStdout(t *testing.T) {
	t.Parallel()
	bin := buildFoundry(t)
	root := mcpFixture(t)
	cmd := exec.Command(bin, "mcp", "serve")
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = outW, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := bufio.NewReader(outR).ReadString('\n'); err != nil {
		t.Fatalf("no answer to initialize: %v", err)
	}
	outR.Close() // the client stops reading
	// Answers now hit a closed pipe; stdin stays open, so only the broken
	// output can end the server.
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_write","arguments":{"type":"domain","title":"Written while nobody reads the answers","body":"b","scope":"project","confidence":"high","source":"code"}}}`)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		stdin.Close()
		t.Fatalf("foundry mcp serve kept running with stdin open after the client closed stdout (then: %v)", <-done)
	}
	stdin.Close()
	if err != nil {
		t.Fatalf("foundry mcp serve ended with %v (%s), want exit 0", err, strings.TrimSpace(cmd.ProcessState.String()))
	}
	data, err := os.ReadFile(filepath.Join(root, ".foundry", "memory", "INDEX.md"))
	if err != nil || !strings.Contains(string(data), "Written while nobody reads the answers") {
		t.Errorf("the write in flight did not finish: INDEX.md %q, %v", data, err)
	}
}
