package mcp

import (
	"errors"
	"fmt"

	"github.com/foundryhq/foundry/config"
)

var (
	// ErrUnknownResource is returned (possibly wrapped) by a resource reader
	// when the URI names nothing; the client gets -32602
	// "Unknown resource: <uri>".
	ErrUnknownResource = errors.New("unknown resource")

	// ErrInvalidTool reports a tool registration that breaks a rule of
	// [Registry] (name, description, scope, schemas).
	ErrInvalidTool = errors.New("invalid tool")

	// ErrInvalidResource reports a resource or template registration that
	// breaks a rule of [Registry].
	ErrInvalidResource = errors.New("invalid resource")

	// ErrDaemonRunning means another process already serves the project
	// over HTTP; [*RunningError] says where.
	ErrDaemonRunning = errors.New("an MCP daemon already serves this project")

	// ErrInsecure refuses to start a daemon that breaks a security rule:
	// beyond loopback without tokens and TLS, tools that write without
	// tokens, a token file others can read or inside the worktree.
	ErrInsecure = errors.New("insecure daemon configuration")
)

// VerbatimError is a tool outcome worded for the model: the isError result
// shows Text exactly, without the "<tool> failed:" prefix. Handlers return
// it for the outcomes the seed words itself, such as the blackboard
// rejection or "Provide either `data` or `path`.".
type VerbatimError struct {
	Text string
}

// Verbatim returns a [*VerbatimError] with the given text.
func Verbatim(text string) error { return &VerbatimError{Text: text} }

// Error returns the text.
func (e *VerbatimError) Error() string { return e.Text }

// The refusals of [ConfigOptions]: the server exposes nothing.
var (
	// ErrNotDeclared means the config has no mcp block.
	ErrNotDeclared = errors.New("the MCP server is not enabled: " + config.Path + " has no mcp block")
	// ErrDisabled means the mcp block does not say enabled: true.
	ErrDisabled = errors.New("the MCP server is disabled: the mcp block of " + config.Path + " does not say enabled: true")
)

// ResultTooLargeError is a handler's refusal of an answer that would pass
// its result limit, known before the answer is built (see [ResultLimit]):
// the answer would be at least Bytes bytes. The call's audit outcome is
// too_large, as for an answer measured after it was built.
type ResultTooLargeError struct {
	Bytes int64
	Hint  string // how to narrow the request; may be empty
}

func (e *ResultTooLargeError) Error() string {
	msg := fmt.Sprintf("result of at least %d bytes", e.Bytes)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}
