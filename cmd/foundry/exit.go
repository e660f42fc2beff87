// This file defines the one place where errors become exit codes, messages
// and hints.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/project"
)

// Exit codes. Each command's help documents the ones it uses.
const (
	exitOK          = 0
	exitFailure     = 1 // failure or invalid content
	exitUsage       = 2 // malformed command line only
	exitProblems    = 3 // a check ran and found problems
	exitInterrupted = 130
)

// usageError is a malformed command line: exit 2, with the command's usage.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitError carries an exit code. With a nil err the command has already
// reported everything on its streams and nothing more is printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// silentExit ends the command with code after it printed its own report
// (an INVALID artifact, a rejected write, doctor findings).
func silentExit(code int) error { return &exitError{code: code} }

// hintError adds a hint line to an error.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return &hintError{err: err, hint: hint} }

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var usage *usageError
	var ex *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case errors.Is(err, project.ErrReadOnly):
		// --rev or --staged on a command that writes: a malformed line.
		return exitUsage
	case errors.As(err, &ex):
		return ex.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}

// hintFor returns the hint line shown under an error, from the error's type.
func hintFor(err error) string {
	var h *hintError
	var cfgErr *config.Error
	var notFound *project.NotFoundError
	switch {
	case errors.As(err, &h):
		return h.hint
	case errors.As(err, &notFound) && notFound.NotFolder:
		return "move that .foundry away, then run `foundry init` to create the folder, or pass -C DIR to point at a project"
	case errors.Is(err, project.ErrNoProject):
		return "run `foundry init` to create .foundry/ here, or pass -C DIR to point at a project"
	case errors.Is(err, project.ErrReadOnly):
		return "drop --rev and --staged to write to the working tree"
	case errors.Is(err, project.ErrNoProjectAtRev):
		return "the project was created after that revision; `git log --oneline -- .foundry` shows when"
	case errors.Is(err, project.ErrNoGit):
		return "--rev and --staged read from git; run `git init` first or drop the flag"
	case errors.Is(err, git.ErrShallow):
		return "this clone is shallow; run `git fetch --unshallow` to read older revisions"
	case errors.Is(err, git.ErrUnsupportedRevision):
		return "pass the commit itself instead, e.g. --rev \"$(git rev-parse --verify '<rev>')\""
	case errors.Is(err, git.ErrRevisionNotFound):
		return "check the spec with `git rev-parse --verify <rev>`"
	case errors.As(err, &cfgErr):
		return "see the defaults and keys with `foundry init` in an empty folder, or delete the key"
	}
	return ""
}

// canceledText is how an error of a command interrupted by a signal (its
// context cancelled) ends, with the signal's cause when it was given.
var canceledText = regexp.MustCompile(`context canceled(: [a-z][a-z ]* signal received)?`)

// message is err's text for the user: an interruption is called one, where
// Go calls it "context canceled".
func message(err error) string {
	msg := err.Error()
	if errors.Is(err, context.Canceled) {
		msg = canceledText.ReplaceAllLiteralString(msg, "interrupted")
	}
	return msg
}

// report prints err to stderr in the house form, as JSON when asked.
func report(stderr io.Writer, err error, asJSON bool) {
	var ex *exitError
	if errors.As(err, &ex) && ex.err == nil {
		return
	}
	hint := hintFor(err)
	if asJSON {
		obj := map[string]any{"error": message(err), "code": exitCode(err)}
		if hint != "" {
			obj["hint"] = hint
		}
		b, _ := json.Marshal(obj)
		fmt.Fprintf(stderr, "%s\n", b)
		return
	}
	fmt.Fprintf(stderr, "foundry: %s\n", message(err))
	if hint != "" {
		fmt.Fprintf(stderr, "hint: %s\n", hint)
	}
}
