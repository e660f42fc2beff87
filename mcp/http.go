// This file defines the Streamable HTTP transport (MCP revision 2025-11-25):
// one endpoint taking POST (one JSON-RPC message), GET (a stream of server
// messages) and DELETE (end the session), with sessions, the protocol
// version header, and the guards in front of them: Host and Origin checks,
// bearer tokens, a body size limit, and limits per client and in total.
// Every message is served by the same method table as stdio (see
// session.methods); this file only moves messages.

package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/foundryhq/foundry/jsonrpc"
)

// Endpoint is the path of the MCP endpoint; HealthPath answers supervisors.
const (
	Endpoint   = "/mcp"
	HealthPath = "/healthz"
)

// HTTP header names of the transport.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

// httpProtocolVersions are the values of the MCP-Protocol-Version header
// accepted after initialize: the revisions served, and 2025-03-26, the
// first revision of this transport, which the specification tells servers
// to assume when the header is missing (and which clients such as the
// conformance suite still send).
var httpProtocolVersions = append(slices.Clone(ProtocolVersions), "2025-03-26")

// Defaults of the HTTP transport.
const (
	DefaultMaxBodyBytes      = jsonrpc.DefaultMaxMessageBytes // a POST body carries one message
	DefaultTotalConcurrency  = 64
	DefaultTotalPerMinute    = 6000
	DefaultTotalBurst        = 1200
	DefaultMaxSessions       = 256
	DefaultSessionIdle       = time.Hour
	DefaultMaxStreams        = 16 // GET streams per session
	DefaultBodyReadTimeout   = 30 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	defaultKeepAlive         = 25 * time.Second
	streamBuffer             = 64 // queued messages per GET stream
	sessionIDBytes           = 32
	anonymousClient          = "anonymous"
	bearerPrefix             = "bearer "
	contentTypeJSON          = "application/json"
	contentTypeEventStream   = "text/event-stream"
	maxAuthorizationHeader   = 4 << 10
	wwwAuthenticate          = `Bearer realm="foundry"`
	wwwAuthenticateWrongCred = `Bearer realm="foundry", error="invalid_token"`
)

// Token is one accepted bearer token, known by its SHA-256 hash only.
type Token struct {
	// Name identifies the token in logs and audit lines.
	Name string
	// Scopes narrow the server's enabled scopes for the token's sessions;
	// nil keeps them all.
	Scopes []string
	// SHA256 is the hash of the token.
	SHA256 [sha256.Size]byte
}

// HTTPOptions configure [NewHTTPHandler].
type HTTPOptions struct {
	// Options govern every session as they govern a stdio server. Their
	// MaxConcurrency, RequestsPerMinute and Burst apply per client (per
	// token, or to all anonymous sessions together): seed 003's per-client
	// limit. MaxConcurrency counts a client's POSTs from before their
	// bodies are read until they are answered; one over it is answered
	// 429 without its body being read.
	Options
	// Tokens are the accepted bearer tokens. Without any, requests need no
	// token; the caller decides when that is allowed.
	Tokens []Token
	// LiveTokens, when set, follows the accepted tokens after Tokens, the
	// set at start: it is asked before each request is authenticated, and
	// gives the tokens accepted now and whether they changed since it was
	// last asked, so that a token made or revoked applies from the next
	// request. When they change, the sessions of a token no longer
	// accepted as it was (revoked, or given other scopes) end, and so do
	// the anonymous sessions once a token is needed. An error refuses
	// every request (503) until it is asked again with success, and ends
	// no session until then. With no
	// token accepted, requests need none when OpenWithoutTokens is set and
	// are all refused (401) when it is not.
	LiveTokens        func() (tokens []Token, changed bool, err error)
	OpenWithoutTokens bool
	// AllowedHosts lists the accepted Host header values (host:port,
	// compared without case); empty accepts any Host.
	AllowedHosts []string
	// AllowedOrigins lists the accepted Origin header values
	// (scheme://host[:port]); a request without Origin is always accepted.
	AllowedOrigins []string
	// TotalConcurrency, TotalRequestsPerMinute and TotalBurst limit the
	// requests of all clients together (defaults 64, 6000 and 1200; a
	// negative value disables the limit). TotalConcurrency counts POSTs as
	// MaxConcurrency does; one over it is answered 503.
	TotalConcurrency       int
	TotalRequestsPerMinute int
	TotalBurst             int
	// MaxBodyBytes caps a POST body (default 8 MiB); a larger one is
	// answered 413 without being read whole.
	MaxBodyBytes int64
	// BodyReadTimeout bounds the reading of one POST body (default 30s).
	BodyReadTimeout time.Duration
	// WriteTimeout bounds the writing of one answer, and of each event of
	// a stream (default 30s): a client that stops reading ends its
	// request then, which frees its handler and its concurrency slot.
	WriteTimeout time.Duration
	// MaxSessions caps the open sessions (default 256); SessionIdle ends a
	// session unused for that long (default 1h), as measured by
	// [Options.Now].
	MaxSessions int
	SessionIdle time.Duration
	// MaxClientSessions caps the open sessions of one client (one token,
	// or the anonymous client of a daemon without tokens), so that one
	// client cannot hold all MaxSessions and lock the others out: sessions
	// with an open GET stream are never reaped. A client at its cap that
	// opens one more ends its least recently used session idle for ten
	// minutes (no request being served, no stream) to make room, as agents
	// that exit without DELETE leave theirs; it is refused when there is
	// none. The default is a quarter of MaxSessions, at least 1; while no
	// token is accepted and requests need none, where every request is
	// the one anonymous client, it is MaxSessions.
	MaxClientSessions int
	// MaxClientStreams caps the GET streams one client holds open across
	// its sessions (each session holds at most 16): every stream holds a
	// connection and a descriptor. The default is MaxClientSessions, at
	// least 16.
	MaxClientStreams int
	// KeepAlive is the interval of comment lines on idle GET streams
	// (default 25s).
	KeepAlive time.Duration
}

// HTTPHandler serves MCP's Streamable HTTP transport on [Endpoint] and a
// health check on [HealthPath]. All its sessions share the registry, and so
// the warm project state behind it.
type HTTPHandler struct {
	opts  HTTPOptions
	log   *slog.Logger
	total *limits
	known map[string]bool // scopes the server enables
	table *jsonrpc.Server // the method table, to tell unknown methods
	era   *session        // tells a POSTed request's era (httpEra)
	audit io.Writer

	mu       sync.Mutex
	tokens   []Token // accepted now
	tokenErr error   // why no token can be accepted now (LiveTokens)
	clients  map[string]*limits
	sessions map[string]*httpSession
	opened   map[string]int             // open sessions by client
	streams  map[string]int             // open GET streams by client
	modern   map[string]*jsonrpc.Server // the method tables of stateless requests, by client
	closed   bool
	stop     chan struct{}
	posts    int        // POST requests being served
	idle     *sync.Cond // signalled when posts drops to 0
}

// NewHTTPHandler checks opts and returns the handler. Call
// [HTTPHandler.Close] when the server has stopped.
func NewHTTPHandler(opts HTTPOptions) (*HTTPHandler, error) {
	probe, err := newSession(opts.Options)
	if err != nil {
		return nil, err
	}
	for _, t := range opts.Tokens {
		for _, sc := range t.Scopes {
			if !probe.reg.scopes()[sc] {
				return nil, fmt.Errorf("serve mcp: token %s: unknown scope %q (known: %s)", t.Name, sc, strings.Join(sortedKeys(probe.reg.scopes()), ", "))
			}
		}
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.BodyReadTimeout <= 0 {
		opts.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	// MaxClientSessions and MaxClientStreams, when not given, follow the
	// tokens (see clientSessions).
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = defaultKeepAlive
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &HTTPHandler{
		opts:     opts,
		log:      probe.log,
		total:    newLimits("all clients", opts.TotalConcurrency, DefaultTotalConcurrency, opts.TotalRequestsPerMinute, DefaultTotalPerMinute, opts.TotalBurst, DefaultTotalBurst),
		known:    probe.policy.scopes,
		table:    probe.rpcServer(jsonrpc.Options{}),
		era:      probe,
		clients:  map[string]*limits{},
		sessions: map[string]*httpSession{},
		opened:   map[string]int{},
		streams:  map[string]int{},
		modern:   map[string]*jsonrpc.Server{},
		stop:     make(chan struct{}),
		tokens:   opts.Tokens,
	}
	h.idle = sync.NewCond(&h.mu)
	if opts.Audit != nil {
		h.audit = &lockedWriter{w: opts.Audit}
	}
	go h.reap()
	return h, nil
}

// lockedWriter serialises the audit lines of all sessions.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// limits is a concurrency cap and a rate limit shared by requests.
type limits struct {
	who      string
	max      int // 0: no cap
	inflight int
	rate     *rate.Limiter // nil: no limit
	mu       sync.Mutex
}

func newLimits(who string, max, defMax, perMin, defPerMin, burst, defBurst int) *limits {
	l := &limits{who: who}
	switch {
	case max == 0:
		l.max = defMax
	case max > 0:
		l.max = max
	}
	if perMin >= 0 {
		if perMin == 0 {
			perMin = defPerMin
		}
		if burst <= 0 {
			burst = defBurst
		}
		l.rate = rate.NewLimiter(rate.Limit(float64(perMin)/60), burst)
	}
	return l
}

// enter takes a slot of the concurrency cap, or says why not.
func (l *limits) enter() (release func(), err *jsonrpc.Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.inflight >= l.max {
		return nil, jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Server overloaded: %d requests of %s already in flight; retry later", l.max, l.who)
	}
	l.inflight++
	return func() {
		l.mu.Lock()
		l.inflight--
		l.mu.Unlock()
	}, nil
}

// reserve takes a rate token, or says why not; undo gives it back.
func (l *limits) reserve(now time.Time) (undo func(), err *jsonrpc.Error) {
	if l.rate == nil {
		return func() {}, nil
	}
	r := l.rate.ReserveN(now, 1)
	if !r.OK() || r.DelayFrom(now) > 0 {
		r.CancelAt(now)
		return nil, jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Rate limit of %s exceeded; retry later", l.who)
	}
	return func() { r.CancelAt(now) }, nil
}

// enter takes a slot of a client's concurrency cap and one of the total
// cap for a POST, before its body is read, or answers 429 (the client's
// cap) or 503 (the total) without reading it: a body may be MaxBodyBytes,
// and one read before the caps apply would let a client hold as many as
// it opens connections. The slots are held until the POST is answered,
// its dispatch included, which therefore takes none (see admit).
func (h *HTTPHandler) enter(w http.ResponseWriter, client *limits) (release func(), ok bool) {
	relClient, err := client.enter()
	status := http.StatusTooManyRequests
	if err == nil {
		var relTotal func()
		if relTotal, err = h.total.enter(); err == nil {
			return func() { relTotal(); relClient() }, true
		}
		relClient()
		status = http.StatusServiceUnavailable
	}
	h.log.Debug("refuse request: concurrency cap", "client", client.who, "status", status)
	httpErrorCode(w, status, err.Code, err.Message)
	return nil, false
}

// admit applies the rate limits of a client and the total ones to a
// request. Their concurrency caps were applied to its POST (see enter).
func (h *HTTPHandler) admit(client *limits) func(*jsonrpc.Request) (func(), *jsonrpc.Error) {
	return func(*jsonrpc.Request) (func(), *jsonrpc.Error) {
		now := time.Now()
		undoClient, err := client.reserve(now)
		if err != nil {
			return nil, err
		}
		if _, err := h.total.reserve(now); err != nil {
			undoClient()
			return nil, err
		}
		return nil, nil
	}
}

func (h *HTTPHandler) clientLimits(name string) *limits {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.clients[name]
	if l == nil {
		o := h.opts.Options
		l = newLimits("client "+name, o.MaxConcurrency, DefaultMaxConcurrency, o.RequestsPerMinute, DefaultRequestsPerMinute, o.Burst, DefaultBurst)
		h.clients[name] = l
	}
	return l
}

// httpSession is one MCP session: its dispatcher connection and its GET
// streams.
type httpSession struct {
	id     string
	client string
	conn   *jsonrpc.Conn
	now    func() time.Time // the handler's clock of idleness

	mu       sync.Mutex
	streams  []*sseStream
	lastUsed time.Time
	active   int // requests being served
	ended    bool
}

// idleSince returns when the session was last used, and whether it is
// idle: no request being served, no stream open.
func (s *httpSession) idleSince() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUsed, s.active == 0 && len(s.streams) == 0
}

// touch records a use of the session; done ends it.
func (s *httpSession) touch() (done func()) {
	s.mu.Lock()
	s.active++
	s.lastUsed = s.now()
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.active--
		s.lastUsed = s.now()
		s.mu.Unlock()
	}
}

// unsolicited sends a message that belongs to no request on the newest
// GET stream; without one it is dropped, as the transport allows.
func (s *httpSession) unsolicited(_ context.Context, msg []byte) error {
	s.mu.Lock()
	var st *sseStream
	if n := len(s.streams); n > 0 {
		st = s.streams[n-1]
	}
	s.mu.Unlock()
	if st == nil {
		return errors.New("no open stream")
	}
	select {
	case st.queue <- msg:
		return nil
	default:
		return errors.New("stream is full")
	}
}

// end closes the session's streams and its connection (cancelling the
// requests in flight) once.
func (s *httpSession) end() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	streams := s.streams
	s.streams = nil
	s.mu.Unlock()
	for _, st := range streams {
		st.close()
	}
	s.conn.Close()
}

// sseStream is one open GET stream.
type sseStream struct {
	queue chan []byte
	once  sync.Once
	done  chan struct{}
}

func (st *sseStream) close() { st.once.Do(func() { close(st.done) }) }

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != http.NoBody {
		// A body is read within BodyReadTimeout or not at all: an answer
		// given without reading it (a refusal) closes the connection (see
		// httpError), and this deadline bounds what net/http would read
		// of it otherwise, so a client that never sends the body it
		// announced cannot hold the connection. readBody lifts it once
		// the body is read, for the stream that may answer.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.opts.BodyReadTimeout))
	}
	if !h.hostAllowed(r.Host) {
		h.log.Warn("refuse request: Host not allowed", "host", jsonrpc.Cut(r.Host, maxLoggedHeader), "remote", r.RemoteAddr)
		httpError(w, http.StatusForbidden, "Forbidden: Host header not allowed")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin) {
		h.log.Warn("refuse request: Origin not allowed", "origin", jsonrpc.Cut(origin, maxLoggedHeader), "remote", r.RemoteAddr)
		httpError(w, http.StatusForbidden, "Forbidden: Origin not allowed")
		return
	}
	switch r.URL.Path {
	case HealthPath:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			httpError(w, http.StatusMethodNotAllowed, "Method not allowed")
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
		return
	case Endpoint:
	default:
		httpError(w, http.StatusNotFound, "Not found: the MCP endpoint is "+Endpoint)
		return
	}
	tok, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.mu.Lock()
		h.posts++
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			if h.posts--; h.posts == 0 {
				h.idle.Broadcast()
			}
			h.mu.Unlock()
		}()
		h.post(w, r, tok)
	case http.MethodGet:
		h.get(w, r, tok)
	case http.MethodDelete:
		h.delete(w, r, tok)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "Method not allowed")
	}
}

// maxLoggedHeader bounds the Host or Origin value a refusal logs: the
// refusal comes before authentication, and a header may be 64 KiB.
const maxLoggedHeader = 256

// httpError answers with a JSON-RPC error object without id, which the
// transport allows as the body of an HTTP error, and closes the
// connection: most errors answer before the request's body is read, and
// net/http would otherwise read what is left of it first, for as long as
// the client takes to send it.
func httpError(w http.ResponseWriter, status int, msg string) {
	code := int64(jsonrpc.CodeInvalidRequest)
	if status == http.StatusInternalServerError {
		code = jsonrpc.CodeInternalError
	}
	httpErrorCode(w, status, code, msg)
}

// httpErrorCode is httpError with a JSON-RPC error code of the caller's.
func httpErrorCode(w http.ResponseWriter, status int, code int64, msg string) {
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Type", contentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.EncodeError(code, msg))
}

func (h *HTTPHandler) hostAllowed(host string) bool {
	if len(h.opts.AllowedHosts) == 0 {
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

func (h *HTTPHandler) originAllowed(origin string) bool {
	origin = strings.TrimSuffix(origin, "/")
	for _, a := range h.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}

// authenticate returns the token the request carries, or answers 401. The
// token is hashed and compared with every configured hash in constant
// time, so neither a match nor its position shows in the timing. Without
// configured tokens every request is anonymous.
func (h *HTTPHandler) authenticate(w http.ResponseWriter, r *http.Request) (*Token, bool) {
	tokens, err := h.accepted()
	switch {
	case err != nil:
		httpError(w, http.StatusServiceUnavailable, "Service unavailable: the server's config or token file, as they are now, do not let it serve; its log says why")
		return nil, false
	case len(tokens) == 0 && h.anonymous():
		return nil, true
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		w.Header().Set("WWW-Authenticate", wwwAuthenticate)
		httpError(w, http.StatusUnauthorized, "Unauthorized: a bearer token is required")
		return nil, false
	}
	var sum [sha256.Size]byte
	if len(auth) > len(bearerPrefix) && len(auth) <= maxAuthorizationHeader && strings.EqualFold(auth[:len(bearerPrefix)], bearerPrefix) {
		sum = sha256.Sum256([]byte(strings.TrimSpace(auth[len(bearerPrefix):])))
	}
	var found *Token
	for i := range tokens {
		if subtle.ConstantTimeCompare(sum[:], tokens[i].SHA256[:]) == 1 && found == nil {
			found = &tokens[i]
		}
	}
	if found == nil {
		h.log.Warn("refuse request: wrong bearer token", "remote", r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", wwwAuthenticateWrongCred)
		httpError(w, http.StatusUnauthorized, "Unauthorized: the bearer token is not valid")
		return nil, false
	}
	return found, true
}

// clientSessions and clientStreams are the bounds of one client's
// sessions and GET streams (see MaxClientSessions, MaxClientStreams): the
// defaults follow the tokens accepted now. h.mu is held.
func (h *HTTPHandler) clientSessions() int {
	switch {
	case h.opts.MaxClientSessions > 0:
		return h.opts.MaxClientSessions
	case len(h.tokens) == 0 && h.anonymous():
		return h.opts.MaxSessions
	}
	return max(h.opts.MaxSessions/4, 1)
}

func (h *HTTPHandler) clientStreams() int {
	if h.opts.MaxClientStreams > 0 {
		return h.opts.MaxClientStreams
	}
	return max(h.clientSessions(), DefaultMaxStreams)
}

// anonymous reports whether requests need no token when none is
// configured: always without LiveTokens (the caller decided), else when
// OpenWithoutTokens allows it.
func (h *HTTPHandler) anonymous() bool {
	return h.opts.LiveTokens == nil || h.opts.OpenWithoutTokens
}

// accepted returns the tokens accepted now. With LiveTokens it asks for
// them, and applies a change: the sessions it ends are those of tokens no
// longer accepted as they were. The question and the change are made
// under h.mu, so a session opens, or a stream or a stateless method table
// is made, for a token accepted at that moment only (see [valid]).
func (h *HTTPHandler) accepted() ([]Token, error) {
	if h.opts.LiveTokens == nil {
		return h.tokens, nil // fixed: never written
	}
	h.mu.Lock()
	tokens, changed, err := h.opts.LiveTokens()
	var ended []*httpSession
	if changed {
		ended = h.retire(tokens, err)
	}
	h.mu.Unlock()
	for _, s := range ended {
		s.end()
	}
	return tokens, err
}

// retire makes tokens the accepted ones, and drops the sessions and
// stateless method tables of every client whose token is no longer
// accepted as it was, returning the sessions to end. An error refuses
// every request until the tokens read again, but ends no session: a
// config caught half written, or mistyped for a moment, must not end every
// agent's session; those of the tokens gone end once it reads again.
// h.mu is held.
func (h *HTTPHandler) retire(tokens []Token, err error) []*httpSession {
	if err != nil {
		if h.tokenErr == nil {
			h.log.Error("refuse every request until the config or token file is fixed", "err", err)
		} else {
			h.log.Error("refuse every request: the config or token file is still not one to serve with", "err", err)
		}
		h.tokenErr = err
		return nil
	}
	if h.tokenErr != nil {
		h.log.Info("serving again: config and token file read", "tokens", tokenNames(tokens))
		h.tokenErr = nil
	}
	old := h.tokens
	h.tokens = tokens
	gone := map[string]bool{}
	if len(old) == 0 && h.anonymous() && len(tokens) > 0 {
		gone[anonymousClient] = true
	}
	for _, t := range old {
		if !slices.ContainsFunc(tokens, t.same) {
			gone[t.Name] = true
		}
	}
	for _, t := range tokens {
		if !slices.ContainsFunc(old, t.same) {
			h.log.Info("bearer token accepted", "client", t.Name)
		}
	}
	if len(tokens) == 0 && len(old) > 0 {
		if h.anonymous() {
			h.log.Warn("no bearer token is configured any more: requests need none")
		} else {
			h.log.Warn("no bearer token is configured any more: every request is refused until one is made (foundry mcp token new NAME)")
		}
	}
	var ended []*httpSession
	for name := range gone {
		delete(h.modern, name)
		n := 0
		for _, s := range h.sessions {
			if s.client == name {
				h.drop(s)
				ended = append(ended, s)
				n++
			}
		}
		if name != anonymousClient {
			h.log.Info("bearer token no longer accepted as it was", "client", name, "sessions_ended", n)
		} else if n > 0 {
			h.log.Info("a bearer token is needed now", "client", name, "sessions_ended", n)
		}
	}
	return ended
}

// valid reports whether a request authenticated with tok (nil: without
// one) would still be: the tokens may have changed since. h.mu is held.
func (h *HTTPHandler) valid(tok *Token) bool {
	if h.opts.LiveTokens == nil {
		return true
	}
	if tok == nil {
		return h.tokenErr == nil && len(h.tokens) == 0 && h.anonymous()
	}
	return h.tokenErr == nil && slices.ContainsFunc(h.tokens, tok.same)
}

// same reports whether two tokens are one: name, hash and scopes.
func (t Token) same(u Token) bool {
	return t.Name == u.Name && t.SHA256 == u.SHA256 && slices.Equal(t.Scopes, u.Scopes)
}

func tokenNames(tokens []Token) []string {
	names := make([]string, len(tokens))
	for i, t := range tokens {
		names[i] = t.Name
	}
	return names
}

func clientName(tok *Token) string {
	if tok == nil {
		return anonymousClient
	}
	return tok.Name
}

// session finds the session a request names, or answers 400 or 404.
func (h *HTTPHandler) session(w http.ResponseWriter, r *http.Request, tok *Token) *httpSession {
	id := r.Header.Get(headerSession)
	if id == "" {
		httpError(w, http.StatusBadRequest, "Bad request: the "+headerSession+" header is required after initialize")
		return nil
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	// A session opened with another token is as unknown as one never
	// opened: its id tells nothing to a client that does not own it.
	if s == nil || s.client != clientName(tok) {
		httpError(w, http.StatusNotFound, "Not found: unknown or ended session; initialize a new one")
		return nil
	}
	return s
}

// checkProtocol answers 400 when the MCP-Protocol-Version header names a
// revision this transport does not serve.
func checkProtocol(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get(headerProtocol)
	if v == "" || slices.Contains(httpProtocolVersions, v) {
		return true
	}
	httpError(w, http.StatusBadRequest, fmt.Sprintf("Bad request: unsupported %s %q (supported: %s)", headerProtocol, v, strings.Join(httpProtocolVersions, ", ")))
	return false
}

// readBody reads a POST body of at most MaxBodyBytes, or answers 413
// without reading the rest.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	max := h.opts.MaxBodyBytes
	tooLarge := func() {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request entity too large: the body exceeds the %d-byte limit", max))
	}
	if r.ContentLength > max {
		tooLarge()
		return nil, false
	}
	// The body has its own deadline, set when the request came (see
	// ServeHTTP): a server-wide read timeout would also cut the long GET
	// streams. It is lifted once the body is read, and kept when it is
	// not.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err == nil {
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		tooLarge()
		return nil, false
	case err != nil:
		httpError(w, http.StatusBadRequest, "Bad request: read body: "+err.Error())
		return nil, false
	}
	return body, true
}

func accepts(r *http.Request, mime string) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			t, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if t = strings.ToLower(strings.TrimSpace(t)); t == mime || t == "*/*" {
				return true
			}
		}
	}
	return false
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request, tok *Token) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), contentTypeJSON) {
		httpError(w, http.StatusUnsupportedMediaType, "Unsupported media type: a POST body is one JSON-RPC message of type "+contentTypeJSON)
		return
	}
	release, ok := h.enter(w, h.clientLimits(clientName(tok)))
	if !ok {
		return
	}
	defer release()
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	req, reply, err := jsonrpc.Parse(body)
	if err != nil {
		w.Header().Set("Content-Type", contentTypeJSON)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(reply)
		return
	}
	modern := false
	if req != nil && !req.Notification {
		var status int
		var rerr *jsonrpc.Error
		if modern, status, rerr = h.era.httpEra(r.Header, req); rerr != nil {
			w.Header().Set("Content-Type", contentTypeJSON)
			w.WriteHeader(status)
			_, _ = w.Write(jsonrpc.ErrorResponse(req, rerr))
			return
		}
	}
	var s *httpSession
	opening := req != nil && req.Method == "initialize" && !req.Notification && r.Header.Get(headerSession) == ""
	if opening {
		if s = h.open(w, tok); s == nil {
			return
		}
	} else if modern || (r.Header.Get(headerSession) == "" && r.Header.Get(headerProtocol) == ModernProtocolVersion) {
		// Revision 2026-07-28 has no sessions: each request carries its
		// era in _meta and is served on a connection of its own, by the
		// same dispatcher; a session id is ignored.
		if s, err = h.stateless(tok); err != nil {
			httpError(w, http.StatusInternalServerError, "Internal error: "+err.Error())
			return
		}
		defer s.conn.Close()
	} else {
		if req != nil && !req.Notification && r.Header.Get(headerSession) == "" {
			h.sessionless(w, req)
			return
		}
		if s = h.session(w, r, tok); s == nil || !checkProtocol(w, r) {
			return
		}
	}
	done := s.touch()
	defer done()
	if req == nil || req.Notification { // a response, or a notification
		if req != nil {
			s.conn.Deliver(r.Context(), req, nil)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The initialize that opens a session is answered as JSON even when it
	// asks for progress (it sends none): the session id header, and the
	// forgetting of a session whose initialize failed, both depend on the
	// outcome, which a stream's headers are sent before.
	if !opening && wantsProgress(req) && accepts(r, contentTypeEventStream) {
		h.postStream(w, r, s, req)
		return
	}
	resp := s.conn.Deliver(r.Context(), req, nil)
	if opening {
		if failed(resp) {
			h.forget(s)
		} else {
			w.Header().Set(headerSession, s.id)
		}
	}
	if resp == nil { // cancelled: no response is owed
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	h.writeBy(w)
	_, _ = w.Write(resp)
}

// writeBy gives what is written next to w WriteTimeout from now: a client
// that stops reading would otherwise hold the handler, and the slot of its
// POST, for as long as its connection stays open. The server sets no
// write timeout of its own, which would cut the long streams.
func (h *HTTPHandler) writeBy(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(h.opts.WriteTimeout))
}

// sessionless refuses a request other than initialize that comes without
// a session, with a JSON-RPC error carrying its id: 404 and -32601 for a
// method this server does not know (a dual-era client's server/discover
// probe then falls back to initialize), else 400.
func (h *HTTPHandler) sessionless(w http.ResponseWriter, req *jsonrpc.Request) {
	status, err := http.StatusBadRequest, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Bad request: the %s header is required after initialize", headerSession)
	if !h.table.Handles(req.Method) {
		status, err = http.StatusNotFound, jsonrpc.MethodNotFound(req.Method)
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.ErrorResponse(req, err))
}

// stateless returns a connection for one request of revision 2026-07-28,
// which has no session: each request is served on its own connection, so
// that the JSON-RPC ids of different agents sharing a token (or sharing no
// token) never meet, and one agent cannot cancel another's call by its id
// (on HTTP, closing the response stream is the cancellation). The
// connections of a client share one method table, built on first use,
// with its scopes, audit and limits. Close the connection once the request
// is answered.
func (h *HTTPHandler) stateless(tok *Token) (*httpSession, error) {
	name := clientName(tok)
	h.mu.Lock()
	rpc := h.modern[name]
	h.mu.Unlock()
	if rpc == nil {
		r, err := h.newServer(tok)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		if rpc = h.modern[name]; rpc == nil {
			rpc = r
			if h.valid(tok) {
				h.modern[name] = r
			}
		}
		h.mu.Unlock()
	}
	return &httpSession{client: name, conn: rpc.Open(nil), now: h.opts.Now, lastUsed: h.opts.Now()}, nil
}

// wantsProgress reports whether a request asked for progress
// notifications, or (revision 2026-07-28) for log messages, which only a
// stream can carry before the response.
func wantsProgress(req *jsonrpc.Request) bool {
	if req.Params == nil {
		return false
	}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			LogLevel      json.RawMessage `json:"io.modelcontextprotocol/logLevel"`
		} `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	t := bytes.TrimSpace(p.Meta.ProgressToken)
	return len(t) > 0 && string(t) != "null" || len(p.Meta.LogLevel) > 0
}

func failed(resp []byte) bool {
	var m struct {
		Error json.RawMessage `json:"error"`
	}
	return resp == nil || json.Unmarshal(resp, &m) != nil || m.Error != nil
}

// postStream answers a request with an SSE stream: the notifications its
// handler sends, then the response.
func (h *HTTPHandler) postStream(w http.ResponseWriter, r *http.Request, s *httpSession, req *jsonrpc.Request) {
	rc := http.NewResponseController(w)
	setStreamHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	h.writeBy(w)
	_ = rc.Flush()
	var mu sync.Mutex
	write := func(msg []byte) error {
		mu.Lock()
		defer mu.Unlock()
		h.writeBy(w)
		if err := writeEvent(w, msg); err != nil {
			return err
		}
		return rc.Flush()
	}
	resp := s.conn.Deliver(r.Context(), req, func(_ context.Context, msg []byte) error { return write(msg) })
	if resp != nil {
		if err := write(resp); err != nil {
			h.log.Debug("write response event", "err", err)
		}
	}
}

// setStreamHeaders sets the headers of an SSE response. X-Accel-Buffering
// keeps reverse proxies such as nginx from holding events back, as MCP
// 2026-07-28 (Streamable HTTP, Receiving Messages) asks of a server.
func setStreamHeaders(h http.Header) {
	h.Set("Content-Type", contentTypeEventStream)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
}

func writeEvent(w io.Writer, msg []byte) error {
	_, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
	return err
}

// newSession makes the state of one session of a client: its own log
// level and connection over the shared registry, its client's limits.
func (h *HTTPHandler) newSession(tok *Token) (*httpSession, error) {
	rpc, err := h.newServer(tok)
	if err != nil {
		return nil, err
	}
	s := &httpSession{client: clientName(tok), now: h.opts.Now, lastUsed: h.opts.Now()}
	s.conn = rpc.Open(s.unsolicited)
	return s, nil
}

// newServer makes the method table that serves a client: a session over
// the shared registry with the client's scopes, the shared audit log and
// the client's limits.
func (h *HTTPHandler) newServer(tok *Token) (*jsonrpc.Server, error) {
	name := clientName(tok)
	o := h.opts.Options
	o.Scopes = h.scopesFor(tok)
	// The limits are those of the client and the total (admit); the
	// session's own would count only itself.
	o.MaxConcurrency, o.RequestsPerMinute, o.Limiter = -1, -1, nil
	o.Audit = h.audit
	sess, err := newSession(o)
	if err != nil { // NewHTTPHandler checked the same options
		return nil, err
	}
	if sess.audit != nil {
		sess.audit.token = name
	}
	return sess.rpcServer(jsonrpc.Options{
		Admit:    h.admit(h.clientLimits(name)),
		Logger:   sess.log,
		Trace:    o.Trace,
		Redact:   redactText,
		Rejected: sess.rejected,
	}), nil
}

// open starts a session for an initialize request, or answers 503 when
// MaxSessions are open, 429 when the client has MaxClientSessions open.
func (h *HTTPHandler) open(w http.ResponseWriter, tok *Token) *httpSession {
	id, err := newSessionID()
	var s *httpSession
	if err == nil {
		s, err = h.newSession(tok)
	}
	if err != nil {
		httpError(w, http.StatusInternalServerError, "Internal error: "+err.Error())
		return nil
	}
	s.id = id
	var evicted *httpSession
	defer func() {
		if evicted != nil {
			h.log.Info("session ended to make room for the client's new one", "client", evicted.client)
			evicted.end()
		}
	}()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		httpError(w, http.StatusServiceUnavailable, "Service unavailable: the server is shutting down")
		return nil
	}
	if !h.valid(tok) {
		httpError(w, http.StatusUnauthorized, "Unauthorized: the bearer token is not valid")
		return nil
	}
	if h.opened[s.client] >= h.clientSessions() {
		if evicted = h.leastRecentIdle(s.client); evicted != nil {
			h.drop(evicted)
		}
	}
	switch {
	case len(h.sessions) >= h.opts.MaxSessions:
		httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("Service unavailable: %d sessions are open; end one (DELETE) or retry later", h.opts.MaxSessions))
		return nil
	case h.opened[s.client] >= h.clientSessions():
		h.log.Debug("refuse session: client bound", "client", s.client, "sessions", h.opened[s.client])
		httpError(w, http.StatusTooManyRequests, fmt.Sprintf("Too many requests: client %s has %d sessions open, the bound of one client; end one (DELETE) or retry later", s.client, h.clientSessions()))
		return nil
	}
	h.sessions[id] = s
	h.opened[s.client]++
	h.log.Info("session opened", "client", s.client)
	return s
}

// evictIdle is how long a session must have been idle (no request being
// served, no stream) before its client's new session may end it: longer
// than an agent thinks between two calls, much shorter than the hour
// after which the reaper ends it anyway (SessionIdle, when shorter).
const evictIdle = 10 * time.Minute

// leastRecentIdle returns the client's session unused for the longest time
// among those with no request being served and no stream for evictIdle,
// nil when there is none. The caller holds h.mu.
func (h *HTTPHandler) leastRecentIdle(client string) *httpSession {
	var oldest *httpSession
	var since time.Time
	before := h.opts.Now().Add(-min(evictIdle, h.opts.SessionIdle))
	for _, s := range h.sessions {
		if s.client != client {
			continue
		}
		used, idle := s.idleSince()
		if idle && !used.After(before) && (oldest == nil || used.Before(since)) {
			oldest, since = s, used
		}
	}
	return oldest
}

// scopesFor narrows the server's enabled scopes to a token's.
func (h *HTTPHandler) scopesFor(tok *Token) []string {
	out := []string{}
	for sc := range h.known {
		if tok == nil || tok.Scopes == nil || slices.Contains(tok.Scopes, sc) {
			out = append(out, sc)
		}
	}
	slices.Sort(out)
	return out
}

func newSessionID() (string, error) {
	b := make([]byte, sessionIDBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make session id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// forget removes a session and ends it.
func (h *HTTPHandler) forget(s *httpSession) {
	h.mu.Lock()
	h.drop(s)
	h.mu.Unlock()
	s.end()
}

// drop removes a session from the open ones, once; h.mu is held.
func (h *HTTPHandler) drop(s *httpSession) {
	if h.sessions[s.id] != s {
		return // already removed, by the reaper or a DELETE
	}
	delete(h.sessions, s.id)
	countDown(h.opened, s.client)
}

// countDown takes one from a client's count, and the client from counts
// at none, so the per-client counts hold only the clients that hold
// something. The caller holds h.mu.
func countDown(counts map[string]int, client string) {
	if counts[client]--; counts[client] <= 0 {
		delete(counts, client)
	}
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request, tok *Token) {
	s := h.session(w, r, tok)
	if s == nil || !checkProtocol(w, r) {
		return
	}
	h.forget(s)
	h.log.Info("session ended by the client", "client", s.client)
	w.WriteHeader(http.StatusNoContent)
}

// get opens an SSE stream for the server's messages that belong to no
// request. Several may be open at once; each message goes to one.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request, tok *Token) {
	if !accepts(r, contentTypeEventStream) {
		httpError(w, http.StatusNotAcceptable, "Not acceptable: a GET opens a "+contentTypeEventStream+" stream")
		return
	}
	s := h.session(w, r, tok)
	if s == nil || !checkProtocol(w, r) {
		return
	}
	st := &sseStream{queue: make(chan []byte, streamBuffer), done: make(chan struct{})}
	s.mu.Lock()
	if s.ended || len(s.streams) >= DefaultMaxStreams {
		s.mu.Unlock()
		httpError(w, http.StatusTooManyRequests, fmt.Sprintf("Too many requests: %d streams are open in this session", DefaultMaxStreams))
		return
	}
	s.streams = append(s.streams, st)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.streams = slices.DeleteFunc(s.streams, func(x *sseStream) bool { return x == st })
		s.lastUsed = s.now()
		s.mu.Unlock()
	}()
	// Checked once the stream is listed, as Shutdown marks the handler
	// closed before it ends the listed streams: a stream either sees the
	// mark here or is listed in time to be ended, and none opened during
	// a shutdown holds it up until its timeout.
	h.mu.Lock()
	closed, open, valid, bound := h.closed, h.streams[s.client], h.valid(tok), h.clientStreams()
	if !closed && valid && open < bound {
		h.streams[s.client]++
		defer func() {
			h.mu.Lock()
			countDown(h.streams, s.client)
			h.mu.Unlock()
		}()
	}
	h.mu.Unlock()
	switch {
	case closed:
		httpError(w, http.StatusServiceUnavailable, "Service unavailable: the server is shutting down")
		return
	case !valid:
		httpError(w, http.StatusNotFound, "Not found: unknown or ended session; initialize a new one")
		return
	case open >= bound:
		httpError(w, http.StatusTooManyRequests, fmt.Sprintf("Too many requests: client %s has %d streams open, the bound of one client; close one or retry later", s.client, bound))
		return
	}

	rc := http.NewResponseController(w)
	setStreamHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	h.writeBy(w)
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(h.opts.KeepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-st.done:
			return
		case msg := <-st.queue:
			h.writeBy(w)
			err = writeEvent(w, msg)
		case <-tick.C:
			// A comment line keeps proxies and the client's read timeout
			// from cutting an idle stream.
			h.writeBy(w)
			_, err = io.WriteString(w, ": keep-alive\n\n")
		}
		if err != nil || rc.Flush() != nil {
			return
		}
	}
}

// Shutdown begins a graceful shutdown: no session opens any more, the
// POST requests in flight are answered, and then every GET stream ends, so
// that the server's own shutdown does not wait for them. Streams stay open
// until then because a client may treat the loss of its stream as the loss
// of its session, calls in flight included. http.Server.RegisterOnShutdown
// runs it.
func (h *HTTPHandler) Shutdown() {
	h.mu.Lock()
	h.closed = true
	for h.posts > 0 {
		h.idle.Wait()
	}
	sessions := make([]*httpSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		streams := s.streams
		s.mu.Unlock()
		for _, st := range streams {
			st.close()
		}
	}
}

// Close ends every session, cancelling what is still in flight in them,
// and stops the reaper of idle sessions. A stateless request (revision
// 2026-07-28) belongs to no session: it ends with its HTTP request.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	sessions := h.sessions
	h.sessions = map[string]*httpSession{}
	h.opened = map[string]int{}
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.end()
	}
}

// Sessions returns the number of open sessions.
func (h *HTTPHandler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// reap ends sessions left idle (no request, no stream) for SessionIdle.
// The ticker only paces the checks: idleness is measured by opts.Now, so
// a caller's clock decides when a session has idled long enough.
func (h *HTTPHandler) reap() {
	t := time.NewTicker(min(h.opts.SessionIdle/4, time.Minute))
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			now := h.opts.Now()
			var idle []*httpSession
			h.mu.Lock()
			for _, s := range h.sessions {
				if used, ok := s.idleSince(); ok && now.Sub(used) > h.opts.SessionIdle {
					idle = append(idle, s)
					h.drop(s) // deleting during range is allowed
				}
			}
			h.mu.Unlock()
			for _, s := range idle {
				h.log.Info("session ended after idling", "client", s.client, "idle", h.opts.SessionIdle)
				s.end()
			}
		}
	}
}
