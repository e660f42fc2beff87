package confined

// This file defines the bounded append-only logs under .foundry/metrics/.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"
	"time"
)

// Append adds data (one or more whole lines) to the log file name, creating
// it and its folder's last component when needed (never .foundry itself),
// following no symbolic link. A log is capped at max bytes: an append that
// would pass the cap first rewrites the file with only its newest half, cut
// at a line boundary, so the oldest lines are dropped first. Appends from
// several processes are serialised by a lock file beside the log. Only that
// rewrite makes a temp file, so only it removes the stale ones a killed
// rewrite left: an append does not list the folder. The folder is held
// open between appends (see [Root.logFolder]), so an append walks no path
// but to check that the folder is still the one at its path.
func (r *Root) Append(ctx context.Context, name string, data []byte, max int64) error {
	if int64(len(data)) > max/2 {
		return fmt.Errorf("append to %s: %d bytes is over half the %s cap", name, len(data), FormatSize(max))
	}
	name, err := Clean(name)
	if err != nil {
		return err
	}
	dir, base := path.Dir(name), path.Base(name)
	logs, err := r.logFolder(dir)
	if err != nil {
		return err
	}
	unlock, err := logs.LockHeld(ctx, ".lock")
	if err != nil {
		return fmt.Errorf("append to %s: %w", name, err)
	}
	defer func() { _ = unlock() }()
	// The lock's check ran on another name: check the log itself again
	// now that nobody else appends.
	fi, err := logs.noFollowStat(base)
	if err != nil {
		return err
	}
	f, size, err := logs.appendFile(base, fi)
	if err != nil {
		return fmt.Errorf("append to %s: %w", name, err)
	}
	if size+int64(len(data)) > max {
		err := logs.compact(f, base, size, data, max)
		logs.dropAppend(base) // compact replaced the file
		return err
	}
	if _, err := f.Write(data); err != nil {
		// A short write (a full disk) left part of a line, which the next
		// append would run into its own: cut back to the whole lines the
		// log held under the lock.
		_ = f.Truncate(size)
		logs.dropAppend(base)
		return fmt.Errorf("append to %s: %w", name, err)
	}
	return nil
}

// appendFile returns the log base of a log folder open for appending, and
// its size; fi is its lstat, taken under the folder's lock (nil when it
// does not exist). The descriptor stays open between appends while the
// file at the name is the one open, so an append opens nothing; fi, taken
// under the lock, gives its size.
func (r *Root) appendFile(base string, fi fs.FileInfo) (*os.File, int64, error) {
	r.heldMu.Lock()
	defer r.heldMu.Unlock()
	if h := r.appends[base]; h != nil {
		if fi != nil && os.SameFile(fi, h.fi) {
			return h.f, fi.Size(), nil
		}
		_ = h.f.Close()
		delete(r.appends, base)
	}
	h, err := r.openHeld(base, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, 0, err
	}
	if !h.fi.Mode().IsRegular() {
		h.f.Close()
		return nil, 0, errors.New("not a regular file")
	}
	if r.appends == nil {
		r.appends = map[string]*heldFile{}
	}
	r.appends[base] = h
	return h.f, h.fi.Size(), nil
}

// dropAppend closes the log base held open, once replaced or failed.
func (r *Root) dropAppend(base string) {
	r.heldMu.Lock()
	defer r.heldMu.Unlock()
	if h := r.appends[base]; h != nil {
		_ = h.f.Close()
		delete(r.appends, base)
	}
}

// logFolder returns the folder dir of logs, created when missing (its last
// component only, never .foundry itself), through no symbolic link, and
// held open from then on; opened again when its path no longer leads to it.
func (r *Root) logFolder(dir string) (*WriteFolder, error) {
	r.logsMu.Lock()
	defer r.logsMu.Unlock()
	if f := r.logs[dir]; f != nil && f.Current() {
		return f, nil
	}
	if err := r.NoFollow(dir); err != nil {
		return nil, err
	}
	if err := r.r.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create %s: %w", r.shown(dir), err)
	}
	f, err := r.OpenWriteFolder(dir)
	if err != nil {
		return nil, err
	}
	// A folder replaced is not closed here: an append may still use it,
	// and its descriptor is released when it is garbage collected.
	if r.logs == nil {
		r.logs = map[string]*WriteFolder{}
	}
	r.logs[dir] = f
	return f, nil
}

// compact rewrites the log with its newest max/2 bytes (from the first whole
// line among them) followed by data.
func (r *Root) compact(f *os.File, name string, size int64, data []byte, max int64) error {
	keep := max / 2
	if keep > size {
		keep = size
	}
	r.RemoveStale(path.Dir(name), time.Now().Add(-StaleAge))
	tail := make([]byte, keep)
	if _, err := f.ReadAt(tail, size-keep); err != nil && err != io.EOF {
		return fmt.Errorf("append to %s: %w", r.shown(name), err)
	}
	if keep < size {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		} else {
			tail = nil
		}
	}
	if err := r.WriteFile(name, append(tail, data...), 0o644); err != nil {
		return fmt.Errorf("append to %s: %w", r.shown(name), err)
	}
	return nil
}

// LogWriter returns an io.Writer whose every Write is one [Root.Append] to
// name under the cap max, for loggers that take a writer (the audit log).
func (r *Root) LogWriter(name string, max int64) io.Writer {
	return &logWriter{r: r, name: name, max: max}
}

type logWriter struct {
	mu   sync.Mutex
	r    *Root
	name string
	max  int64
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.r.Append(context.Background(), w.name, p, w.max); err != nil {
		return 0, err
	}
	return len(p), nil
}
