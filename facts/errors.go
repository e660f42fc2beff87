package facts

import (
	"errors"

	"github.com/foundryhq/foundry/internal/atomicfile"
)

var (
	// ErrInvalid marks a fact that breaks a memory rule (title length, body
	// size, type, scope, …). The error text names the rule; nothing was
	// written.
	ErrInvalid = errors.New("fact breaks a memory rule")

	// ErrSecret marks a fact refused because it contains a secret. The error
	// text names the kind of secret, never its value; nothing was written.
	ErrSecret = errors.New("fact contains a secret")

	// ErrMalformed marks a fact file that cannot be parsed. Readers skip such
	// files with a warning; the error is a *[ParseError].
	ErrMalformed = errors.New("malformed fact file")

	// ErrConflict marks a fact file that holds git conflict markers. Readers
	// skip it with a warning, like a malformed file; foundry doctor --fix
	// splits it into the two facts of the merge's sides.
	ErrConflict = errors.New("fact file holds git conflict markers")

	// ErrNotFound is returned when no fact has the requested id.
	ErrNotFound = errors.New("fact not found")

	// ErrReadOnly is returned by writes on a store that does not read the
	// working tree (a revision or the git index).
	ErrReadOnly = errors.New("memory is read-only here: writes go to the working tree")

	// ErrSymlink is returned by writes when the memory folder is a symbolic
	// link, which could lead them outside the project.
	ErrSymlink = atomicfile.ErrSymlink

	// ErrBadIndex marks an INDEX.md that [MergeIndex] cannot read.
	ErrBadIndex = errors.New("unreadable memory index")
)
