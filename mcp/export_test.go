package mcp

import (
	"context"
	"net"
)

// CheckBound is checkBound: whether a daemon asked to listen on listen may
// serve on bound.
func CheckBound(listen string, bound net.Addr) error { return checkBound(listen, bound) }

// RunDaemonListening is [RunDaemon] binding through listen in place of
// net.Listen: what a daemon does when the system resolves a name to an
// address a test cannot make it give.
func RunDaemonListening(ctx context.Context, o DaemonOptions, listen func(network, address string) (net.Listener, error)) error {
	return runDaemon(ctx, o, listen)
}
