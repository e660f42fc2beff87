//go:build unix

package main

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// statNames lstats each of names in the open folder d relative to its
// descriptor, one fstatat each, on as many goroutines as processors (at
// most 4), as Foundry's listing does.
func statNames(d *os.File, names []string) error {
	fd := int(d.Fd())
	var next atomic.Int64
	var failed atomic.Value
	work := func() {
		var st unix.Stat_t
		for {
			i := int(next.Add(1)) - 1
			if i >= len(names) {
				return
			}
			if err := fstatat(fd, names[i], &st); err != nil {
				failed.Store(&os.PathError{Op: "fstatat", Path: names[i], Err: err})
			}
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 4) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	runtime.KeepAlive(d)
	if err, ok := failed.Load().(error); ok {
		return err
	}
	return nil
}

// fstatat is fstatat(2) with AT_SYMLINK_NOFOLLOW.
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
