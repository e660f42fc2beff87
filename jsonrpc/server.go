// This file defines the method table, the per-connection dispatcher and
// the Serve entry point.

package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// Request is one request or notification as a [Handler] sees it.
type Request struct {
	Method string
	// Params is the raw params member; nil when it is absent or null.
	Params json.RawMessage
	// ID is the request id; meaningless for a notification.
	ID ID
	// Notification is true when the message has no id and gets no response.
	Notification bool
}

// Handler serves one method. For a request, a nil result is sent as {} and
// an error as a JSON-RPC error object: an [*Error] anywhere in its chain
// gives code, message and data, any other error becomes
// [CodeInternalError] with the error's text. For a notification the result
// is ignored and an error is only logged.
//
// Requests run concurrently, each in its own goroutine, with a context that
// ends when the request is cancelled or the connection closes.
// Notifications run one at a time on the read loop, in arrival order, so
// their handlers must return quickly.
type Handler func(ctx context.Context, conn *Conn, req *Request) (result any, err error)

// Limiter admits or rejects a request; *rate.Limiter satisfies it.
type Limiter interface {
	Allow() bool
}

// Options configure a [Server]. The zero value is usable.
type Options struct {
	// MaxConcurrency caps the requests in flight; a request over the cap is
	// rejected with [CodeOverloaded], never queued. 0 means no cap.
	MaxConcurrency int
	// MaxMessageBytes caps the size of one incoming line;
	// 0 means [DefaultMaxMessageBytes].
	MaxMessageBytes int
	// Limiter, when set, must admit every request before dispatch; a
	// rejected request is answered with [CodeOverloaded]. Notifications are
	// not limited.
	Limiter Limiter
	// Logger receives diagnostics (handler panics, failed writes). nil
	// discards them.
	Logger *slog.Logger
	// Trace, when set, receives every line read and written.
	Trace *slog.Logger
	// Rejected, when set, is called on the read loop for every request
	// answered with an error before dispatch: unknown method, duplicate
	// id, concurrency cap or rate limit. It must return quickly.
	Rejected func(req *Request, err *Error)
}

// Server is a JSON-RPC method table. Register methods with [Server.Handle]
// before calling [Server.Serve].
type Server struct {
	opts    Options
	log     *slog.Logger
	methods map[string]Handler
}

// NewServer returns a server with an empty method table.
func NewServer(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{opts: opts, log: log, methods: map[string]Handler{}}
}

// Handle registers h for method, for both requests and notifications of
// that name. A method registered twice is a programming error and panics.
func (s *Server) Handle(method string, h Handler) {
	if _, dup := s.methods[method]; dup {
		panic("jsonrpc: method registered twice: " + method)
	}
	s.methods[method] = h
}

// Serve reads requests from in and writes responses to out until in ends
// or ctx is done. At the end of in it waits for the requests in flight,
// writes their responses and returns nil. When ctx ends first it cancels
// the requests in flight, waits for their handlers and returns ctx's error.
// A failed read is returned as an error.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	c := &Conn{srv: s, inflight: map[ID]*inflight{}}
	st := newStream(ctx, in, out, s.opts.MaxMessageBytes, s.opts.Trace)
	st.drain = c.wg.Wait
	jc := jsonrpc2.NewConn(ctx, st, c, jsonrpc2.SetLogger(printfLogger{s.log}))
	<-jc.DisconnectNotify()
	c.wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if st.readErr != nil {
		return fmt.Errorf("read messages: %w", st.readErr)
	}
	return nil
}

// Conn is one served connection. Handlers use it to send notifications and
// to cancel other requests.
type Conn struct {
	srv *Server
	wg  sync.WaitGroup

	mu       sync.Mutex
	jc       *jsonrpc2.Conn
	inflight map[ID]*inflight
}

type inflight struct {
	cancel    context.CancelFunc
	cancelled bool
}

// Notify sends a notification to the peer.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	c.mu.Lock()
	jc := c.jc
	c.mu.Unlock()
	if jc == nil {
		return errors.New("notify: connection not started")
	}
	if err := jc.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("notify %s: %w", method, err)
	}
	return nil
}

// Cancel cancels the context of the request in flight with the given id
// and suppresses its response. It reports whether such a request was in
// flight.
func (c *Conn) Cancel(id ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.inflight[id]
	if !ok {
		return false
	}
	f.cancelled = true
	f.cancel()
	return true
}

// Handle implements jsonrpc2.Handler. It runs on jsonrpc2's read loop.
func (c *Conn) Handle(ctx context.Context, jc *jsonrpc2.Conn, wreq *jsonrpc2.Request) {
	c.mu.Lock()
	c.jc = jc
	c.mu.Unlock()

	req := &Request{Method: wreq.Method, ID: fromWire(wreq.ID), Notification: wreq.Notif}
	if wreq.Params != nil && string(*wreq.Params) != "null" {
		req.Params = json.RawMessage(*wreq.Params)
	}
	h := c.srv.methods[req.Method]
	if req.Notification {
		if h == nil {
			c.srv.log.Debug("ignore unknown notification", "method", req.Method)
			return
		}
		if _, err := c.call(ctx, h, req); err != nil {
			c.srv.log.Warn("handle notification", "method", req.Method, "err", err)
		}
		return
	}
	if err := c.admit(req, h); err != nil {
		if f := c.srv.opts.Rejected; f != nil {
			f(req, err)
		}
		c.reply(ctx, jc, req, nil, err)
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.inflight[req.ID] = &inflight{cancel: cancel}
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		result, err := c.call(rctx, h, req)
		c.mu.Lock()
		f := c.inflight[req.ID]
		delete(c.inflight, req.ID)
		c.mu.Unlock()
		cancel()
		if f.cancelled {
			c.srv.log.Debug("suppress response of cancelled request", "id", req.ID.String(), "method", req.Method)
			return
		}
		c.reply(ctx, jc, req, result, err)
	}()
}

// admit decides whether a request may be dispatched.
func (c *Conn) admit(req *Request, h Handler) *Error {
	if h == nil {
		return Errorf(CodeMethodNotFound, "Method not found: %s", req.Method)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.inflight[req.ID]; dup {
		return Errorf(CodeInvalidRequest, "Invalid request: id %s is already in flight", req.ID)
	}
	if max := c.srv.opts.MaxConcurrency; max > 0 && len(c.inflight) >= max {
		return Errorf(CodeOverloaded, "Server overloaded: %d requests already in flight; retry later", max)
	}
	if l := c.srv.opts.Limiter; l != nil && !l.Allow() {
		return Errorf(CodeOverloaded, "Rate limit exceeded; retry later")
	}
	return nil
}

// call runs h, turning a panic into an internal error.
func (c *Conn) call(ctx context.Context, h Handler, req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("handler panicked", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, Errorf(CodeInternalError, "Internal error: handler for %s panicked", req.Method)
		}
	}()
	return h(ctx, c, req)
}

func (c *Conn) reply(ctx context.Context, jc *jsonrpc2.Conn, req *Request, result any, err error) {
	resp := &jsonrpc2.Response{ID: req.ID.wire()}
	if err == nil {
		raw, merr := marshalResult(result)
		if merr != nil {
			err = Errorf(CodeInternalError, "Internal error: encode result of %s: %v", req.Method, merr)
		} else {
			resp.Result = &raw
		}
	}
	if err != nil {
		resp.Error = toWire(err)
	}
	if err := jc.SendResponse(ctx, resp); err != nil {
		c.srv.log.Warn("send response", "id", req.ID.String(), "method", req.Method, "err", err)
	}
}

// marshalResult encodes a result, turning nil into {} so that no response
// ever carries "result":null.
func marshalResult(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return json.RawMessage("{}"), nil
	}
	return b, nil
}

func toWire(err error) *jsonrpc2.Error {
	var e *Error
	if !errors.As(err, &e) {
		return &jsonrpc2.Error{Code: CodeInternalError, Message: err.Error()}
	}
	we := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		if b, merr := json.Marshal(e.Data); merr == nil {
			raw := json.RawMessage(b)
			we.Data = &raw
		}
	}
	return we
}

// printfLogger adapts a *slog.Logger to jsonrpc2.Logger.
type printfLogger struct{ log *slog.Logger }

func (p printfLogger) Printf(format string, args ...any) {
	p.log.Info(strings.TrimSpace(fmt.Sprintf(format, args...)))
}
