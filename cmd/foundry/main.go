// Command foundry keeps a project's agent memory — facts, runbooks, contracts
// and the blackboard — in the repository under .foundry/.
package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	os.Exit(run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// subscribedKey is the context key of the channel notifyContext closes
// once its signals are subscribed.
type subscribedKey struct{}

// notifyContext returns a context cancelled when one of signals arrives,
// as signal.NotifyContext's is, without waiting for the subscription: the
// first signal.Notify of a process starts the runtime's signal thread and
// blocks until that thread has answered, a few hundred microseconds of
// every command's start-up. A goroutine subscribes instead, alongside the
// command. A signal that arrives before it has ends the process as one
// that arrives before main does. The subscription lasts until the process
// exits, as signal.NotifyContext's lasted until its stop, called right
// before os.Exit. Commands that run until they are signalled wait for the
// subscription first (awaitSignals).
func notifyContext(parent context.Context, signals ...os.Signal) context.Context {
	ctx, cancel := context.WithCancelCause(parent)
	subscribed := make(chan struct{})
	go func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, signals...)
		close(subscribed)
		select {
		case s := <-ch:
			cancel(errors.New(s.String() + " signal received"))
		case <-ctx.Done():
		}
	}()
	return context.WithValue(ctx, subscribedKey{}, (<-chan struct{})(subscribed))
}

// awaitSignals returns once the signals of ctx's notifyContext, if it has
// one, are subscribed, or ctx is done.
func awaitSignals(ctx context.Context) {
	if subscribed, ok := ctx.Value(subscribedKey{}).(<-chan struct{}); ok {
		select {
		case <-subscribed:
		case <-ctx.Done():
		}
	}
}
