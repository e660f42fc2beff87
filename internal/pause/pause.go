// Package pause holds the pause points that tests use to stop a process at
// an exact step of a write or of the server's shutdown (a SIGKILL between
// two steps of a write, a tool call still in flight when stdin closes).
//
// A point does nothing until a test installs a hook: the shipped binary
// never does, so a point costs one atomic load there and the binary holds
// no code that reads the environment or waits (package
// internal/testpause, imported only by tests, provides the hook; a test of
// the module root checks the built binary).
package pause

import (
	"context"
	"sync/atomic"
)

// hook is the installed pause function, nil in production. It is the
// package's only state, and only test binaries ever set it.
var hook atomic.Pointer[func(ctx context.Context, name string)]

// Point calls the installed hook with the point's name; without one it
// returns at once.
func Point(ctx context.Context, name string) {
	if h := hook.Load(); h != nil {
		(*h)(ctx, name)
	}
}

// Install makes every later [Point] call fn. Only test binaries call it.
func Install(fn func(ctx context.Context, name string)) {
	hook.Store(&fn)
}
