// This file defines how a command opens the file a flag names
// (--data-file, --body-file), in the words validate uses for the files it
// is given.

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/foundryhq/foundry/artifacts"
)

// openFlagFile opens the file a flag names, for reading: shown is the name
// as typed, which errors give, and osPath that name resolved against -C. A
// missing file is [artifacts.ErrNotFound] and a folder
// [artifacts.ErrFolder], as validate reports them; a pipe is opened, so
// that --data-file <(…) reads what the process writes.
func openFlagFile(shown, osPath string) (*os.File, error) {
	f, err := os.Open(osPath)
	if err != nil {
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			err = artifacts.ErrNotFound
		case errors.As(err, &pe):
			err = pe.Err // the name is shown as typed, not as resolved
		}
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	// A folder opens: it is refused here, before its read fails with
	// the system's "is a directory".
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", shown, artifacts.ErrFolder)
	}
	return f, nil
}
