package blackboard

import (
	"errors"
	"fmt"

	"github.com/foundryhq/foundry/internal/atomicfile"
)

var (
	// ErrArchived means a wave of that name was archived before; an
	// archive is never overwritten.
	ErrArchived = errors.New("a wave of that name is already archived")

	// ErrInvalidName means a wave or agent name sanitises to nothing, "."
	// or "..", or holds a NUL byte; see [NameError].
	ErrInvalidName = errors.New("invalid name")
	// ErrNotObject means the artifact data is not a JSON object.
	ErrNotObject = errors.New("data must be a JSON object")
	// ErrInvalidJSON means the artifact data is not parseable JSON.
	ErrInvalidJSON = errors.New("data is not valid JSON")
	// ErrTooLarge means the artifact data exceeds [MaxDataBytes].
	ErrTooLarge = errors.New("data is too large")
	// ErrFullTooLarge means a full read's artifacts are larger together
	// than the request's MaxBytes; see [FullTooLargeError].
	ErrFullTooLarge = errors.New("too large to read in full")
	// ErrReadOnly means a write was asked of a board opened without a
	// project root on disk (a revision or the index).
	ErrReadOnly = errors.New("the blackboard is read-only here")
	// ErrUnknownWave means the wave has no folder; the wrapping error lists
	// the waves.
	ErrUnknownWave = errors.New("unknown wave")
	// ErrNoArtifact means the agent has no artifact in the wave; the
	// wrapping error lists the agents that have one.
	ErrNoArtifact = errors.New("no artifact")
	// ErrInvalidCursor means a read cursor was not issued for this wave by
	// [Board.Read].
	ErrInvalidCursor = errors.New("invalid cursor")
	// ErrInvalidLimit means a read limit is outside 1–[MaxLimit].
	ErrInvalidLimit = errors.New("invalid limit")
	// ErrSecret means an artifact holds a provider-format token or a
	// private key; see [SecretError].
	ErrSecret = errors.New("artifact holds a secret")
	// ErrSymlink means a folder a write goes through is a symbolic link,
	// which could lead the write outside the project.
	ErrSymlink = atomicfile.ErrSymlink
)

// NameError is a wave or agent name that cannot be used.
type NameError struct {
	Field  string // "wave" or "agent"; empty when unknown
	Name   string // as given
	Reason string
}

func (e *NameError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%v %q: %s", ErrInvalidName, e.Name, e.Reason)
	}
	return fmt.Sprintf("invalid %s name %q: %s", e.Field, e.Name, e.Reason)
}

// Unwrap makes every NameError match [ErrInvalidName].
func (e *NameError) Unwrap() error { return ErrInvalidName }

// FullTooLargeError is a full read refused before reading: the page's
// artifact files are Bytes together, over the request's MaxBytes.
type FullTooLargeError struct {
	Wave       string
	Bytes, Max int64
}

func (e *FullTooLargeError) Error() string {
	return fmt.Sprintf("read wave %s in full: the artifacts are %d bytes, over the %d-byte bound; pass agent, a smaller limit, or leave out full", e.Wave, e.Bytes, e.Max)
}

// Unwrap makes every FullTooLargeError match [ErrFullTooLarge].
func (e *FullTooLargeError) Unwrap() error { return ErrFullTooLarge }
