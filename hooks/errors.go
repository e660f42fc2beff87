package hooks

import "errors"

var (
	// ErrForeignHook means a hook file exists that Foundry did not write, so
	// uninstall left it in place (install chains such a hook instead).
	ErrForeignHook = errors.New("hook was not written by foundry")
	// ErrNoGitBinary means the git binary is not on PATH; hooks are run by
	// git, so they cannot be installed without it.
	ErrNoGitBinary = errors.New("git binary not found on PATH")
	// ErrUnknownHook means a hook name is neither pre-commit nor merge-index.
	ErrUnknownHook = errors.New("unknown hook")
)
