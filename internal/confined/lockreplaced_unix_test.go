//go:build unix

package confined_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/pause"
)

// lockKinds are the two ways to take a lock: kept open between holds
// (LockHeld) and opened per hold (LockClearing, which Lock is).
var lockKinds = []struct {
	name string
	lock func(r *confined.Root, ctx context.Context, name string) (func() error, error)
}{
	{"LockHeld", func(r *confined.Root, ctx context.Context, name string) (func() error, error) {
		return r.LockHeld(ctx, name)
	}},
	{"LockClearing", func(r *confined.Root, ctx context.Context, name string) (func() error, error) {
		return r.LockClearing(ctx, name, time.Time{})
	}},
}

// TestLockFileReplacedWhileWaiting checks that a lock file removed and
// created again while a holder waits for it does not let two writers in:
// the waiter, once the old file is free, finds another file at the name and
// waits for that one, which a second process holds. Both LockHeld (kept
// open) and Lock (opened per hold) are checked.
func TestLockFileReplacedWhileWaiting(t *testing.T) {
	for _, tc := range lockKinds {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx := context.Background()
			openRoot := func() *confined.Root {
				r, err := confined.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close() })
				return r
			}
			waiter, holder, second, probe := openRoot(), openRoot(), openRoot(), openRoot()
			const name = "x.lock"
			// A first hold, so that LockHeld keeps the old file open.
			unlock, err := tc.lock(waiter, ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if err := unlock(); err != nil {
				t.Fatal(err)
			}
			unlockOld, err := holder.LockClearing(ctx, name, time.Time{})
			if err != nil {
				t.Fatal(err)
			}

			reached, release := make(chan struct{}), make(chan struct{})
			var first atomic.Bool // only the waiter's first flock pauses, not the test's own
			pause.Install(func(_ context.Context, point string) {
				if point == "confined.lock.before-flock" && first.CompareAndSwap(false, true) {
					close(reached)
					<-release
				}
			})
			defer pause.Install(func(context.Context, string) {})

			got := make(chan error, 1)
			var unlockWaiter func() error
			go func() {
				var err error
				unlockWaiter, err = tc.lock(waiter, ctx, name)
				got <- err
			}()
			<-reached // the waiter has the old file open and is about to flock it
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			unlockNew, err := second.LockClearing(ctx, name, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			close(release)
			if err := unlockOld(); err != nil {
				t.Fatal(err)
			}
			if err := unlockNew(); err != nil {
				t.Fatal(err)
			}
			if err := <-got; err != nil {
				t.Fatal(err)
			}
			defer func() { _ = unlockWaiter() }()
			// The waiter must hold the file now at the name: a probe that
			// gives up at once must not get it.
			done, cancel := context.WithCancel(ctx)
			cancel()
			if u, err := probe.LockClearing(done, name, time.Time{}); err == nil {
				_ = u()
				t.Fatal("a second holder got the lock while the waiter held the replaced file")
			}
		})
	}
}

// TestLockGivesUpWhileNameKeepsChanging checks that a lock whose name is
// given to another file on every attempt — a hostile or broken process
// replacing the lock file again and again — gives up when its context is
// done instead of retrying without end: the flock of each attempt succeeds
// at once, so only the retry itself can see the context.
func TestLockGivesUpWhileNameKeepsChanging(t *testing.T) {
	for _, tc := range lockKinds {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r, err := confined.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			const name = "x.lock"
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Every attempt finds the name given to a new file once it has
			// flocked the old one; the third cancels the context. After
			// fifty the replacing stops, so a lock that ignores the context
			// ends holding the lock instead of hanging the test.
			var attempts atomic.Int32
			pause.Install(func(_ context.Context, point string) {
				if point != "confined.lock.before-flock" {
					return
				}
				n := attempts.Add(1)
				if n == 3 {
					cancel()
				}
				if n <= 50 {
					p := filepath.Join(dir, name)
					if err := os.Remove(p); err != nil {
						t.Error(err)
					}
					if err := os.WriteFile(p, nil, 0o644); err != nil {
						t.Error(err)
					}
				}
			})
			defer pause.Install(func(context.Context, string) {})
			unlock, err := tc.lock(r, ctx, name)
			if err == nil {
				_ = unlock()
				t.Fatalf("the lock was taken after %d attempts with its context cancelled at the third", attempts.Load())
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if n := attempts.Load(); n > 4 {
				t.Errorf("%d attempts, want at most 4 once the context was cancelled at the third", n)
			}
		})
	}
}
