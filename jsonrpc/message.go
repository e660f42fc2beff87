// This file defines the message-level side of a connection, for transports
// that carry one JSON-RPC message at a time (HTTP) instead of a stream.

package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"
)

// Sink receives outgoing messages of a message transport, each one encoded
// JSON object.
type Sink func(ctx context.Context, msg []byte) error

type sinkSender struct{ sink Sink }

func (s sinkSender) send(ctx context.Context, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return s.sink(ctx, b)
}

// Open returns a connection for a transport that hands over one message at
// a time: each is decoded by [Parse] and served by [Conn.Deliver], through
// the same method table, limits and handlers as [Server.Serve]. out, when
// not nil, receives the notifications handlers send outside a request that
// came with a [Sink]. Close the connection when the transport's session
// ends.
func (s *Server) Open(out Sink) *Conn {
	c := s.newConn()
	if out != nil {
		c.out = sinkSender{out}
	}
	return c
}

// Parse decodes one incoming message of a message transport. It returns
// the request or notification, or a nil request and nil error for a
// response from the peer (which this package never asks for, so it is
// dropped). An ill-formed message gives an error and, in reply, the
// encoded error response its sender is owed, or nil when none is owed (a
// malformed notification or response is never answered).
func Parse(data []byte) (req *Request, reply []byte, err error) {
	data = bytes.TrimSpace(data)
	if lerr := check(data); lerr != nil {
		if lerr.code == 0 {
			return nil, nil, Errorf(CodeInvalidRequest, "Invalid request: a malformed notification or response")
		}
		return nil, encodeError(lerr.id, lerr.code, lerr.msg), &Error{Code: lerr.code, Message: lerr.msg}
	}
	var env struct {
		Method *string `json:"method"`
	}
	if json.Unmarshal(data, &env) == nil && env.Method == nil {
		return nil, nil, nil
	}
	var w jsonrpc2.Request
	if err := json.Unmarshal(data, &w); err != nil {
		e := Errorf(CodeInvalidRequest, "Invalid request: %v", err)
		if unanswered(data) {
			return nil, nil, e
		}
		return nil, encodeError(extractID(data), e.Code, e.Message), e
	}
	return fromWireRequest(&w), nil, nil
}

// Deliver serves one request or notification decoded by [Parse]. For a
// request it runs the handler in the caller's goroutine and returns the
// encoded response, or nil when the request was cancelled; the
// notifications the handler sends with its context go to sink when sink is
// not nil. A notification is handled before Deliver returns nil.
func (c *Conn) Deliver(ctx context.Context, req *Request, sink Sink) []byte {
	if req.Notification {
		c.notification(ctx, req)
		return nil
	}
	if sink != nil {
		ctx = context.WithValue(ctx, sinkKey{}, sink)
	}
	var resp *wireResponse
	if h, rerr := c.admit(req); rerr != nil {
		resp = errorResponse(req, rerr)
	} else {
		rctx, end := c.begin(ctx, req)
		resp = end(c.call(rctx, h, req))
		c.wg.Done()
	}
	if resp == nil {
		return nil
	}
	b, err := json.Marshal(resp)
	if err != nil { // unreachable: the result is already encoded
		return encodeError(req.ID.raw(), CodeInternalError, "Internal error: encode response: "+err.Error())
	}
	return b
}

// Close ends the connection: the requests in flight are cancelled (their
// responses suppressed), later ones are rejected, and Close waits for the
// running handlers to return.
func (c *Conn) Close() {
	c.mu.Lock()
	c.closed = true
	for _, f := range c.inflight {
		f.cancelled = true
		if f.cancel != nil {
			f.cancel()
		}
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// encodeError encodes an error response; the id is omitted when nil.
func encodeError(id json.RawMessage, code int64, msg string) []byte {
	b, _ := json.Marshal(struct { // every field marshals
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{Code: code, Message: msg}})
	return b
}

// EncodeError encodes an error response without id, for a transport that
// must answer a message it could not hand over (a body too large to read,
// a refused session).
func EncodeError(code int64, msg string) []byte {
	return encodeError(nil, code, msg)
}

// ErrorResponse encodes the error response to req, for a transport that
// refuses a request before it reaches the connection.
func ErrorResponse(req *Request, err *Error) []byte {
	b, merr := json.Marshal(errorResponse(req, err))
	if merr != nil { // unreachable: the data is already encoded
		return encodeError(req.ID.raw(), err.Code, err.Message)
	}
	return b
}

// Handles reports whether a method is registered.
func (s *Server) Handles(method string) bool {
	_, ok := s.methods[method]
	return ok
}
