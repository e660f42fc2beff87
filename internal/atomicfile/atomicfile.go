// Package atomicfile writes files outside a project's .foundry/ folder
// atomically (temp file in the same folder, fsync, rename) and takes
// cross-process exclusive locks: the hook scripts, git attributes and agent
// settings that commands install. It is [confined.Root] opened on the
// file's own folder, so a reader never sees a partial file and a killed
// writer never leaves one. Files under .foundry/ go through the project's
// [confined.Root] instead.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/foundryhq/foundry/internal/confined"
)

// TempPrefix starts the name of every temporary file this package creates, so
// readers can skip them and tests can spot them.
const TempPrefix = confined.TempPrefix

// ErrSymlink marks a write that would go through a symbolic link.
var ErrSymlink = confined.ErrSymlink

// WriteFile writes data to path atomically with permission perm. The folder
// must exist. The test pause point "atomicfile.after-temp" stops between the
// complete temp file and the rename.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return inFolder("write", path, func(r *confined.Root, base string) error {
		return r.WriteFile(base, data, perm)
	})
}

// Rewrite is [WriteFile] keeping the permissions of the file at path (see
// [confined.Root.Rewrite]); perm applies when there is no regular file
// there.
func Rewrite(path string, data []byte, perm fs.FileMode) error {
	return inFolder("write", path, func(r *confined.Root, base string) error {
		return r.Rewrite(base, data, perm)
	})
}

// Remove removes the file at path (a symbolic link itself, never its
// target), through a root on its folder.
func Remove(path string) error {
	return inFolder("remove", path, func(r *confined.Root, base string) error {
		if err := r.Remove(base); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return &fs.PathError{Op: "remove", Path: path, Err: err}
		}
		return nil
	})
}

// WriteNew writes data to path atomically unless path exists, in which case
// it returns an error wrapping fs.ErrExist and changes nothing.
func WriteNew(path string, data []byte, perm fs.FileMode) error {
	return inFolder("write", path, func(r *confined.Root, base string) error {
		return r.WriteNew(base, data, perm)
	})
}

// Lock takes an exclusive cross-process lock on the file at path (created if
// needed) and returns the function that releases it. The kernel drops the
// lock when the holder dies. Lock gives up when ctx is done.
func Lock(ctx context.Context, path string) (unlock func() error, err error) {
	r, base, err := open("lock", path)
	if err != nil {
		return nil, err
	}
	release, err := r.Lock(ctx, base)
	if err != nil {
		r.Close()
		return nil, err
	}
	return func() error {
		err := release()
		r.Close()
		return err
	}, nil
}

// inFolder calls fn with a root on path's folder and path's base name,
// and closes the root after.
func inFolder(op, path string, fn func(r *confined.Root, base string) error) error {
	r, base, err := open(op, path)
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r, base)
}

func open(op, path string) (*confined.Root, string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	r, err := confined.Open(dir)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", op, path, err)
	}
	return r, base, nil
}
