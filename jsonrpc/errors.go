package jsonrpc

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Error codes of the JSON-RPC 2.0 specification, plus the one
// implementation-defined code this package emits.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeOverloaded rejects a request over the concurrency or rate limit.
	// MCP 2026-07-28 (basic/index, Error Codes) reserves -32020 to -32099
	// for its own codes, tells new implementations not to use the legacy
	// sub-range -32000 to -32019 at all (the TypeScript SDK uses -32000
	// for its local ConnectionClosed) and to allocate codes of their own
	// outside -32768 to -32000: so this one lies just above that range.
	CodeOverloaded = -31000
)

// Error is a JSON-RPC error object. A handler returns one (possibly
// wrapped) to choose the code; any other error becomes [CodeInternalError]
// with the error's text as the message.
type Error struct {
	Code    int64
	Message string
	// Data, when not nil, is marshalled into the error's "data" member.
	Data any
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Errorf returns an [*Error] with the given code and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MaxEchoBytes bounds a value sent by the client that an error message of
// this package names (an unknown method): a request of megabytes must not
// make an answer of megabytes (or more: JSON escapes '<' in six bytes),
// which a client's line reader may refuse.
const MaxEchoBytes = 256

// MethodNotFound returns the [CodeMethodNotFound] error of an unknown
// method, naming it cut to [MaxEchoBytes].
func MethodNotFound(method string) *Error {
	return Errorf(CodeMethodNotFound, "Method not found: %s", Cut(method, MaxEchoBytes))
}

// Cut returns s cut to at most n bytes at a rune boundary, ending with "…"
// when cut: how an answer or a log names a value of the client's that may
// be of any length.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len("…"), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// wireError is the JSON form of an error object.
type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}
