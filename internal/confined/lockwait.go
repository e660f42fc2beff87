package confined

// This file defines the notice a lock wait gives: a lock held by a process
// that is stuck would otherwise hang the caller without a word.

import (
	"context"
	"path/filepath"
	"time"
)

// LockWaitNotice is how long a lock is waited for before the context's
// notice (see [WithLockWait]) is called: far longer than any holder of
// Foundry's locks holds one while it works (a write holds the memory lock
// for milliseconds), so a wait this long means a holder that is stuck or
// stopped.
const LockWaitNotice = time.Second

// lockWaitKey keys the notice of [WithLockWait] in a context.
type lockWaitKey struct{}

// WithLockWait returns ctx carrying notice: a lock taken with it (or with
// a context derived from it) that has waited [LockWaitNotice] for another
// holder calls notice once, with the lock file's or folder's path, and
// goes on waiting until the lock is free or the context is done. A command
// line says so on stderr, a server in its log.
func WithLockWait(ctx context.Context, notice func(path string)) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, notice)
}

// lockWait tells, once, that a lock on path has been waited for
// [LockWaitNotice] since it was first found held, when ctx carries a
// notice. A lock that is free costs it nothing.
type lockWait struct {
	ctx   context.Context
	path  string
	start time.Time // when the lock was first found held
	told  bool
}

func newLockWait(ctx context.Context, path string) *lockWait {
	return &lockWait{ctx: ctx, path: path}
}

// busy is called each time the lock was found held, by the one goroutine
// taking it.
func (w *lockWait) busy() {
	if w.told {
		return
	}
	now := time.Now()
	switch {
	case w.start.IsZero():
		w.start = now
		return
	case now.Sub(w.start) < LockWaitNotice:
		return
	}
	w.told = true
	if notice, ok := w.ctx.Value(lockWaitKey{}).(func(string)); ok && notice != nil {
		// Cleaned: a name os.Root joined on Windows has both separators.
		notice(filepath.Clean(w.path))
	}
}
