//go:build unix

package hooks

import (
	"context"
	"errors"

	"github.com/foundryhq/foundry/internal/confined"
)

// lockFolders takes an exclusive flock(2) on the folders themselves: the
// repository's common git folder and the hooks folder (none when hooks is
// ""), in one fixed order and once when they are the same folder
// ([confined.LockDirs]), so no file is created for the lock and no two
// installs deadlock. Every repository whose hooks folder it is (a
// core.hooksPath shared by several) locks the same folder.
func lockFolders(ctx context.Context, common, hooks string) (unlock func(), err error) {
	dirs := []string{common}
	if hooks != "" {
		dirs = append(dirs, hooks)
	}
	release, err := confined.LockDirs(ctx, dirs...)
	if errors.Is(err, errors.ErrUnsupported) {
		// A file system that cannot flock a folder (NFS): the lock file
		// of the other systems, which does not cover a shared hooks
		// folder ([hooksLock]).
		return lockWithFile(ctx, common)
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = release() }, nil
}
