package hooks

import "errors"

var (
	// ErrNoGitBinary means the git binary is not on PATH; hooks are run by
	// git, so they cannot be installed without it.
	ErrNoGitBinary = errors.New("git binary not found on PATH")
	// ErrUnknownHook means a hook name is neither pre-commit nor merge-index.
	ErrUnknownHook = errors.New("unknown hook")
)
