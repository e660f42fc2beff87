package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/mcp"
)

// TestLockWaitSaysSo: a command that waits for a lock another process
// holds (as a stuck or stopped writer would) says so once the wait is long,
// on stderr, or in its log for the MCP server, and completes when the lock
// is released: the memory lock, and the config's, for a command of the
// mcp group and for init.
//
//nolint:paralleltest // urfave/cli v2 keeps its help flag in a package variable
func TestLockWaitSaysSo(t *testing.T) {
	const optIn = "mcp:\n  enabled: true\n  read_only: false\n  scopes: [read:memory, write:memory]\n"
	cliNotice := func(lock string) string {
		return "foundry: waiting for " + lock + ": another process holds its lock (Ctrl-C gives up)\n"
	}
	tests := []struct {
		name   string
		config string // .foundry/config.yaml
		lock   string // the lock held
		args   []string
		stdin  string
		want   func(lock string) string // the notice
		output string                   // on stdout once done
	}{
		{
			name: "memory write", config: optIn, lock: facts.LockPath,
			args: []string{"memory", "write", "--type", "convention", "--source", "code",
				"--title", "Services log in JSON lines", "--body", "Every service logs one JSON object per line."},
			want: cliNotice, output: "fact-0001",
		},
		{
			name: "mcp serve", config: optIn, lock: facts.LockPath,
			args: []string{"mcp", "serve"},
			stdin: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_write","arguments":{"type":"convention","title":"Services log in JSON lines","body":"Every service logs one JSON object per line."}}}` + "\n",
			want:   func(lock string) string { return `level=WARN msg="waiting for a held lock" path=` + lock + "\n" },
			output: "fact-0001",
		},
		{
			name: "mcp token new", config: optIn, lock: config.LockPath,
			args: []string{"mcp", "token", "new", "ci"},
			want: cliNotice, output: mcp.TokenPrefix,
		},
		{
			name: "mcp token revoke", config: optIn + "  http:\n    tokens:\n      - {name: ci, sha256: " + strings.Repeat("ab", 32) + "}\n", lock: config.LockPath,
			args: []string{"--json", "mcp", "token", "revoke", "ci"},
			want: cliNotice, output: `"name": "ci"`,
		},
		{
			// A config without an mcp block gets the opt-in, under the lock.
			name: "init", config: "memory:\n  indexBudgetTokens: 2000\n", lock: config.LockPath,
			args: []string{"init"},
			want: cliNotice, output: "mcp",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mustRun(t, dir, nil, "init")
			testenv.WriteFile(t, dir, ".foundry/config.yaml", tt.config)
			r, err := confined.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			release, err := r.Lock(context.Background(), tt.lock)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want(r.Path(tt.lock))
			stderr := &noticeWriter{want: want, seen: make(chan struct{})}
			var stdout bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- run(context.Background(), append([]string{"foundry", "-C", dir}, tt.args...), strings.NewReader(tt.stdin), &stdout, stderr)
			}()
			select {
			case <-stderr.seen:
			case code := <-done:
				t.Fatalf("it did not wait for the lock, or said nothing: exit %d, stderr %q", code, stderr)
			case <-time.After(time.Minute):
				t.Fatalf("no word after a minute of waiting: stderr %q", stderr)
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if code := <-done; code != 0 {
				t.Fatalf("once the lock was free: exit %d: %s", code, stderr)
			}
			if n := strings.Count(stderr.String(), "waiting for"); n != 1 {
				t.Errorf("the wait was told %d times, want once:\n%s", n, stderr)
			}
			if !strings.Contains(stdout.String(), tt.output) {
				t.Errorf("stdout = %q, want %q in it", stdout.String(), tt.output)
			}
		})
	}
}

// noticeWriter collects what is written to it and closes seen once it
// holds want.
type noticeWriter struct {
	lockedBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if strings.Contains(w.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}
