package git

import "errors"

var (
	// ErrNotRepository means the folder is not inside a git repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrRevisionNotFound means a revision spec resolves to no commit.
	ErrRevisionNotFound = errors.New("revision not found")
	// ErrNoCommits means the repository has no commit yet (an unborn HEAD).
	ErrNoCommits = errors.New("repository has no commits yet")
	// ErrPathNotFound means a path does not exist in the chosen view.
	ErrPathNotFound = errors.New("path not found")
	// ErrShallow means a shallow clone lacks the history a request needs.
	ErrShallow = errors.New("shallow clone lacks this history")
)
