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
