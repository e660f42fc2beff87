package artifacts

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound means the file to validate does not exist (or is a
	// dangling link).
	ErrNotFound = errors.New("no such file")
	// ErrFolder means the name to validate is a folder.
	ErrFolder = errors.New("is a folder, not a file")
	// ErrNotRegular means the file is a device, a pipe or a socket, which
	// could block the read or never end it.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrEmpty means the file is empty: no JSON document.
	ErrEmpty = errors.New("file is empty, not a JSON document")
	// ErrTooLarge means the file is over [MaxBytes]; a *[TooLargeError]
	// carries its size.
	ErrTooLarge = errors.New("over the 8 MiB limit")
)

// TooLargeError reports a file over [MaxBytes]; it is [ErrTooLarge].
type TooLargeError struct {
	Size int64 // bytes, or -1 when the file grew past the limit while read
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return "file is over the 8 MiB limit; not read"
	}
	return fmt.Sprintf("file is %d bytes, over the 8 MiB limit; not read", e.Size)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }
