package confinedtest

import (
	"bytes"
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// InotifyEvents reads the events pending on the non-blocking inotify
// descriptor fd and calls each with an event's name ("" for the watched
// folder itself) and mask.
func InotifyEvents(t testing.TB, fd int, each func(name string, mask uint32)) {
	t.Helper()
	buf := make([]byte, 1<<16)
	for {
		m, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EAGAIN) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= m; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			each(name, ev.Mask)
		}
	}
}

// WatchAccesses watches the folder dir for reads and returns the function
// that reports them since: how many times the folder was listed (an
// IN_ACCESS event on the folder itself) and how many times each file in it
// was opened (IN_OPEN events naming it). It skips the test where inotify
// is unavailable.
func WatchAccesses(t testing.TB, dir string) func() (listings int, opened map[string]int) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_ACCESS|unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	return func() (int, map[string]int) {
		listings, opened := 0, map[string]int{}
		InotifyEvents(t, fd, func(name string, mask uint32) {
			switch {
			case name == "" && mask&unix.IN_ACCESS != 0:
				listings++
			case name != "" && mask&unix.IN_OPEN != 0:
				opened[name]++
			}
		})
		return listings, opened
	}
}
