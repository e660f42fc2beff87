// This file defines the line-oriented object stream that sits between
// stdin/stdout and the jsonrpc2 connection.

package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"unicode"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/pause"
)

// DefaultMaxMessageBytes is the largest request line served by default. A
// request must be able to carry the largest document the server's tools
// validate (an artifact, as contract_validate's data), so the limit is the
// artifact limit, defined once in internal/confined's table of limits.
const DefaultMaxMessageBytes = confined.ArtifactMax

// idSlack is how far past the size limit a line is still buffered, so that
// a slightly oversized request can be parsed and its rejection carry its id.
// Lines longer still are discarded as they are read and rejected without id.
const idSlack = 1 << 20

// PauseEOF is the test pause point reached when the stream sees the end of
// its input, before it waits for the requests in flight.
const PauseEOF = "jsonrpc.eof"

// stream implements jsonrpc2.ObjectStream over a reader and a writer with
// one compact JSON object per line. It never returns a decode error to
// jsonrpc2 (which would close the connection): it answers bad lines itself.
type stream struct {
	ctx   context.Context
	r     *bufio.Reader
	max   int
	trace *slog.Logger
	// redact, when set, rewrites what the trace shows (Options.Redact).
	redact func(string) string

	wmu sync.Mutex
	w   io.Writer
	// wfail is closed when a write fails (the peer closed its end: EPIPE),
	// after werr is set: the session is over, nothing more is read.
	wfail chan struct{}
	werr  error

	// drain is called once at end of input, before ReadObject returns
	// io.EOF; it waits for the requests in flight to be answered.
	drain func()
	// readErr is the read error that ended the stream, other than io.EOF.
	// It is written only by the read loop and read after it has stopped.
	readErr error
	// pending is a read error held back while the line read with it is
	// served.
	pending error
	buf     []byte
}

func newStream(ctx context.Context, r io.Reader, w io.Writer, max int, trace *slog.Logger, redact func(string) string) *stream {
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	return &stream{ctx: ctx, r: bufio.NewReaderSize(r, 64<<10), w: w, max: max, trace: trace, redact: redact, wfail: make(chan struct{})}
}

// readLine returns the next line without its line terminator, and the
// line's full length, which exceeds len(line) when the line was longer than
// max+idSlack and its tail was discarded. The final line may lack a
// newline. err is non-nil only when no line was read.
func (s *stream) readLine() (line []byte, n int, err error) {
	if s.pending != nil {
		return nil, 0, s.pending
	}
	s.buf = s.buf[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		n += len(chunk)
		if len(s.buf) < s.max+idSlack {
			keep := min(len(chunk), s.max+idSlack-len(s.buf))
			s.buf = append(s.buf, chunk[:keep]...)
		}
		switch {
		case err == nil:
			s.buf = bytes.TrimSuffix(s.buf, []byte("\n"))
			return s.buf, n - 1, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case n > 0:
			s.pending = err
			return s.buf, n, nil
		default:
			return nil, 0, err
		}
	}
}

// ReadObject reads lines until one holds a well-formed JSON-RPC message and
// decodes it into v. Ill-formed lines are answered with an error response
// and skipped. At end of input it waits for the requests in flight before
// it returns io.EOF.
func (s *stream) ReadObject(v any) error {
	for {
		line, n, err := s.readLine()
		if s.writeFailed() != nil {
			// Nobody reads the answers: read no more requests, and end as
			// at end of input, once the requests in flight are done.
			if s.drain != nil {
				s.drain()
			}
			return io.EOF
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				pause.Point(s.ctx, PauseEOF)
				if s.drain != nil {
					s.drain()
				}
				return io.EOF
			}
			s.readErr = err
			if s.drain != nil {
				s.drain()
			}
			return err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 && n <= s.max {
			continue
		}
		if s.trace != nil {
			s.trace.Info("rpc recv", "message", s.traceText(line, n))
		}
		if n > s.max {
			var id json.RawMessage
			if n <= s.max+idSlack {
				if unanswered(line) {
					continue
				}
				id = extractID(line)
			}
			s.writeError(id, CodeInvalidRequest, fmt.Sprintf("Invalid request: message of %d bytes exceeds the %d-byte limit", n, s.max))
			continue
		}
		if lerr := check(line); lerr != nil {
			if lerr.code != 0 {
				s.writeError(lerr.id, lerr.code, lerr.msg)
			}
			continue
		}
		if err := json.Unmarshal(line, v); err != nil {
			if !unanswered(line) {
				s.writeError(extractID(line), CodeInvalidRequest, "Invalid request: "+err.Error())
			}
			continue
		}
		return nil
	}
}

// traceText is how the trace shows a line of n bytes, of which line holds
// the first len(line): redacted whole, then cut when long. A cut ends
// before the word it falls in, which may be the part of a secret that
// redaction no longer recognises.
func (s *stream) traceText(line []byte, n int) string {
	const show = 4 << 10
	text := string(line)
	if s.redact != nil {
		text = s.redact(text)
	}
	if len(text) <= show && n <= len(line) {
		return text
	}
	text = strings.TrimSuffix(Cut(text, show), "…")
	text = strings.TrimRightFunc(text, func(r rune) bool { return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) })
	return fmt.Sprintf("%s… (%d bytes)", text, n)
}

// lineError is the error response owed to an ill-formed line. Code 0
// drops the line without an answer: neither a malformed notification nor a
// malformed response is ever answered (the latter so that two peers cannot
// bounce error messages at each other forever).
type lineError struct {
	id   json.RawMessage // nil when the id is missing or unusable
	code int64
	msg  string
}

// check decides whether line is a JSON-RPC message that jsonrpc2 may see.
func check(line []byte) *lineError {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(line, &env); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case !errors.As(err, &te):
			return &lineError{code: CodeParseError, msg: "Parse error: " + err.Error()}
		case line[0] == '[':
			return &lineError{code: CodeInvalidRequest, msg: "Invalid request: batch arrays are not supported; send one message per line"}
		default:
			return &lineError{code: CodeInvalidRequest, msg: "Invalid request: a message must be a JSON object"}
		}
	}
	if env == nil { // the line is null
		return &lineError{code: CodeInvalidRequest, msg: "Invalid request: a message must be a JSON object"}
	}
	_, hasResult := env["result"]
	_, hasError := env["error"]
	_, hasMethod := env["method"]
	rawID, hasID := env["id"]
	versionOK := string(bytes.TrimSpace(env["jsonrpc"])) == `"2.0"`

	switch {
	case !hasMethod && (hasResult || hasError):
		// A response to a call of ours. A broken one is dropped unanswered.
		if _, ok := parseID(rawID); !ok || !versionOK || (hasResult && hasError) {
			return &lineError{}
		}
		return nil
	case hasMethod && !hasID:
		// A notification is never answered, not even a malformed one.
		if checkRequest(env, versionOK, nil) != nil {
			return &lineError{}
		}
		return nil
	}
	var id json.RawMessage
	if hasID {
		if _, ok := parseID(rawID); !ok {
			return &lineError{code: CodeInvalidRequest, msg: "Invalid request: " + errInvalidID.Error()}
		}
		id = rawID
	}
	if !hasMethod {
		if !versionOK {
			return &lineError{id: id, code: CodeInvalidRequest, msg: `Invalid request: jsonrpc must be "2.0"`}
		}
		return &lineError{id: id, code: CodeInvalidRequest, msg: "Invalid request: a message needs a method"}
	}
	return checkRequest(env, versionOK, id)
}

// checkRequest checks the envelope of a request or notification; id is the
// id its error response carries.
func checkRequest(env map[string]json.RawMessage, versionOK bool, id json.RawMessage) *lineError {
	_, hasResult := env["result"]
	_, hasError := env["error"]
	var m string
	switch {
	case !versionOK:
		return &lineError{id: id, code: CodeInvalidRequest, msg: `Invalid request: jsonrpc must be "2.0"`}
	case hasResult || hasError:
		return &lineError{id: id, code: CodeInvalidRequest, msg: "Invalid request: a message cannot have both method and result or error"}
	case json.Unmarshal(env["method"], &m) != nil:
		return &lineError{id: id, code: CodeInvalidRequest, msg: "Invalid request: method must be a string"}
	}
	if p, ok := env["params"]; ok {
		switch p = bytes.TrimSpace(p); p[0] {
		case '{', '[', 'n':
		default:
			return &lineError{id: id, code: CodeInvalidRequest, msg: "Invalid request: params must be an object or an array"}
		}
	}
	return nil
}

// unanswered reports whether line is a notification or a response, which
// is dropped when oversized, as when malformed: neither is ever answered.
func unanswered(line []byte) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal(line, &env) != nil {
		return false
	}
	_, hasMethod := env["method"]
	_, hasID := env["id"]
	_, hasResult := env["result"]
	_, hasError := env["error"]
	return (hasMethod && !hasID) || (!hasMethod && (hasResult || hasError))
}

// extractID returns the valid id of a message line, or nil.
func extractID(line []byte) json.RawMessage {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &env) != nil || env.ID == nil {
		return nil
	}
	if _, ok := parseID(env.ID); !ok {
		return nil
	}
	return env.ID
}

// writeError writes an error response for a line that never reached a
// handler. The id is omitted when it could not be read.
func (s *stream) writeError(id json.RawMessage, code int64, msg string) {
	_ = s.writeLine(encodeError(id, code, msg))
}

// WriteObject writes obj as one compact JSON line.
func (s *stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return s.writeLine(b)
}

func (s *stream) writeLine(b []byte) error {
	if s.trace != nil {
		s.trace.Info("rpc send", "message", s.traceText(b, len(b)))
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	line := make([]byte, 0, len(b)+1)
	line = append(append(line, b...), '\n')
	if _, err := s.w.Write(line); err != nil {
		if s.werr == nil {
			s.werr = err
			close(s.wfail)
		}
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

// writeFailed returns the error of the first write that failed, or nil.
func (s *stream) writeFailed() error {
	select {
	case <-s.wfail:
		s.wmu.Lock()
		defer s.wmu.Unlock()
		return s.werr
	default:
		return nil
	}
}

// Close implements io.Closer. The stream does not own its reader or
// writer, so there is nothing to release.
func (s *stream) Close() error { return nil }
