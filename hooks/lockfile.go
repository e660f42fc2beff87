// This file defines the lock file installs and uninstalls take turns on
// where the folders themselves cannot be locked (see lockFolders).

package hooks

import (
	"context"
	"fmt"

	"github.com/foundryhq/foundry/internal/confined"
)

// hooksLock is the file, in the repository's common git folder, whose
// lock the installs and uninstalls of the repository take turns on where a
// folder cannot be locked: outside unix (LockFileEx locks byte ranges of a
// file, and a directory handle has none) and on a file system that cannot
// flock a folder (NFS). There this file is created, once, and kept; it is
// in the git folder, never part of the working tree. A hooks folder
// shared by several repositories (an absolute core.hooksPath) is not
// covered then: their installs can still overlap there.
const hooksLock = "foundry-hooks.lock"

// lockWithFile takes the lock of [hooksLock] in common, waiting while
// another install or uninstall of the repository holds it (until ctx is
// done), and returns the function that releases it.
func lockWithFile(ctx context.Context, common string) (unlock func(), err error) {
	root, err := confined.Open(common)
	if err != nil {
		return nil, err
	}
	release, err := root.Lock(ctx, hooksLock)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", common, err)
	}
	return func() {
		_ = release()
		_ = root.Close()
	}, nil
}
