//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMCPServeClosedStdout checks that a client closing its end of the
// server's stdout ends `foundry mcp serve` with exit 0, not death by
// SIGPIPE (exit 141 from a shell).
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
	for i := 1; i <= 20; i++ {
		if _, err := fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"runbook_list","arguments":{}}}`+"\n", i); err != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	stdin.Close()
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("foundry mcp serve ended with %v (%s), want exit 0", err, strings.TrimSpace(cmd.ProcessState.String()))
	}
}
