package runbooks

import (
	"errors"

	"github.com/foundryhq/foundry/internal/atomicfile"
)

var (
	// ErrInvalidSlug means a slug is not [a-z0-9][a-z0-9-]*; no file was
	// touched.
	ErrInvalidSlug = errors.New("invalid runbook slug")
	// ErrUnknownRunbook means no runbook has the slug; the wrapping error
	// lists the available slugs.
	ErrUnknownRunbook = errors.New("unknown runbook")
	// ErrExists means Create was asked for a slug that already has a
	// runbook; nothing was written.
	ErrExists = errors.New("runbook already exists")
	// ErrReadOnly means a write was asked of a book opened without a
	// project root on disk (a revision or the index).
	ErrReadOnly = errors.New("runbooks are read-only here")
	// ErrInvalidRunbook means the title or trigger of a new runbook is
	// unusable (empty title, a line break).
	ErrInvalidRunbook = errors.New("invalid runbook")
	// ErrSymlink means the runbooks folder is a symbolic link, which could
	// lead Create outside the project; nothing was written.
	ErrSymlink = atomicfile.ErrSymlink
	// ErrInvalidCursor means a page cursor was not issued by [Listing.Page].
	ErrInvalidCursor = errors.New("invalid cursor")
	// ErrInvalidLimit means a page limit is outside 1–[MaxPageSize].
	ErrInvalidLimit = errors.New("invalid limit")
)
