package mcp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/mcp"
)

// TestRunDaemon runs the daemon on a loopback port: it publishes its
// address, answers /healthz, refuses a second daemon of the same project
// naming the first one's address, and on cancellation stops, returns nil
// and removes its address file.
func TestRunDaemon(t *testing.T) {
	t.Parallel()
	o, url, stop := runDaemon(t, "127.0.0.1:0")
	dir := o.Worktree
	resp, err := http.Get(strings.TrimSuffix(url, mcp.Endpoint) + mcp.HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Errorf("healthz: %d %q", resp.StatusCode, body)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".foundry", "run", ".gitignore")); err != nil || !strings.Contains(string(b), "*\n") {
		t.Errorf("runtime folder .gitignore: %q, %v", b, err)
	}

	second := o
	second.Ready = nil
	err = mcp.RunDaemon(context.Background(), second)
	var re *mcp.RunningError
	if !errors.As(err, &re) || re.URL != url || re.PID != os.Getpid() || !errors.Is(err, mcp.ErrDaemonRunning) {
		t.Errorf("second daemon: %v, want a RunningError naming %s", err, url)
	}

	stop()
	if _, err := os.Stat(filepath.Join(dir, ".foundry", "run", "mcp-http.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("address file after stop: %v", err)
	}
}

// TestRunDaemonRefuses checks the security rules that stop a daemon before
// it binds.
func TestRunDaemonRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, err := confined.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		edit    func(*mcp.DaemonOptions)
		wantErr string
	}{
		{name: "all interfaces", edit: func(o *mcp.DaemonOptions) { o.Listen = ":0"; o.EnvToken = strings.Repeat("t", 20) },
			wantErr: "beyond loopback, requires bearer tokens and TLS"},
		{name: "writes without tokens", edit: func(o *mcp.DaemonOptions) { o.Server.Scopes = []string{scopeReadTest, scopeWriteTest} },
			wantErr: "tools that write requires bearer tokens"},
		// A configured token named like the environment's would share its
		// sessions, scopes and limits: a reader could use a writer's session.
		{name: "a token named like the environment's", edit: func(o *mcp.DaemonOptions) {
			o.EnvToken = strings.Repeat("t", 20)
			o.HTTP.Tokens = []config.MCPToken{{Name: mcp.EnvTokenName, Scopes: []string{scopeReadTest}, SHA256: strings.Repeat("ab", 32)}}
		}, wantErr: "named " + mcp.EnvTokenName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := mcp.DaemonOptions{Root: root, Worktree: dir, Listen: "127.0.0.1:0", Server: mcp.Options{Registry: reg, Scopes: []string{scopeReadTest}}}
			tt.edit(&o)
			err := mcp.RunDaemon(context.Background(), o)
			if !errors.Is(err, mcp.ErrInsecure) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("RunDaemon = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:7391": true, "127.9.9.9:1": true, "[::1]:80": true, "localhost:1": true, "LOCALHOST:1": true,
		":7391": false, "0.0.0.0:1": false, "[::]:1": false, "10.0.0.1:1": false, "example.com:1": false, "127.0.0.1": false,
	} {
		if got := mcp.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestRunDaemonOnOtherLoopbackAddress runs the daemon on a loopback
// address other than 127.0.0.1 (IsLoopback accepts all of 127.0.0.0/8, so
// it starts without tokens): the URL it publishes must be served, and its
// Host (an IP literal, which DNS cannot rebind) accepted, while a name
// other than localhost is still refused.
func TestRunDaemonOnOtherLoopbackAddress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("this system does not route 127.0.0.2 to loopback: %v", err)
	}
	ln.Close()
	_, url, stop := runDaemon(t, "127.0.0.2:0")
	defer stop()
	if !strings.HasPrefix(url, "http://127.0.0.2:") {
		t.Fatalf("published URL %s, want one on 127.0.0.2", url)
	}
	for _, tt := range []struct {
		name, host, origin string
		want               int
	}{
		{name: "published URL", want: http.StatusOK},
		{name: "its own origin", origin: strings.TrimSuffix(url, mcp.Endpoint), want: http.StatusOK},
		{name: "another name", host: "evil.example:80", want: http.StatusForbidden},
	} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.host != "" {
			req.Host = tt.host
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: %d %s, want %d", tt.name, resp.StatusCode, body, tt.want)
		}
	}
}

// runDaemon runs RunDaemon, listening on listen, for a new project and
// returns its options, the URL it published once ready, and stop, which
// cancels it and checks that it then returned nil.
func runDaemon(t *testing.T, listen string) (o mcp.DaemonOptions, url string, stop func()) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := confined.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	o = mcp.DaemonOptions{Root: root, Worktree: dir, Listen: listen, Server: mcp.Options{Registry: reg, Scopes: []string{scopeReadTest}}}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	o.Ready = func(url string) { ready <- url }
	done := make(chan error, 1)
	go func() { done <- mcp.RunDaemon(ctx, o) }()
	select {
	case url = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("RunDaemon = %v before it was ready", err)
	}
	return o, url, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunDaemon after cancel = %v, want nil", err)
		}
	}
}
