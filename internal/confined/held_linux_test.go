//go:build linux

package confined_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// TestLockHeld checks that a lock kept open excludes the other holders of
// its process and other processes' descriptors, follows a lock file
// removed and created again, gives up when its context is done, and
// refuses a symbolic link.
func TestLockHeld(t *testing.T) {
	t.Parallel()
	root, secret := project(t)
	r := open(t, root)
	ctx := context.Background()
	lockPath := filepath.Join(root, ".foundry", "memory", ".lock")
	// othersCanLock reports whether another description of the file at
	// the path can take the lock now.
	othersCanLock := func() bool {
		t.Helper()
		f, err := os.OpenFile(lockPath, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			return true
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Fatal(err)
		}
		return false
	}

	var inside atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				unlock, err := r.LockHeld(ctx, ".foundry/memory/.lock")
				if err != nil {
					t.Error(err)
					return
				}
				if n := inside.Add(1); n != 1 {
					t.Errorf("%d holders at once", n)
				}
				inside.Add(-1)
				if err := unlock(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()

	for round := range 2 {
		unlock, err := r.LockHeld(ctx, ".foundry/memory/.lock")
		if err != nil {
			t.Fatal(err)
		}
		if othersCanLock() {
			t.Errorf("round %d: another description takes the lock while it is held", round)
		}
		short, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := r.LockHeld(short, ".foundry/memory/.lock"); !errors.Is(err, context.Canceled) {
			t.Errorf("round %d: a second holder with its context done: %v, want context.Canceled", round, err)
		}
		if err := unlock(); err != nil {
			t.Fatal(err)
		}
		if !othersCanLock() {
			t.Errorf("round %d: the lock is still held after unlock", round)
		}
		// The next round locks a lock file made anew.
		if err := os.Remove(lockPath); err != nil {
			t.Fatal(err)
		}
	}

	symlink(t, secret, filepath.Join(root, ".foundry", "link.lock"))
	if _, err := r.LockHeld(ctx, ".foundry/link.lock"); !errors.Is(err, confined.ErrSymlink) {
		t.Errorf("LockHeld through a symbolic link: %v, want ErrSymlink", err)
	}
}

// TestAppendHoldsItsFiles checks that appends keep the log and its lock
// file open between them, so that an append opens neither (the kernel
// counts the opens through inotify), and that a log replaced or removed
// behind them receives the next line all the same.
func TestAppendHoldsItsFiles(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	r := open(t, root)
	ctx := context.Background()
	dir := filepath.Join(root, ".foundry", "metrics")
	log := filepath.Join(dir, "events.jsonl")
	appendLine := func(line string) {
		t.Helper()
		if err := r.Append(ctx, ".foundry/metrics/events.jsonl", []byte(line+"\n"), confined.LogMax); err != nil {
			t.Fatal(err)
		}
	}
	appendLine("first")
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		appendLine("again")
	}
	if opened := inotifyOpens(t, fd); len(opened) > 0 {
		t.Errorf("10 appends opened %v", opened)
	}

	// Replaced, as another process's compaction does: the new file gets
	// the line.
	if err := os.WriteFile(log+".new", []byte("compacted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(log+".new", log); err != nil {
		t.Fatal(err)
	}
	appendLine("after the rename")
	if b, _ := os.ReadFile(log); string(b) != "compacted\nafter the rename\n" {
		t.Errorf("after a replacement the log holds %q", b)
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	appendLine("after the removal")
	if b, _ := os.ReadFile(log); string(b) != "after the removal\n" {
		t.Errorf("after a removal the log holds %q", b)
	}
}

// inotifyOpens returns the names of the IN_OPEN events pending on fd, by
// count.
func inotifyOpens(t *testing.T, fd int) map[string]int {
	t.Helper()
	opened := map[string]int{}
	confinedtest.InotifyEvents(t, fd, func(name string, mask uint32) {
		if name != "" && mask&unix.IN_OPEN != 0 {
			opened[name]++
		}
	})
	return opened
}
