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
	// Redact, when set, rewrites the peer's text before the server echoes
	// or logs it: the name of an unknown method in its error, and every
	// line the trace receives. It must be safe for concurrent use.
	Redact func(string) string
	// Admit, when set, is asked after the built-in checks to admit every
	// request; a non-nil error rejects it. release, when not nil, is called
	// once the admitted request has ended. Transports use it for limits
	// that span connections, such as per-client and total limits.
	Admit func(req *Request) (release func(), err *Error)
	// Rejected, when set, is called for every request answered with an
	// error before dispatch: unknown method, duplicate id, concurrency cap,
	// rate limit or Admit. It must return quickly.
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

// echo returns the peer's text s as the server may echo or log it: through
// Options.Redact, when set, and cut to [MaxEchoBytes].
func (s *Server) echo(text string) string {
	if s.opts.Redact != nil {
		text = s.opts.Redact(Cut(text, 4*MaxEchoBytes))
	}
	return Cut(text, MaxEchoBytes)
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
// A failed read is returned as an error. When a write fails (the peer
// closed its end of out: EPIPE) the session is over too: Serve reads no
// more requests, waits for the handlers in flight and returns the write's
// error (a read of in already under way is left to end on its own).
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	c := s.newConn()
	// The input is read through a pipe fed by a goroutine of its own, so
	// the read loop can be woken when the output fails: a read of stdin
	// blocks in the kernel, and closing the file would not end it.
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, in)
		pw.CloseWithError(err) // nil: io.EOF to the reader
	}()
	defer pr.Close()
	st := newStream(ctx, pr, out, s.opts.MaxMessageBytes, s.opts.Trace, s.opts.Redact)
	st.drain = c.wg.Wait
	jc := jsonrpc2.NewConn(ctx, st, streamHandler{c, st}, jsonrpc2.SetLogger(printfLogger{s.log}))
	select {
	case <-jc.DisconnectNotify():
	case <-st.wfail:
		// The peer closed the output: the session ends as if the input
		// had ended too. Closing the pipe wakes the read loop, which lets
		// the requests in flight finish (their writes done, their answers
		// lost) before it stops.
		pr.CloseWithError(io.EOF)
		<-jc.DisconnectNotify()
	}
	c.wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := st.writeFailed(); err != nil {
		return fmt.Errorf("write messages: %w", err)
	}
	if st.readErr != nil {
		return fmt.Errorf("read messages: %w", st.readErr)
	}
	return nil
}

func (s *Server) newConn() *Conn {
	return &Conn{srv: s, inflight: map[ID]*inflight{}}
}

// Conn is one served connection: a byte stream served by [Server.Serve],
// or a session of a message transport opened by [Server.Open]. Handlers
// use it to send notifications and to cancel other requests.
type Conn struct {
	srv *Server
	wg  sync.WaitGroup

	mu sync.Mutex
	// out sends what belongs to no request in particular; nil until the
	// stream's first message, or when a message transport has no such
	// channel.
	out      sender
	inflight map[ID]*inflight
	closed   bool
}

type inflight struct {
	cancel    context.CancelFunc
	release   func()
	cancelled bool
}

// sender delivers a connection's outgoing messages.
type sender interface {
	send(ctx context.Context, msg any) error
}

// sinkKey keys the [Sink] of a request in its handler's context.
type sinkKey struct{}

// Notify sends a notification to the peer: on the [Sink] of the request
// whose context (or a context derived from it) ctx is, when that request
// came with one, else on the connection's own channel.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("notify %s: encode params: %w", method, err)
	}
	p := json.RawMessage(raw)
	msg := &jsonrpc2.Request{Method: method, Params: &p, Notif: true}
	out := c.sender(ctx)
	if out == nil {
		return fmt.Errorf("notify %s: no channel to the peer", method)
	}
	if err := out.send(ctx, msg); err != nil {
		return fmt.Errorf("notify %s: %w", method, err)
	}
	return nil
}

func (c *Conn) sender(ctx context.Context) sender {
	if s, ok := ctx.Value(sinkKey{}).(Sink); ok && s != nil {
		return sinkSender{s}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out
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
	if f.cancel != nil {
		f.cancel()
	}
	return true
}

// streamHandler is the jsonrpc2.Handler of a byte-stream connection. It
// runs on jsonrpc2's read loop.
type streamHandler struct {
	c  *Conn
	st *stream
}

// streamSender sends on a jsonrpc2 connection. Responses bypass jsonrpc2,
// whose ID holds a uint64 and would write a negative id as its two's
// complement; they go straight to the connection's stream, once the same
// closed check jsonrpc2 makes has passed.
type streamSender struct {
	jc *jsonrpc2.Conn
	st *stream
}

func (s streamSender) send(ctx context.Context, msg any) error {
	switch m := msg.(type) {
	case *wireResponse:
		select {
		case <-s.jc.DisconnectNotify():
			return jsonrpc2.ErrClosed
		default:
		}
		return s.st.WriteObject(m)
	case *jsonrpc2.Request:
		return s.jc.Notify(ctx, m.Method, m.Params)
	}
	return fmt.Errorf("send %T: not a message", msg)
}

// Handle implements jsonrpc2.Handler.
func (h streamHandler) Handle(ctx context.Context, jc *jsonrpc2.Conn, wreq *jsonrpc2.Request) {
	c := h.c
	c.mu.Lock()
	if c.out == nil {
		c.out = streamSender{jc, h.st}
	}
	out := c.out
	c.mu.Unlock()

	req := fromWireRequest(wreq)
	if req.Notification {
		c.notification(ctx, req)
		return
	}
	hd, rerr := c.admit(req)
	if rerr != nil {
		c.send(ctx, out, req, errorResponse(req, rerr))
		return
	}
	rctx, end := c.begin(ctx, req)
	go func() {
		defer c.wg.Done()
		if resp := end(c.call(rctx, hd, req)); resp != nil {
			c.send(ctx, out, req, resp)
		}
	}()
}

func fromWireRequest(wreq *jsonrpc2.Request) *Request {
	req := &Request{Method: wreq.Method, ID: fromWire(wreq.ID), Notification: wreq.Notif}
	if wreq.Params != nil && string(*wreq.Params) != "null" {
		req.Params = json.RawMessage(*wreq.Params)
	}
	return req
}

func (c *Conn) send(ctx context.Context, out sender, req *Request, resp *wireResponse) {
	if err := out.send(ctx, resp); err != nil {
		c.srv.log.Warn("send response", "id", req.ID.String(), "method", req.Method, "err", err)
	}
}

// notification runs the handler of a notification, if there is one.
func (c *Conn) notification(ctx context.Context, req *Request) {
	h := c.srv.methods[req.Method]
	if h == nil {
		c.srv.log.Debug("ignore unknown notification", "method", c.srv.echo(req.Method))
		return
	}
	if _, err := c.call(ctx, h, req); err != nil {
		c.srv.log.Warn("handle notification", "method", req.Method, "err", err)
	}
}

// admit decides whether a request may be dispatched and returns its
// handler. An admitted request is reserved as in flight; the caller must
// then call begin.
func (c *Conn) admit(req *Request) (Handler, *Error) {
	h := c.srv.methods[req.Method]
	err := c.check(req, h)
	if err == nil && c.srv.opts.Admit != nil {
		release, aerr := c.srv.opts.Admit(req)
		c.mu.Lock()
		if aerr != nil {
			delete(c.inflight, req.ID)
			c.wg.Done() // the reservation check counted
		} else {
			c.inflight[req.ID].release = release
		}
		c.mu.Unlock()
		err = aerr
	}
	if err != nil {
		if f := c.srv.opts.Rejected; f != nil {
			f(req, err)
		}
		return nil, err
	}
	return h, nil
}

// check applies the built-in admission rules and, when they pass,
// reserves the request's id. The reservation counts in c.wg from here, so
// that Close, which sets closed under the same lock, waits for it.
func (c *Conn) check(req *Request, h Handler) *Error {
	if h == nil {
		return MethodNotFound(c.srv.echo(req.Method))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return Errorf(CodeInvalidRequest, "Invalid request: the connection is closed")
	}
	if _, dup := c.inflight[req.ID]; dup {
		return Errorf(CodeInvalidRequest, "Invalid request: id %s is already in flight", req.ID)
	}
	if max := c.srv.opts.MaxConcurrency; max > 0 && len(c.inflight) >= max {
		return Errorf(CodeOverloaded, "Server overloaded: %d requests already in flight; retry later", max)
	}
	if l := c.srv.opts.Limiter; l != nil && !l.Allow() {
		return Errorf(CodeOverloaded, "Rate limit exceeded; retry later")
	}
	c.inflight[req.ID] = &inflight{}
	c.wg.Add(1)
	return nil
}

// begin starts an admitted request: it returns the request's context and
// the function that ends it, which turns the handler's outcome into the
// response owed, or nil when the request was cancelled. The caller calls
// c.wg.Done once the response is sent.
func (c *Conn) begin(ctx context.Context, req *Request) (context.Context, func(result any, err error) *wireResponse) {
	rctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	f := c.inflight[req.ID]
	f.cancel = cancel
	if f.cancelled { // cancelled between admission and start
		cancel()
	}
	c.mu.Unlock()
	return rctx, func(result any, err error) *wireResponse {
		c.mu.Lock()
		delete(c.inflight, req.ID)
		cancelled := f.cancelled
		c.mu.Unlock()
		cancel()
		if f.release != nil {
			f.release()
		}
		if cancelled {
			c.srv.log.Debug("suppress response of cancelled request", "id", req.ID.String(), "method", req.Method)
			return nil
		}
		return response(req, result, err)
	}
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

// wireResponse is the JSON form of a response. Its members come in the
// order jsonrpc2 wrote them, which earlier releases sent: id, result or
// error, jsonrpc.
type wireResponse struct {
	ID      ID              `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
	JSONRPC string          `json:"jsonrpc"`
}

// response builds the response to req from a handler's outcome.
func response(req *Request, result any, err error) *wireResponse {
	resp := &wireResponse{ID: req.ID, JSONRPC: "2.0"}
	if err == nil {
		raw, merr := marshalResult(result)
		if merr != nil {
			err = Errorf(CodeInternalError, "Internal error: encode result of %s: %v", req.Method, merr)
		} else {
			resp.Result = raw
		}
	}
	if err != nil {
		resp.Error = toWire(err)
	}
	return resp
}

func errorResponse(req *Request, err *Error) *wireResponse {
	return response(req, nil, err)
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

func toWire(err error) *wireError {
	var e *Error
	if !errors.As(err, &e) {
		return &wireError{Code: CodeInternalError, Message: err.Error()}
	}
	we := &wireError{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		if b, merr := json.Marshal(e.Data); merr == nil {
			we.Data = b
		}
	}
	return we
}

// printfLogger adapts a *slog.Logger to jsonrpc2.Logger.
type printfLogger struct{ log *slog.Logger }

func (p printfLogger) Printf(format string, args ...any) {
	p.log.Info(strings.TrimSpace(fmt.Sprintf(format, args...)))
}
