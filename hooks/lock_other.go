//go:build !unix

package hooks

import "context"

// lockFolders takes the lock file of the repository's common git folder
// ([hooksLock]): a folder cannot be locked here. The hooks folder is not
// locked.
func lockFolders(ctx context.Context, common, _ string) (unlock func(), err error) {
	return lockWithFile(ctx, common)
}
