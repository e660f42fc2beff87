// Package atomicfile writes files atomically (temp file in the same folder,
// fsync, rename) and takes cross-process exclusive locks. Every write Foundry
// makes under .foundry/ goes through it, so a reader never sees a partial file
// and a killed writer never leaves one.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/foundryhq/foundry/internal/pause"
)

// TempPrefix starts the name of every temporary file this package creates, so
// readers can skip them and tests can spot them.
const TempPrefix = ".foundry-tmp-"

// WriteFile writes data to path atomically with permission perm. The folder
// must exist. The test pause point "atomicfile.after-temp" stops between the
// complete temp file and the rename.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return publish(path, data, perm, os.Rename)
}

// WriteNew writes data to path atomically unless path exists, in which case
// it returns an error wrapping fs.ErrExist and changes nothing. The file
// appears complete or not at all: the content goes to a temp file that is
// then hard-linked to path, and link(2) never replaces an existing file, so
// of two concurrent callers exactly one wins.
func WriteNew(path string, data []byte, perm fs.FileMode) error {
	err := publish(path, data, perm, os.Link)
	var le *os.LinkError
	if errors.As(err, &le) && os.IsExist(le.Err) {
		return fmt.Errorf("write %s: %w", path, fs.ErrExist)
	}
	return err
}

// publish writes data to a complete, synced temp file beside path, then
// moves it into place with place (rename to replace, link to create only).
// The temp file never outlives the call.
func publish(path string, data []byte, perm fs.FileMode, place func(oldpath, newpath string) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, TempPrefix+base+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a rename it no longer exists; after a link it must go
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	pause.Point(context.Background(), "atomicfile.after-temp")
	if err := place(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// ErrSymlink marks a folder that a write would go through but that is a
// symbolic link, which could lead the write outside the project.
var ErrSymlink = errors.New("is a symbolic link")

// NoSymlinks returns an error wrapping [ErrSymlink] naming the first of the
// folders rels (slash paths under root) that is a symbolic link. Folders
// that do not exist yet are fine.
func NoSymlinks(root string, rels ...string) error {
	for _, rel := range rels {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %w", rel, ErrSymlink)
		}
	}
	return nil
}

// syncDir makes a rename durable; failure is harmless on systems that cannot
// fsync a directory.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Lock takes an exclusive cross-process lock on the file at path (created if
// needed) and returns the function that releases it. The lock is an advisory
// flock: the kernel drops it when the holder dies, so a killed writer never
// leaves a stale lock. Lock gives up when ctx is done.
func Lock(ctx context.Context, path string) (unlock func() error, err error) {
	l := flock.New(path)
	ok, err := l.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: not acquired", path)
	}
	return l.Unlock, nil
}
