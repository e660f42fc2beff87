//go:build linux

package facts

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotifyWatcher reads inotify events from a non-blocking descriptor. It
// watches .foundry/memory for changes to its files and .foundry for the
// memory folder being removed, replaced or created, so that a recreated
// folder is watched again.
type inotifyWatcher struct {
	root string

	mu       sync.Mutex // guards fd against close from a cleanup
	fd       int
	parentWD int // watch on .foundry; -1 when absent
	memWD    int // watch on .foundry/memory; -1 when absent
	buf      []byte
}

const (
	parentMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	memMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
		unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
		unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	gone = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_IGNORED | unix.IN_UNMOUNT
	// entryEvents change which file a name leads to, not a file's content:
	// every other event of the memory folder's watch writes in place.
	entryEvents = unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE
)

// newWatcher opens an inotify instance for the project at root. It fails
// when the per-user instance limit is reached.
func newWatcher(root string) (watcher, error) {
	if root == "" {
		return nil, errors.New("no working tree")
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &inotifyWatcher{root: root, fd: fd, parentWD: -1, memWD: -1, buf: make([]byte, 64*1024)}, nil
}

// arm adds the watches not in place. A folder that does not exist yet is no
// error: the caller rescans until it does. added reports that a watch was
// missing, so events before it are unknown.
func (w *inotifyWatcher) arm() (armed, added bool, err error) {
	add := func(wd *int, rel string, mask uint32) error {
		if *wd >= 0 {
			return nil
		}
		added = true
		n, err := unix.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(rel)), mask)
		switch {
		case err == nil:
			*wd = n
		case errors.Is(err, unix.ENOENT):
		default:
			return fmt.Errorf("watch %s: %w", rel, err)
		}
		return nil
	}
	// The parent first: a memory folder created between the two calls is
	// then either watched or announced.
	if err := add(&w.parentWD, path.Dir(Dir), parentMask); err != nil {
		return false, added, err
	}
	if err := add(&w.memWD, Dir, memMask); err != nil {
		return false, added, err
	}
	return w.parentWD >= 0 && w.memWD >= 0, added, nil
}

func (w *inotifyWatcher) unwatch(wd *int) {
	if *wd >= 0 {
		_, _ = unix.InotifyRmWatch(w.fd, uint32(*wd))
		*wd = -1
	}
}

func (w *inotifyWatcher) drain() (paths []string, inPlace, temps map[string]bool, full bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return nil, nil, nil, false, errors.New("watcher closed")
	}
	seen := map[string]bool{}
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			break
		}
		if err != nil {
			return nil, nil, nil, false, fmt.Errorf("read inotify events: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			end := off + unix.SizeofInotifyEvent + int(ev.Len)
			if end > n {
				break
			}
			name := string(bytes.TrimRight(w.buf[off+unix.SizeofInotifyEvent:end], "\x00"))
			off = end
			wd := int(ev.Wd)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				full = true
			case wd == w.memWD && ev.Mask&gone != 0:
				w.unwatch(&w.memWD)
				full = true
			case wd == w.memWD && isTempFile(name):
				if temps == nil {
					temps = map[string]bool{}
				}
				temps[name] = ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) == 0
			case wd == w.memWD && isFactFile(name):
				p := path.Join(Dir, name)
				if !seen[name] {
					seen[name] = true
					paths = append(paths, p)
				}
				if ev.Mask&entryEvents == 0 {
					if inPlace == nil {
						inPlace = map[string]bool{}
					}
					inPlace[p] = true
				}
			case wd == w.parentWD && ev.Mask&gone != 0:
				// The parent moved or went: the memory watch may follow a
				// folder that is no longer the project's.
				w.unwatch(&w.parentWD)
				w.unwatch(&w.memWD)
				full = true
			case wd == w.parentWD && name == path.Base(Dir):
				w.unwatch(&w.memWD)
				full = true
			}
		}
	}
	armed, added, err := w.arm()
	if err != nil {
		return nil, nil, nil, false, err
	}
	if !armed || added {
		full = true
	}
	return paths, inPlace, temps, full, nil
}

func (w *inotifyWatcher) quiet() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 || w.parentWD < 0 || w.memWD < 0 {
		return false
	}
	// TIOCINQ is FIONREAD on Linux: the bytes of events queued.
	n, err := unix.IoctlGetInt(w.fd, unix.TIOCINQ)
	return err == nil && n == 0
}

func (w *inotifyWatcher) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return nil
	}
	err := unix.Close(w.fd)
	w.fd = -1
	return err
}
