//go:build unix

package main

import (
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// statAll lists dir and lstats each of its files relative to the folder's
// descriptor, one fstatat each, on as many goroutines as processors (at
// most 4), as Foundry's listing does; it returns the names, sorted.
func statAll(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
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
		return nil, err
	}
	return names, nil
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
