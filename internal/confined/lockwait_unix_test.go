//go:build unix

package confined_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestLockWaitNotice: a lock taken while another holder keeps it calls the
// context's notice once, with the lock's path, after LockWaitNotice, and
// still takes the lock when it is released; a lock that is free calls it
// never. Every kind of lock: Lock, LockHeld and LockDirs. (Waits of a
// second: the notice's delay.)
func TestLockWaitNotice(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	r := open(t, root)
	dir := filepath.Join(root, ".foundry", "memory")
	tests := []struct {
		name string
		path string // the path the notice names
		take func(context.Context) (func() error, error)
	}{
		{"Lock", filepath.Join(root, ".foundry", "a.lock"), func(ctx context.Context) (func() error, error) {
			return r.Lock(ctx, ".foundry/a.lock")
		}},
		// LockHeld's holders in one process take turns on a semaphore
		// before the flock: the holder here is another Root, as another
		// process would be.
		{"LockHeld", filepath.Join(root, ".foundry", "b.lock"), func(ctx context.Context) (func() error, error) {
			return open(t, root).LockHeld(ctx, ".foundry/b.lock")
		}},
		{"LockDirs", dir, func(ctx context.Context) (func() error, error) {
			return confined.LockDirs(ctx, dir)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			noticed := make(chan string, 4)
			ctx := confined.WithLockWait(context.Background(), func(path string) {
				calls.Add(1)
				noticed <- path
			})
			release, err := tt.take(ctx) // free: no notice
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			got := make(chan error, 1)
			go func() {
				again, err := tt.take(ctx)
				if err == nil {
					err = again()
				}
				got <- err
			}()
			select {
			case p := <-noticed:
				if p != tt.path {
					t.Errorf("notice names %q, want %q", p, tt.path)
				}
				if waited := time.Since(start); waited < confined.LockWaitNotice {
					t.Errorf("notice after %v, want it after %v", waited, confined.LockWaitNotice)
				}
			case err := <-got:
				t.Fatalf("the second taker did not wait: %v", err)
			case <-time.After(time.Minute):
				t.Fatal("no notice after a minute of waiting")
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if err := <-got; err != nil {
				t.Fatalf("the second taker, once the lock was free: %v", err)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("notice called %d times, want once", n)
			}
		})
	}
}
