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
	unlock, err := logs.LockClearing(ctx, ".lock", time.Time{})
	if err != nil {
		return fmt.Errorf("append to %s: %w", name, err)
	}
	defer unlock()
	// The lock's NoFollow ran on another name: check the log itself again
	// now that nobody else appends.
	if err := logs.NoFollow(base); err != nil {
		return err
	}
	f, err := logs.openFile(base, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("append to %s: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("append to %s: %w", name, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("append to %s: not a regular file", name)
	}
	if fi.Size()+int64(len(data)) > max {
		return logs.compact(f, base, fi.Size(), data, max)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("append to %s: %w", name, err)
	}
	return nil
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
