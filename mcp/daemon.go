// This file defines the daemon side of the HTTP transport: one daemon per
// project (a lock and an address file in a gitignored runtime folder), the
// http.Server with its timeouts, and the graceful shutdown.

package mcp

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

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
		re := &RunningError{}
		if b, err := confined.ReadFile(root.FS(), RuntimeDir+"/"+daemonAddrFile); err == nil {
			var a daemonAddr
			if json.Unmarshal(b, &a) == nil {
				re.URL, re.PID = a.URL, a.PID
			}
		}
		return nil, re
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
// host binds every interface.
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

// LoopbackHosts returns the Host header values a loopback daemon on port
// accepts; LoopbackOrigins the matching Origin values.
func LoopbackHosts(port string) []string {
	return []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
}

// LoopbackOrigins returns the origins of a loopback daemon's own pages.
func LoopbackOrigins(scheme, port string) []string {
	hosts := LoopbackHosts(port)
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
	<-served
	h.Close()
	return nil
}
