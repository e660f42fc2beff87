package git

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/foundryhq/foundry/internal/confined"
)

var (
	// ErrNotRepository means the folder is not inside a git repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrRevisionNotFound means a revision spec resolves to no commit.
	ErrRevisionNotFound = errors.New("revision not found")
	// ErrUnsupportedRevision means a revision spec uses syntax Foundry does
	// not read (a reflog date, :/message, ^{/text}, REV:path…); the error
	// wrapping it names the part.
	ErrUnsupportedRevision = errors.New("revision syntax not supported")
	// ErrNoCommits means the repository has no commit yet (an unborn HEAD).
	ErrNoCommits = errors.New("repository has no commits yet")
	// ErrPathNotFound means a path does not exist in the chosen view.
	ErrPathNotFound = errors.New("path not found")
	// ErrShallow means a shallow clone lacks the history a request needs.
	ErrShallow = errors.New("shallow clone lacks this history")
	// ErrIndexUnsupported means the git index holds something Foundry does
	// not read: a sparse index (index.sparse), a split index whose shared
	// file is missing or damaged, an index format newer than version 4, or
	// a damaged file. The error wrapping it says which.
	ErrIndexUnsupported = errors.New("git index not supported")
	// ErrObjectTooLarge means an object's header gives a size over
	// maxObjectBytes: it is not inflated.
	ErrObjectTooLarge = errors.New("git object too large")
	// ErrNotRegular means a file of the git folder Foundry reads itself (the
	// index, a reflog, a pack index) is a FIFO, a device or a folder:
	// opening a FIFO blocks until a writer comes, so it is never opened.
	ErrNotRegular = errors.New("not a regular file")
	// ErrLinkLoop means a symbolic link in a view leads to another, and so
	// on, more times than any real chain does (a loop). It wraps the
	// system's ELOOP, so it reads and matches as the working tree's does.
	ErrLinkLoop = fmt.Errorf("%w", syscall.ELOOP)
)

// maxObjectBytes bounds any object read from git (a tree, a commit, a blob
// whose path has no smaller limit): a 4 MB pack can hold a 400 MB blob of
// zeros, and go-git inflates an object whole.
const maxObjectBytes = 64 * confined.MiB

// TooLargeError reports an object refused by the size in its header. It
// wraps [ErrObjectTooLarge].
type TooLargeError struct {
	Hash string
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%v: object %.7s is %s, over the %s limit", ErrObjectTooLarge, e.Hash, confined.FormatSize(e.Size), confined.FormatSize(maxObjectBytes))
}

func (e *TooLargeError) Unwrap() error { return ErrObjectTooLarge }
