//go:build !unix

package confined

import (
	"context"
	"errors"
	"fmt"
)

// LockDirs locks nothing outside unix: a folder cannot be locked there
// (LockFileEx locks byte ranges of a file). Callers keep a lock file
// instead ([Root.Lock]).
func LockDirs(ctx context.Context, paths ...string) (unlock func() error, err error) {
	return nil, fmt.Errorf("lock folders: %w", errors.ErrUnsupported)
}
