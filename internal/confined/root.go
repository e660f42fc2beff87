package confined

// This file defines Root: confined, no-follow writes and locks.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/foundryhq/foundry/internal/pause"
)

// TempPrefix starts the name of every temporary file a write creates, so
// readers can skip them and the next lock holder can remove stale ones.
const TempPrefix = ".foundry-tmp-"

// StaleAge is how old a temp file must be before the next writer holding
// the folder's lock removes it: a live writer finishes in far less, so an
// older one was left by a writer that was killed.
const StaleAge = time.Hour

var (
	// ErrSymlink marks a write whose path goes through a symbolic link.
	ErrSymlink = errors.New("is a symbolic link")
	// ErrOutside marks a path that leaves the folder holding .foundry/.
	ErrOutside = errors.New("leads outside the project")
	// ErrTooLarge marks a file over its size limit (see [LimitFor]).
	ErrTooLarge = errors.New("file too large")
	// ErrNotDir marks a path component that must be a folder but is not.
	ErrNotDir = errors.New("is not a folder")
)

// Root is a project's folder, the one holding .foundry/. Every path given
// to its methods is a slash path relative to it. It is safe for concurrent
// use.
type Root struct {
	dir   string
	r     *os.Root
	under string // the root's path under the project's, in messages; "" for the project's

	logsMu sync.Mutex
	logs   map[string]*WriteFolder // the folders of logs, held open by Append

	heldMu  sync.Mutex
	locks   map[string]*heldLock // lock files held open by LockHeld
	appends map[string]*heldFile // logs held open by Append, under their folder's lock

	held *os.File // the folder itself, held by a WriteFolder (see holdFD); nil otherwise
	fd   int      // held's descriptor

	self fs.FileInfo // the folder's identity, for a .foundry that leads back to it (see at)
}

// shown is name as messages show it: relative to the project's root.
func (r *Root) shown(name string) string { return path.Join(r.under, name) }

// Open opens the folder dir as a Root.
func Open(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open project folder: %w", err)
	}
	self, err := r.Stat(".")
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open project folder: %w", err)
	}
	return &Root{dir: dir, r: r, self: self}, nil
}

// Dir returns the folder's path as given to Open.
func (r *Root) Dir() string { return r.dir }

// Close releases the folder's descriptor, and those of the folders of logs
// it holds open.
func (r *Root) Close() error {
	r.logsMu.Lock()
	for dir, f := range r.logs {
		_ = f.Close()
		delete(r.logs, dir)
	}
	r.logsMu.Unlock()
	r.heldMu.Lock()
	for _, l := range r.locks {
		if l.h != nil {
			_ = l.h.f.Close()
		}
	}
	for _, f := range r.appends {
		_ = f.f.Close()
	}
	r.locks, r.appends = nil, nil
	r.heldMu.Unlock()
	if r.held != nil {
		_ = r.held.Close()
	}
	return r.r.Close()
}

// FS returns the files under the root for reading: a symbolic link is
// followed only to a target inside the root, and every file is held to its
// size limit (see [Bounded]).
func (r *Root) FS() fs.FS { return boundedFS{fsys: projectFS{r}, root: r} }

// Path returns the OS path of name, for messages and for tools that need
// one; opening it bypasses the root's checks.
func (r *Root) Path(name string) string { return filepath.Join(r.dir, filepath.FromSlash(name)) }

// Clean resolves name, a path a client gave relative to the root (slash or
// OS separators), to a clean slash path inside the root, or refuses it with
// an error wrapping [ErrOutside] (absolute paths, "..", a volume name) or
// fs.ErrInvalid (an empty name or a NUL byte). Nothing is opened.
func Clean(name string) (string, error) { return clean(name, name) }

// clean is [Clean] of name, whose errors name shown: the path as the
// client gave it.
func clean(shown, name string) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return "", &fs.PathError{Op: "resolve", Path: shown, Err: fs.ErrInvalid}
	}
	slash := strings.ReplaceAll(name, `\`, "/")
	if path.IsAbs(slash) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" || (len(slash) > 1 && slash[1] == ':') {
		return "", fmt.Errorf("%s %w", shown, ErrOutside)
	}
	c := path.Clean(slash)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%s %w", shown, ErrOutside)
	}
	if !fs.ValidPath(c) { // invalid UTF-8
		return "", &fs.PathError{Op: "resolve", Path: shown, Err: fs.ErrInvalid}
	}
	return c, nil
}

// Rel is [Clean] for a name that may also be an absolute path inside dir,
// the folder holding .foundry/: it returns the slash path relative to dir,
// or refuses a name outside it with an error wrapping [ErrOutside].
func Rel(dir, name string) (string, error) {
	if filepath.IsAbs(name) {
		rel, err := filepath.Rel(dir, name)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%s %w", name, ErrOutside)
		}
		return clean(name, rel)
	}
	return Clean(name)
}

// Lstat describes the file name itself, a symbolic link included, without
// following a link in any component.
func (r *Root) Lstat(name string) (fs.FileInfo, error) {
	if err := r.noFollowDir(name); err != nil {
		return nil, err
	}
	return r.r.Lstat(name)
}

// NoFollow returns an error naming the first component of name (every
// component, .foundry included, the last one too) that is a symbolic link or
// not a folder where one is needed. Components that do not exist yet are
// fine: a write creates them.
func (r *Root) NoFollow(name string) error {
	_, err := r.noFollowStat(name)
	return err
}

// noFollowStat is [Root.NoFollow] that also returns the lstat of name's
// last component, which its walk ends with: nil when name is "." or a
// component does not exist.
func (r *Root) noFollowStat(name string) (fs.FileInfo, error) {
	name, err := Clean(name)
	if err != nil {
		return nil, err
	}
	if name == "." {
		return nil, nil
	}
	parts := strings.Split(name, "/")
	var fi fs.FileInfo
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err = r.r.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", r.shown(p), err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("refuse to write through %s: %w", r.shown(p), ErrSymlink)
		case i < len(parts)-1 && !fi.IsDir():
			return nil, fmt.Errorf("refuse to write through %s: %w", r.shown(p), ErrNotDir)
		}
	}
	return fi, nil
}

// noFollowDir is [Root.NoFollow] of name's folder, for an operation on
// name itself, a link included; a name that leaves the root is refused
// whole, named as given.
func (r *Root) noFollowDir(name string) error {
	c, err := Clean(name)
	if err != nil {
		return err
	}
	return r.NoFollow(path.Dir(c))
}

// MkdirAll creates the folder name and its missing parents, following no
// symbolic link.
func (r *Root) MkdirAll(name string) error {
	if err := r.NoFollow(name); err != nil {
		return err
	}
	if err := r.r.MkdirAll(name, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", r.shown(name), err)
	}
	return nil
}

// WriteFile writes data to name atomically with permission perm: a temp
// file beside it, synced, then renamed over it. The folder must exist; no
// component of name may be a symbolic link. The test pause point
// "atomicfile.after-temp" stops between the complete temp file and the
// rename.
func (r *Root) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return r.WriteFileFunc(name, perm, writeData(data))
}

// Rewrite is [Root.WriteFile] keeping the permissions of the file it
// replaces: a file Foundry rewrites keeps the mode its owner gave it. perm
// applies when name is no regular file (missing, or a link, which the write
// refuses). The mode is read without following a link.
func (r *Root) Rewrite(name string, data []byte, perm fs.FileMode) error {
	if fi, err := r.Lstat(name); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	return r.WriteFile(name, data, perm)
}

// WriteFileFunc is [Root.WriteFile] of the bytes write writes, which need
// not all be in memory at once: a large derived file (the search cache) is
// encoded straight into the temp file. When write fails, nothing is
// published and its error is returned, wrapped.
func (r *Root) WriteFileFunc(name string, perm fs.FileMode, write func(io.Writer) error) error {
	if err := r.publish(name, write, perm, false); err != nil {
		return err
	}
	r.syncDir(folderOf(name))
	return nil
}

// writeData is the write function of a file's whole content.
func writeData(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// WriteFileDeferSync is [Root.WriteFile] but for the last step: the file's
// content is synced and renamed into place, but the rename is durable only
// once the caller calls [Root.SyncDir] on the file's folder. A change that
// writes several files of one folder syncs the folder once, after the
// last rename: syncing a folder makes every rename into it durable.
// Until then a crash may keep any subset of the renames, so the caller
// syncs before it reports the change done.
func (r *Root) WriteFileDeferSync(name string, data []byte, perm fs.FileMode) error {
	return r.publish(name, writeData(data), perm, false)
}

// SyncDir makes the renames into the folder dir durable (see
// [Root.WriteFileDeferSync]); failure is harmless on systems that cannot
// fsync a folder.
func (r *Root) SyncDir(dir string) { r.syncDir(dir) }

// WriteNew is WriteFile unless name exists, in which case it returns an
// error wrapping fs.ErrExist and changes nothing: the temp file is
// hard-linked to name, and link(2) never replaces a file, so of two
// concurrent callers exactly one wins.
func (r *Root) WriteNew(name string, data []byte, perm fs.FileMode) error {
	err := r.publish(name, writeData(data), perm, true)
	var le *os.LinkError
	if errors.As(err, &le) && os.IsExist(le.Err) {
		return fmt.Errorf("write %s: %w", r.shown(name), fs.ErrExist)
	}
	if err == nil {
		r.syncDir(folderOf(name))
	}
	return err
}

// folderOf is the folder of a name publish accepted.
func folderOf(name string) string {
	name, _ = Clean(name)
	return path.Dir(name)
}

// Staged is a file written beside its name and synced, not yet in place
// (see [Root.Stage]).
type Staged struct {
	r         *Root
	name, tmp string
	done      bool
}

// Stage is [Root.WriteFileDeferSync] up to the rename: data is written to
// a temp file beside name and synced, and [Staged.Commit] renames it into
// place. A change that writes several files stages them together with
// [Root.StageAll], then puts them in place in its own order. The caller
// commits or discards what it staged.
func (r *Root) Stage(name string, data []byte, perm fs.FileMode) (*Staged, error) {
	staged, err := r.StageAll(File{Name: name, Data: data, Perm: perm})
	if err != nil {
		return nil, err
	}
	return staged[0], nil
}

// File is one file of a change that writes several (see [Root.StageAll]).
type File struct {
	Name string
	Data []byte
	Perm fs.FileMode
}

// StageAll is [Root.Stage] for the files of one change at once: each is
// written to a temp file beside its name, then the write-back of all of
// them is started together, and only then is each synced. A file system
// with a journal allocates their blocks in one transaction, which the
// first sync commits for all: the next find their work done, where syncs
// started one after the other, or side by side, would each wait for a
// commit of its own. Nothing is staged unless all are; the caller commits
// or discards each one staged.
func (r *Root) StageAll(files ...File) (staged []*Staged, err error) {
	temps := make([]*tempFile, 0, len(files))
	defer func() {
		if err != nil { // none staged: every temp file goes, synced or not
			for _, t := range temps {
				t.discard()
			}
		}
	}()
	for _, f := range files {
		if err := r.NoFollow(f.Name); err != nil {
			return nil, err
		}
		name, _ := Clean(f.Name)
		t, err := r.createTemp(name, writeData(f.Data), f.Perm)
		if err != nil {
			return nil, err
		}
		temps = append(temps, t)
	}
	if len(temps) > 1 {
		for _, t := range temps {
			startWriteBack(t.f)
		}
	}
	for _, t := range temps {
		if err := t.sync(); err != nil {
			return nil, err
		}
		staged = append(staged, &Staged{r: r, name: t.name, tmp: t.tmp})
	}
	return staged, nil
}

// Commit renames the staged file into place, replacing the file there; the
// rename is durable once the folder is synced ([Root.SyncDir]). On failure
// the temp file is removed.
func (s *Staged) Commit() error {
	if s.done {
		return fmt.Errorf("write %s: already committed or discarded", s.r.shown(s.name))
	}
	s.done = true
	pause.Point(context.Background(), "atomicfile.after-temp")
	if err := s.r.rename(s.tmp, s.name); err != nil {
		_ = s.r.r.Remove(s.tmp)
		return fmt.Errorf("write %s: %w", s.r.shown(s.name), err)
	}
	return nil
}

// Temp returns the name of the staged temp file, relative to its folder.
func (s *Staged) Temp() string { return path.Base(s.tmp) }

// Discard removes the staged temp file, unless it was committed.
func (s *Staged) Discard() {
	if s == nil || s.done {
		return
	}
	s.done = true
	_ = s.r.r.Remove(s.tmp)
}

// publish writes a temp file beside name with write, syncs it, and
// renames it to name, or with link hard-links it there and removes it.
func (r *Root) publish(name string, write func(io.Writer) error, perm fs.FileMode, link bool) error {
	if err := r.NoFollow(name); err != nil {
		return err
	}
	name, _ = Clean(name)
	tmp, err := r.writeTemp(name, write, perm)
	if err != nil {
		return err
	}
	pause.Point(context.Background(), "atomicfile.after-temp")
	if link {
		err = r.r.Link(tmp, name)
		_ = r.r.Remove(tmp) // linked or not, the temp file must go
	} else if err = r.rename(tmp, name); err != nil {
		_ = r.r.Remove(tmp)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", r.shown(name), err)
	}
	return nil
}

// writeTemp writes a temp file beside name, a clean name NoFollow
// accepted, with write and perm, syncs it and returns its name; on failure
// it leaves none.
func (r *Root) writeTemp(name string, write func(io.Writer) error, perm fs.FileMode) (string, error) {
	t, err := r.createTemp(name, write, perm)
	if err != nil {
		return "", err
	}
	return t.tmp, t.sync()
}

// tempFile is a temp file createTemp wrote, open until sync.
type tempFile struct {
	r         *Root
	f         *os.File
	name, tmp string
}

// createTemp writes a temp file beside name, a clean name NoFollow
// accepted, with write and perm, and leaves it open for sync; on failure
// it leaves none.
func (r *Root) createTemp(name string, write func(io.Writer) error, perm fs.FileMode) (*tempFile, error) {
	dir, base := path.Split(name)
	tmp := dir + TempPrefix + base + "-" + randomSuffix()
	f, err := r.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", r.shown(name), err)
	}
	err = write(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err != nil {
		_ = f.Close()
		_ = r.r.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", r.shown(name), err)
	}
	return &tempFile{r: r, f: f, name: name, tmp: tmp}, nil
}

// sync syncs and closes the temp file; on failure it removes it.
func (t *tempFile) sync() error {
	err := t.f.Sync()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = t.r.r.Remove(t.tmp)
		return fmt.Errorf("write %s: %w", t.r.shown(t.name), err)
	}
	return nil
}

// discard closes and removes the temp file (closing it again when sync
// closed it already does no harm).
func (t *tempFile) discard() {
	_ = t.f.Close()
	_ = t.r.r.Remove(t.tmp)
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// syncDir makes a rename durable; failure is harmless on systems that cannot
// fsync a directory.
func (r *Root) syncDir(dir string) {
	if dir == "" {
		dir = "."
	}
	if dir == "." && r.syncHeld() {
		return
	}
	d, err := r.r.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Remove removes the file name (a symbolic link itself, never its target).
func (r *Root) Remove(name string) error {
	if err := r.noFollowDir(name); err != nil {
		return err
	}
	return r.r.Remove(name)
}

// Link makes newname a hard link to oldname (to a symbolic link itself,
// never its target), following no symbolic link in either path's folders.
// Unlike [Root.Rename] it never replaces newname: when newname exists it
// fails with an error matching fs.ErrExist, so of two processes moving a
// file to the same free name, one wins and nothing is lost.
func (r *Root) Link(oldname, newname string) error {
	if err := r.NoFollow(newname); err != nil {
		return err
	}
	if err := r.noFollowDir(oldname); err != nil {
		return err
	}
	return r.r.Link(oldname, newname)
}

// Rename moves oldname to newname, following no symbolic link in either
// path's folders.
func (r *Root) Rename(oldname, newname string) error {
	if err := r.NoFollow(newname); err != nil {
		return err
	}
	if err := r.noFollowDir(oldname); err != nil {
		return err
	}
	return r.r.Rename(oldname, newname)
}

// Lock takes an exclusive cross-process lock on the file name (created if
// needed, through the root, never through a symbolic link) and returns the
// function that releases it. The lock is flock(2) on that descriptor: the
// kernel drops it when the holder dies, so a killed writer never leaves a
// stale lock. Lock gives up when ctx is done. Once held, temp files older
// than [StaleAge] in the lock file's folder, left by killed writers, are
// removed.
func (r *Root) Lock(ctx context.Context, name string) (unlock func() error, err error) {
	return r.LockClearing(ctx, name, time.Now().Add(-StaleAge))
}

// LockClearing is [Root.Lock] for a folder whose temp files are written
// only under this lock: once held, it removes the temp files of the lock
// file's folder last modified before the time before (time.Now() for every
// one), so the folder is listed once per lock. A zero before removes
// nothing and lists nothing: a holder that cleared the folder recently
// spares a large folder's listing.
func (r *Root) LockClearing(ctx context.Context, name string, before time.Time) (unlock func() error, err error) {
	h, err := r.flockHeld(ctx, name, nil)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", r.shown(name), err)
	}
	f := h.f
	if !before.IsZero() {
		r.RemoveStale(path.Dir(name), before)
	}
	return func() error {
		uerr := unlockFile(f)
		if cerr := f.Close(); uerr == nil {
			uerr = cerr
		}
		return uerr
	}, nil
}

// heldLock is a lock file [Root.LockHeld] keeps open: sem lets one holder
// of this process at a time use its descriptor, since flock(2) excludes
// descriptions, not goroutines sharing one.
type heldLock struct {
	sem chan struct{}
	h   *heldFile // nil until first opened, and once found replaced
}

// heldFile is a file kept open with its identity, to tell it is still the
// file at its name.
type heldFile struct {
	f  *os.File
	fi fs.FileInfo
}

// openHeld opens name with flag, creating it if need be, and returns it
// with its identity.
func (r *Root) openHeld(name string, flag int) (*heldFile, error) {
	f, err := r.openFile(name, flag|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &heldFile{f: f, fi: fi}, nil
}

// LockHeld is [Root.LockClearing] with a zero time (it removes no temp
// file) for a process that takes the same lock again and again: the lock
// file stays open between holds, so a hold costs the check that the file
// at the name is still the one open, and the flock(2) calls. Holders in
// this process take turns (giving up when ctx is done) before the flock,
// which excludes other processes; a lock file removed or replaced is found
// so once flocked (see [Root.lockAt]) and opened again.
func (r *Root) LockHeld(ctx context.Context, name string) (unlock func() error, err error) {
	name, err = Clean(name)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", r.shown(name), err)
	}
	r.heldMu.Lock()
	l := r.locks[name]
	if l == nil {
		l = &heldLock{sem: make(chan struct{}, 1)}
		if r.locks == nil {
			r.locks = map[string]*heldLock{}
		}
		r.locks[name] = l
	}
	r.heldMu.Unlock()
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("lock %s: %w", r.shown(name), ctx.Err())
	}
	if l.h, err = r.flockHeld(ctx, name, l.h); err != nil {
		<-l.sem
		return nil, fmt.Errorf("lock %s: %w", r.shown(name), err)
	}
	f := l.h.f
	var once sync.Once
	return func() (err error) {
		once.Do(func() {
			err = unlockFile(f)
			<-l.sem
		})
		return err
	}, nil
}

// flockHeld flocks the lock file at name: h, when it is open already, or
// the file opened there (through no symbolic link), opened again for as
// long as the name turns out to lead to another file once flocked (see
// lockAt). On failure h is closed and nil returned.
func (r *Root) flockHeld(ctx context.Context, name string, h *heldFile) (*heldFile, error) {
	for {
		if h == nil {
			if err := r.NoFollow(name); err != nil {
				return nil, err
			}
			var err error
			if h, err = r.openHeld(name, os.O_RDWR); err != nil {
				return nil, err
			}
		}
		locked, err := r.lockAt(ctx, name, h)
		if locked {
			return h, nil
		}
		_ = h.f.Close()
		h = nil
		if err != nil {
			return nil, err
		}
	}
}

// lockAt flocks the file h opened at name, and reports whether it is
// still the file at name once locked. The name may have been
// given to another file (removed and created again) while f was opened or
// waited for: a process opening the name now locks that other file, so
// holding f would exclude nobody. Then f is unlocked and the caller opens
// the name again — unless ctx is done: a flock that succeeds at once never
// looks at ctx, so a name given to another file on every attempt would
// keep the caller retrying without end.
func (r *Root) lockAt(ctx context.Context, name string, h *heldFile) (bool, error) {
	pause.Point(ctx, "confined.lock.before-flock")
	if err := lockFile(ctx, h.f); err != nil {
		return false, err
	}
	now, err := r.noFollowStat(name)
	if err == nil && now != nil && os.SameFile(now, h.fi) {
		return true, nil
	}
	_ = unlockFile(h.f)
	if err == nil {
		err = ctx.Err()
	}
	return false, err
}

// StaleTemps lists the temp files in dir last modified before the time
// before, as slash paths under the root.
func (r *Root) StaleTemps(dir string, before time.Time) []string {
	// Names only: a folder of ten thousand facts holds few temp files, and
	// only those are worth a stat.
	d, err := r.OpenDir(dir)
	if err != nil {
		return nil
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil
	}
	// The temp names are picked out before sorting: sorting the whole
	// folder's names would cost more than listing it.
	temps := names[:0]
	for _, name := range names {
		if strings.HasPrefix(name, TempPrefix) {
			temps = append(temps, name)
		}
	}
	sort.Strings(temps)
	var out []string
	for _, name := range temps {
		p := path.Join(dir, name)
		fi, err := projectFS{r}.Lstat(p)
		if err == nil && !fi.IsDir() && fi.ModTime().Before(before) {
			out = append(out, p)
		}
	}
	return out
}

// RemoveStale removes the temp files of dir last modified before the time
// before (see [Root.StaleTemps]). The caller holds the folder's lock, or
// before is old enough ([StaleAge]) that no live writer owns them.
func (r *Root) RemoveStale(dir string, before time.Time) {
	if r.NoFollow(dir) != nil {
		return
	}
	for _, p := range r.StaleTemps(dir, before) {
		_ = r.r.Remove(p)
	}
}

// OpenFS returns [Root.FS] of the folder dir, for callers that only read.
// When dir cannot be opened, every operation of the result fails with that
// error.
func OpenFS(dir string) fs.FS {
	r, err := Open(dir)
	if err != nil {
		return errFS{err}
	}
	return r.FS()
}

type errFS struct{ err error }

func (e errFS) Open(string) (fs.File, error) { return nil, e.err }
