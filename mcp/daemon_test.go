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
	"sync/atomic"
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

	if got := mcp.RunningDaemon(o.Root); got != url {
		t.Errorf("RunningDaemon = %q, want %q", got, url)
	}

	stop()
	if _, err := os.Stat(filepath.Join(dir, ".foundry", "run", "mcp-http.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("address file after stop: %v", err)
	}
	if got := mcp.RunningDaemon(o.Root); got != "" {
		t.Errorf("RunningDaemon after stop = %q, want none", got)
	}
	// An address file left by a daemon killed: its lock is free.
	if err := os.WriteFile(filepath.Join(dir, ".foundry", "run", "mcp-http.json"), []byte(`{"url":"`+url+`","pid":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mcp.RunningDaemon(o.Root); got != "" {
		t.Errorf("RunningDaemon with a stale address file = %q, want none", got)
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

// TestCheckBound checks the address a daemon bound against the one it
// was asked for: a loopback name ("localhost") must have bound loopback,
// whatever the system resolver gave for it; an address beyond loopback
// is left to the rules checked before binding.
func TestCheckBound(t *testing.T) {
	t.Parallel()
	tcp := func(ip string, zone string) net.Addr {
		return &net.TCPAddr{IP: net.ParseIP(ip), Port: 7391, Zone: zone}
	}
	tests := []struct {
		name    string
		listen  string
		bound   net.Addr
		wantErr string
	}{
		{name: "localhost on 127.0.0.1", listen: "localhost:7391", bound: tcp("127.0.0.1", "")},
		{name: "localhost on ::1", listen: "localhost:7391", bound: tcp("::1", "")},
		{name: "localhost on another loopback IP", listen: "LOCALHOST:0", bound: tcp("127.0.1.1", "")},
		{name: "localhost on IPv4-mapped loopback", listen: "localhost:7391", bound: tcp("::ffff:127.0.0.1", "")},
		{name: "loopback IP", listen: "127.0.0.1:0", bound: tcp("127.0.0.1", "")},
		{name: "all interfaces, checked before binding", listen: ":7391", bound: tcp("::", "")},
		{name: "an IP beyond loopback, checked before binding", listen: "192.0.2.1:7391", bound: tcp("192.0.2.1", "")},
		{name: "localhost on an IPv4 address beyond loopback", listen: "localhost:7391", bound: tcp("192.0.2.1", ""),
			wantErr: "serve mcp over http: listening on localhost:7391 binds 192.0.2.1:7391, beyond loopback: the system resolver (/etc/hosts or DNS) resolves localhost to 192.0.2.1; listen on 127.0.0.1:7391"},
		{name: "localhost on an IPv6 address beyond loopback", listen: "Localhost:7391", bound: tcp("2001:db8::1", ""),
			wantErr: "binds [2001:db8::1]:7391, beyond loopback: the system resolver (/etc/hosts or DNS) resolves Localhost to 2001:db8::1;"},
		{name: "localhost on a link-local address", listen: "localhost:7391", bound: tcp("fe80::1", "eth0"),
			wantErr: "resolves localhost to fe80::1%eth0;"},
		{name: "localhost on every interface", listen: "localhost:7391", bound: tcp("0.0.0.0", ""),
			wantErr: "resolves localhost to 0.0.0.0;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := mcp.CheckBound(tt.listen, tt.bound)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("CheckBound(%q, %v) = %v, want nil", tt.listen, tt.bound, err)
			case tt.wantErr != "" && (!errors.Is(err, mcp.ErrInsecure) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("CheckBound(%q, %v) = %v, want an ErrInsecure saying %q", tt.listen, tt.bound, err, tt.wantErr)
			}
		})
	}
}

// boundAs is a loopback listener that says it is bound to ip, on its own
// port: what net.Listen gives for "localhost" when the system resolves it
// to ip, which no test can make it do without editing /etc/hosts.
type boundAs struct {
	net.Listener
	ip     net.IP
	closed atomic.Bool
}

func (l *boundAs) Addr() net.Addr {
	return &net.TCPAddr{IP: l.ip, Port: l.Listener.Addr().(*net.TCPAddr).Port}
}

func (l *boundAs) Close() error {
	l.closed.Store(true)
	return l.Listener.Close()
}

// TestRunDaemonLocalhostResolved runs the daemon on "localhost" resolved
// to a given address: beyond loopback it refuses to start once bound,
// saying where the name led, and leaves nothing behind (the listener
// closed, no address published, the lock free); on loopback it serves.
func TestRunDaemonLocalhostResolved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ip      string
		wantErr string
	}{
		{name: "beyond loopback", ip: "192.0.2.1", wantErr: "resolves localhost to 192.0.2.1"},
		{name: "loopback", ip: "::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := daemonOptions(t, "localhost:0")
			var ln *boundAs
			listen := func(network, address string) (net.Listener, error) {
				if network != "tcp" || address != o.Listen {
					t.Errorf("listen(%q, %q), want tcp and %q", network, address, o.Listen)
				}
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					return nil, err
				}
				ln = &boundAs{Listener: l, ip: net.ParseIP(tt.ip)}
				return ln, nil
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ready := make(chan string, 1)
			o.Ready = func(url string) { ready <- url }
			done := make(chan error, 1)
			go func() { done <- mcp.RunDaemonListening(ctx, o, listen) }()
			var err error
			select {
			case url := <-ready:
				if tt.wantErr != "" {
					t.Errorf("the daemon started on %s, want it refused", url)
				} else if want := "http://" + net.JoinHostPort(tt.ip, ""); !strings.HasPrefix(url, want) {
					// The URL names the address localhost resolved to,
					// which an IPv6-only hosts file makes ::1.
					t.Errorf("the daemon published %s, want it at %s…", url, want)
				}
				cancel()
				if err = <-done; err != nil {
					t.Errorf("RunDaemon after cancel = %v, want nil", err)
				}
				return
			case err = <-done:
			}
			if tt.wantErr == "" {
				t.Fatalf("RunDaemon = %v before it was ready", err)
			}
			if !errors.Is(err, mcp.ErrInsecure) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("RunDaemon = %v, want an ErrInsecure saying %q", err, tt.wantErr)
			}
			if ln == nil || !ln.closed.Load() {
				t.Error("the listener was left open")
			}
			if _, err := os.Stat(filepath.Join(o.Worktree, ".foundry", "run", "mcp-http.json")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("address file: %v, want none", err)
			}
			lock, err := mcp.LockDaemon(o.Root)
			if err != nil {
				t.Fatalf("lock after the refusal: %v", err)
			}
			if err := lock.Release(); err != nil {
				t.Error(err)
			}
		})
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
	o = daemonOptions(t, listen)
	url, stop = serveDaemon(t, o)
	return o, url, stop
}

// serveDaemon runs the daemon of o until stop is called, and returns its
// endpoint's URL.
func serveDaemon(t *testing.T, o mcp.DaemonOptions) (url string, stop func()) {
	t.Helper()
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
	return url, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunDaemon after cancel = %v, want nil", err)
		}
	}
}

// daemonOptions returns the options of a read-only daemon without tokens
// listening on listen, for a new project.
func daemonOptions(t *testing.T, listen string) mcp.DaemonOptions {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The opt-in a start requires, which the daemon reads again for its
	// tokens.
	if err := os.WriteFile(filepath.Join(dir, config.Path), []byte("mcp:\n  enabled: true\n"), 0o644); err != nil {
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
	return mcp.DaemonOptions{Root: root, Worktree: dir, Listen: listen, Server: mcp.Options{Registry: reg, Scopes: []string{scopeReadTest}}}
}
