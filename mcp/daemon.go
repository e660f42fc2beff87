// This file defines the daemon side of the HTTP transport: one daemon per
// project (a lock and an address file in a gitignored runtime folder), the
// http.Server with its timeouts, and the graceful shutdown.

package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
)

// RuntimeDir is the folder, relative to the project root, of a running
// daemon's files. It holds its own .gitignore, so it is never committed
// whatever the project's .gitignore says.
const RuntimeDir = ".foundry/run"

// Files of the runtime folder.
const (
	daemonLockFile = "mcp-http.lock"
	daemonAddrFile = "mcp-http.json"
)

// Timeouts of the daemon's http.Server. A server-wide read or write
// timeout would cut the long GET streams, so the body has its own deadline
// (HTTPOptions.BodyReadTimeout) and a slow client is bounded by these.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultShutdownTimeout   = 10 * time.Second
	maxHeaderBytes           = 64 << 10
)

// RunningError reports that a daemon already serves the project.
type RunningError struct {
	// URL is where the running daemon listens, PID its process; both empty
	// when its address file cannot be read.
	URL string
	PID int
}

func (e *RunningError) Error() string {
	if e.URL == "" {
		return "an MCP daemon already serves this project (its address file " + RuntimeDir + "/" + daemonAddrFile + " is unreadable)"
	}
	return fmt.Sprintf("an MCP daemon already serves this project at %s (pid %d)", e.URL, e.PID)
}

// Unwrap makes the error match [ErrDaemonRunning].
func (e *RunningError) Unwrap() error { return ErrDaemonRunning }

// DaemonLock is the lock of the one daemon of a project.
type DaemonLock struct {
	root   *confined.Root
	unlock func() error
}

// daemonAddr is the content of the address file.
type daemonAddr struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
}

// LockDaemon takes the daemon lock of the project whose confined root is
// root, creating the runtime folder when needed. When another process
// holds it, the error is a [*RunningError] saying where that daemon
// listens.
func LockDaemon(root *confined.Root) (*DaemonLock, error) {
	if err := root.MkdirAll(RuntimeDir); err != nil {
		return nil, fmt.Errorf("lock mcp daemon: %w", err)
	}
	ignore := RuntimeDir + "/.gitignore"
	if _, err := fs.Stat(root.FS(), ignore); errors.Is(err, fs.ErrNotExist) {
		if err := root.WriteFile(ignore, []byte("# A running daemon's lock and address; never committed.\n*\n"), 0o644); err != nil {
			return nil, fmt.Errorf("lock mcp daemon: %w", err)
		}
	}
	// A done context makes Lock try once: a held lock means a running
	// daemon, not a wait.
	tried, cancel := context.WithCancel(context.Background())
	cancel()
	unlock, err := root.Lock(tried, RuntimeDir+"/"+daemonLockFile)
	switch {
	case errors.Is(err, context.Canceled):
		a := readDaemonAddr(root)
		return nil, &RunningError{URL: a.URL, PID: a.PID}
	case err != nil:
		return nil, fmt.Errorf("lock mcp daemon: %w", err)
	}
	return &DaemonLock{root: root, unlock: unlock}, nil
}

// Publish records where the daemon listens, for a second start to report
// and for clients to find.
func (l *DaemonLock) Publish(url string) error {
	b, _ := json.Marshal(daemonAddr{URL: url, PID: os.Getpid()}) // never fails
	if err := l.root.WriteFile(RuntimeDir+"/"+daemonAddrFile, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("publish mcp daemon address: %w", err)
	}
	return nil
}

// Release removes the address file and frees the lock.
func (l *DaemonLock) Release() error {
	_ = l.root.Remove(RuntimeDir + "/" + daemonAddrFile)
	if err := l.unlock(); err != nil {
		return fmt.Errorf("unlock mcp daemon: %w", err)
	}
	return nil
}

// IsLoopback reports whether a listen address (host:port) binds loopback
// interfaces only: an IP of the loopback range, or "localhost". An empty
// host binds every interface. "localhost" is a name the system resolves:
// [RunDaemon] checks, once bound, that it gave a loopback address.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkBound refuses bound, the address a listener bound for listen, when
// listen was taken as loopback ([IsLoopback]) and bound is not: the name
// "localhost" is resolved by the system (/etc/hosts, DNS), which may give
// any address, and the daemon would then serve beyond loopback under the
// loopback rules (no TLS, tokens only for writes, a Host allow-list of
// loopback names). An IP literal binds itself and always passes.
func checkBound(listen string, bound net.Addr) error {
	if !IsLoopback(listen) {
		return nil
	}
	ap, err := netip.ParseAddrPort(bound.String())
	if err == nil && ap.Addr().Unmap().IsLoopback() {
		return nil
	}
	resolved := bound.String()
	if err == nil {
		resolved = ap.Addr().String()
	}
	host, port, _ := net.SplitHostPort(listen)
	return fmt.Errorf("serve mcp over http: listening on %s binds %s, beyond loopback: the system resolver (/etc/hosts or DNS) resolves %s to %s; listen on %s, or on the address itself, which beyond loopback requires bearer tokens and TLS: %w",
		listen, bound, host, resolved, net.JoinHostPort("127.0.0.1", port), ErrInsecure)
}

// LoopbackHosts returns the Host header values a loopback daemon bound to
// addr (host:port) accepts: localhost, 127.0.0.1 and [::1] on its port,
// and addr itself when it is another loopback IP (IsLoopback accepts all
// of 127.0.0.0/8), where the published URL points: an IP literal is no
// name DNS can rebind. LoopbackOrigins returns the matching Origin values.
func LoopbackHosts(addr string) []string {
	host, port, _ := net.SplitHostPort(addr)
	hosts := []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		if own := net.JoinHostPort(host, port); !slices.Contains(hosts, own) {
			hosts = append(hosts, own)
		}
	}
	return hosts
}

// LoopbackOrigins returns the origins of the own pages of a loopback
// daemon bound to addr.
func LoopbackOrigins(scheme, addr string) []string {
	hosts := LoopbackHosts(addr)
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = scheme + "://" + h
	}
	return out
}

// HTTPServeOptions configure [ServeHTTP].
type HTTPServeOptions struct {
	// TLS, when set, serves HTTPS.
	TLS *tls.Config
	// ShutdownTimeout bounds the wait for requests in flight once ctx is
	// done (default 10s); what is still running then is cancelled.
	ShutdownTimeout time.Duration
	// Logger receives the server's own errors; nil discards them.
	Logger *slog.Logger
}

// ServeHTTP serves h on ln until ctx is done, then shuts down gracefully:
// it stops accepting, lets the requests in flight finish (bounded by
// ShutdownTimeout, after which they are cancelled), ends the GET streams
// and every session. It returns nil after a shutdown asked through ctx.
func ServeHTTP(ctx context.Context, ln net.Listener, h *HTTPHandler, o HTTPServeOptions) error {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		IdleTimeout:       DefaultIdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		TLSConfig:         o.TLS,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	srv.RegisterOnShutdown(func() { go h.Shutdown() })
	served := make(chan error, 1)
	go func() {
		if o.TLS != nil {
			served <- srv.ServeTLS(ln, "", "")
		} else {
			served <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-served:
		h.Close()
		return fmt.Errorf("serve mcp over http: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing the requests in flight", "timeout", o.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		log.Warn("requests still in flight at the shutdown timeout are cancelled", "err", err)
		_ = srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("serve", "err", err)
	}
	h.Close()
	return nil
}

// DaemonOptions configure [RunDaemon].
type DaemonOptions struct {
	// Root is the project's confined root: the runtime folder goes there.
	Root *confined.Root
	// Worktree is the working tree that holds the project (the project
	// root when it is not in git); a token file must lie outside it.
	Worktree string
	// Listen is the address to bind (host:port).
	Listen string
	// Server governs every session, as for stdio.
	Server Options
	// HTTP is the mcp.http block of the config.
	HTTP config.MCPHTTP
	// EnvToken is the value of FOUNDRY_MCP_TOKEN, a token for one run;
	// empty when unset.
	EnvToken string
	// Logger receives the daemon's structured logs.
	Logger *slog.Logger
	// Ready, when set, is called with the endpoint's URL once the daemon
	// listens.
	Ready func(url string)
}

// EnvTokenName names the token of FOUNDRY_MCP_TOKEN in logs and audit
// lines.
const EnvTokenName = "FOUNDRY_MCP_TOKEN"

// minEnvToken is the shortest FOUNDRY_MCP_TOKEN accepted.
const minEnvToken = 16

// RunDaemon serves the project over Streamable HTTP until ctx is done,
// then shuts down gracefully and returns nil. It refuses to start when the
// security rules are not met: beyond loopback it needs bearer tokens and
// TLS; on loopback it needs tokens unless the server is read-only. A
// loopback name that binds beyond loopback is refused once bound. One
// daemon serves a project at a time.
func RunDaemon(ctx context.Context, o DaemonOptions) error {
	return runDaemon(ctx, o, net.Listen)
}

// runDaemon is [RunDaemon] binding through listen: tests bind a listener
// of their own, as they cannot make the system resolver give "localhost"
// another address.
func runDaemon(ctx context.Context, o DaemonOptions, listen func(network, address string) (net.Listener, error)) error {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tokens, err := daemonTokens(o)
	if err != nil {
		return err
	}
	loopback := IsLoopback(o.Listen)
	tlsOn := o.HTTP.TLSCert != ""
	switch {
	case !loopback && (len(tokens) == 0 || !tlsOn):
		return fmt.Errorf("serve mcp over http: listening on %s, beyond loopback, requires bearer tokens and TLS (mcp.http.tls in %s): %w", o.Listen, config.Path, ErrInsecure)
	case len(tokens) == 0 && o.Server.WritesEnabled():
		return fmt.Errorf("serve mcp over http: a daemon that exposes tools that write requires bearer tokens (foundry mcp token new NAME): %w", ErrInsecure)
	}
	var tlsConf *tls.Config
	if tlsOn {
		cert, err := loadTLS(o)
		if err != nil {
			return fmt.Errorf("serve mcp over http: %w", err)
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}

	lock, err := LockDaemon(o.Root)
	if err != nil {
		return err
	}
	defer func() {
		if err := lock.Release(); err != nil {
			log.Warn("release the daemon lock", "err", err)
		}
	}()
	ln, err := listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("serve mcp over http: %w", err)
	}
	if err := checkBound(o.Listen, ln.Addr()); err != nil {
		ln.Close()
		return err
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	ho := HTTPOptions{
		Options:                o.Server,
		Tokens:                 tokens,
		LiveTokens:             newLiveTokens(o, tokens).current,
		OpenWithoutTokens:      loopback && !o.Server.WritesEnabled(), // as a start allows
		AllowedOrigins:         append(LoopbackOrigins(scheme, addr), o.HTTP.AllowedOrigins...),
		TotalConcurrency:       o.HTTP.MaxConcurrency,
		TotalRequestsPerMinute: o.HTTP.RequestsPerMinute,
		TotalBurst:             o.HTTP.Burst,
	}
	if loopback {
		ho.AllowedHosts = LoopbackHosts(addr)
	}
	h, err := NewHTTPHandler(ho)
	if err != nil {
		ln.Close()
		return err
	}
	host := "127.0.0.1"
	switch h, _, _ := net.SplitHostPort(o.Listen); {
	case strings.EqualFold(h, "localhost"):
		// The address the name resolved to, loopback (checkBound): ::1
		// where the hosts file gives localhost no IPv4 address.
		host, _, _ = net.SplitHostPort(addr)
	case h != "":
		host = h
	}
	url := scheme + "://" + net.JoinHostPort(host, port) + Endpoint
	if err := lock.Publish(url); err != nil {
		ln.Close()
		h.Close()
		return err
	}
	log.Info("serving MCP over Streamable HTTP", "url", url, "tokens", tokenNames(tokens), "read_only", !o.Server.WritesEnabled())
	if o.Ready != nil {
		o.Ready(url)
	}
	if err := ServeHTTP(ctx, ln, h, HTTPServeOptions{TLS: tlsConf, Logger: log}); err != nil {
		return err
	}
	log.Info("daemon stopped")
	return nil
}

// daemonTokens gathers the accepted tokens: the config's, the token
// file's and FOUNDRY_MCP_TOKEN.
func daemonTokens(o DaemonOptions) ([]Token, error) {
	entries := slices.Clone(o.HTTP.Tokens)
	if o.HTTP.TokenFile != "" {
		more, err := readTokenFile(configFilePath(o.HTTP.TokenFile, o.Root.Dir()), o.Worktree)
		if err != nil {
			return nil, err
		}
		entries = append(entries, more...)
	}
	var out []Token
	seen := map[string]bool{}
	for _, e := range entries {
		// Sessions, scopes and limits belong to a token's name: a
		// configured token named like the environment's would share the
		// sessions of that unrestricted token.
		if e.Name == EnvTokenName && o.EnvToken != "" {
			return nil, fmt.Errorf("serve mcp over http: a configured token is named %s, the name of the token of the environment variable; rename it: %w", EnvTokenName, ErrInsecure)
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("serve mcp over http: two tokens are named %s", e.Name)
		}
		seen[e.Name] = true
		sum, err := e.Hash()
		if err != nil {
			return nil, fmt.Errorf("serve mcp over http: %w", err)
		}
		out = append(out, Token{Name: e.Name, Scopes: e.Scopes, SHA256: sum})
	}
	if o.EnvToken != "" {
		if len(o.EnvToken) < minEnvToken {
			return nil, fmt.Errorf("serve mcp over http: %s is shorter than %d characters", EnvTokenName, minEnvToken)
		}
		out = append(out, Token{Name: EnvTokenName, SHA256: sha256.Sum256([]byte(o.EnvToken))})
	}
	return out, nil
}

// configFilePath resolves a file mcp.http names (token_file, tls): "~/"
// is the home folder, a relative name is relative to the project root.
func configFilePath(name, root string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(root, name)
}

// readTokenFile reads a token file, which must lie outside the worktree
// and be readable by its owner alone.
func readTokenFile(name, worktree string) ([]config.MCPToken, error) {
	b, err := readConfigFile("token file", name, worktree, true)
	if err != nil {
		return nil, err
	}
	return config.ParseTokens(name, b)
}

// loadTLS loads the certificate and key mcp.http.tls names. The key is
// held to the token file's rules (outside the worktree, readable by its
// owner alone): a private key the config names inside the worktree could
// be committed, and one others can read is no longer private. The
// certificate is public and may lie anywhere.
func loadTLS(o DaemonOptions) (tls.Certificate, error) {
	certPEM, err := readConfigFile("TLS certificate", configFilePath(o.HTTP.TLSCert, o.Root.Dir()), o.Worktree, false)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := readConfigFile("TLS key", configFilePath(o.HTTP.TLSKey, o.Root.Dir()), o.Worktree, true)
	if err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("load TLS certificate: %w", err)
	}
	return cert, nil
}

// readConfigFile reads a regular file of at most 1 MiB that mcp.http names
// (what says which). A secret one must lie outside the worktree and be
// readable by its owner alone.
func readConfigFile(what, name, worktree string, secret bool) ([]byte, error) {
	abs, err := filepath.Abs(name)
	if err == nil {
		if real, rerr := filepath.EvalSymlinks(abs); rerr == nil {
			abs = real
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, name, err)
	}
	if wt, err := filepath.EvalSymlinks(worktree); secret && err == nil {
		if rel, err := filepath.Rel(wt, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("read %s %s: it lies inside the worktree, where it could be committed: %w", what, name, ErrInsecure)
		}
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	const limit = 1 << 20
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, fmt.Errorf("read %s %s: not a regular file of at most 1 MiB", what, name)
	}
	if secret && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("read %s %s: mode %04o lets others read it; chmod 600 it: %w", what, name, fi.Mode().Perm(), ErrInsecure)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("read %s %s: not a regular file of at most 1 MiB", what, name)
	}
	return b, nil
}

// RunningDaemon returns the URL of the daemon serving the project, "" when
// none does or its address file cannot be read. It writes nothing: a
// project whose runtime folder has no lock file has had no daemon.
func RunningDaemon(root *confined.Root) string {
	lockFile := RuntimeDir + "/" + daemonLockFile
	if fi, err := root.Lstat(lockFile); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	tried, cancel := context.WithCancel(context.Background())
	cancel()
	unlock, err := root.Lock(tried, lockFile)
	if err == nil {
		_ = unlock()
		return ""
	}
	if !errors.Is(err, context.Canceled) {
		return ""
	}
	return readDaemonAddr(root).URL
}

// readDaemonAddr reads the address file of the running daemon; zero when
// it cannot be read.
func readDaemonAddr(root *confined.Root) daemonAddr {
	var a daemonAddr
	if b, err := confined.ReadFile(root.FS(), RuntimeDir+"/"+daemonAddrFile); err == nil {
		if json.Unmarshal(b, &a) != nil {
			a = daemonAddr{}
		}
	}
	return a
}
