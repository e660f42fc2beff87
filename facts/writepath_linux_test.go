//go:build linux

package facts

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestWriteReadsNoOtherFact checks that a write into a warm, watched store
// costs nothing in proportion to the facts: it lists no folder and opens
// no fact file but the ones it writes. The kernel says so through inotify,
// so nothing in the store is instrumented: a listing of the memory folder
// is an IN_ACCESS event on the folder itself, opening a file an IN_OPEN
// event naming it.
func TestWriteReadsNoOtherFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n, writes = 3000, 5
	root := writeTree(t, genFacts(t, n))
	s := OpenDir(root, Options{Now: fixedNow, Watch: true})
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Search(ctx, Query{Text: "warm up"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Index(ctx); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, filepath.Join(root, filepath.FromSlash(Dir)), unix.IN_ACCESS|unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	var written []string
	for i := range writes {
		res, err := s.Write(ctx, benchWrite(i))
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, filepath.Base(res.Path))
	}
	listings, opened := 0, map[string]int{}
	buf := make([]byte, 1<<16)
	for {
		m, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EAGAIN) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= m; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case name == "" && ev.Mask&unix.IN_ACCESS != 0:
				listings++
			case name != "" && ev.Mask&unix.IN_OPEN != 0:
				opened[name]++
			}
		}
	}
	if listings > 0 {
		t.Errorf("%d writes into %d facts listed the memory folder %d times", writes, n, listings)
	}
	for name := range opened {
		switch {
		case name == ".lock", isTempFile(name):
		case strings.HasPrefix(name, "fact-") && !slices.Contains(written, name):
			t.Errorf("%d writes into %d facts opened %s, a fact they did not write", writes, n, name)
		}
	}
}
