// This file defines the server options, the Serve entry point and the
// lifecycle methods: initialize, ping, logging and cancellation.

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/foundryhq/foundry/jsonrpc"
)

// Instructions is returned by initialize when every tool it names is
// enabled; it is the seed's text verbatim.
const Instructions = "Foundry memory and contracts. Prefer memory_search over reading .foundry files. " +
	"Consult runbook_list before recurring tasks. Hand work between agents with blackboard_write, " +
	"returning only the artifact path and a short summary."

// instructionParts are the sentences of [Instructions] with the tool each
// names: a sentence is said only when its tool is enabled, so that the
// instructions never point a model at a tool it cannot call.
var instructionParts = []struct{ tool, text string }{
	{"", "Foundry memory and contracts."},
	{"memory_search", " Prefer memory_search over reading .foundry files."},
	{"runbook_list", " Consult runbook_list before recurring tasks."},
	{"blackboard_write", " Hand work between agents with blackboard_write, returning only the artifact path and a short summary."},
}

// instructions returns the sentences of [Instructions] whose tools this
// session exposes.
func (s *session) instructions() string {
	var b strings.Builder
	for _, p := range instructionParts {
		if p.tool != "" {
			t := s.reg.byName[p.tool]
			if t == nil {
				continue
			}
			if ok, _ := s.toolAvailable(t); !ok {
				continue
			}
		}
		b.WriteString(p.text)
	}
	return b.String()
}

// ServerName is the serverInfo name.
const ServerName = "foundry"

// Defaults of the session limits.
const (
	DefaultMaxConcurrency    = 16
	DefaultRequestsPerMinute = 600
	DefaultBurst             = 120
	DefaultPageSize          = 20
	MaxPageSize              = 100
)

// Limiter admits or rejects a request; *rate.Limiter satisfies it.
type Limiter interface {
	Allow() bool
}

// Options configure [Serve]. Registry is required; zero values of the
// other fields select the defaults.
type Options struct {
	// Registry holds the tools and resources to expose.
	Registry *Registry
	// Version is the serverInfo version.
	Version string
	// ReadOnly hides mutating tools from tools/list and tools/call.
	ReadOnly bool
	// Scopes enables only the listed scopes; nil enables every scope the
	// registry uses, an empty non-nil slice none. A scope the registry does
	// not know is an error. [ConfigOptions] applies seed 003's defaults.
	Scopes []string
	// Capabilities switches single capabilities on or off by name (a tool's
	// name, a resource's URI or URI template), as mcp.capabilities does;
	// an unknown name is an error. Switching one on never grants beyond
	// ReadOnly and Scopes.
	Capabilities map[string]bool
	// MaxConcurrency caps the requests in flight (default 16; negative: no
	// cap). Requests over the cap are rejected, not queued.
	MaxConcurrency int
	// RequestsPerMinute and Burst configure the rate limit (defaults 600
	// and 120; a negative RequestsPerMinute disables it). Requests over the
	// limit are rejected.
	RequestsPerMinute int
	Burst             int
	// Limiter, when set, replaces the limiter built from RequestsPerMinute
	// and Burst.
	Limiter Limiter
	// PageSize is the page length of list methods (default 20, at most 100).
	PageSize int
	// MaxMessageBytes caps one incoming message (default 8 MiB); a larger
	// one is rejected before dispatch.
	MaxMessageBytes int
	// Audit, when set, receives one JSON line per tools/call and
	// resources/read.
	Audit io.Writer
	// AuditWritesOnly limits the audit to calls of mutating tools: the
	// audit that seed 003 requires of every write even when mcp.audit is
	// false.
	AuditWritesOnly bool
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Trace, when set, receives every JSON-RPC message read or written
	// (--rpc-trace).
	Trace *slog.Logger
	// Now is the clock of audit records and, in an HTTP server, the clock
	// against which the reaper measures how long a session has been idle
	// (see [HTTPOptions.SessionIdle]); nil means time.Now.
	Now func() time.Time
}

// Serve speaks MCP over newline-delimited JSON-RPC on in and out until in
// ends (it then answers the requests in flight and returns nil) or ctx is
// done (it returns ctx's error). Nothing but protocol messages is written
// to out.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	s, err := newSession(opts)
	if err != nil {
		return err
	}
	rpc := s.rpcServer(jsonrpc.Options{
		MaxConcurrency:  s.opts.MaxConcurrency,
		MaxMessageBytes: opts.MaxMessageBytes,
		Limiter:         s.opts.Limiter,
		Logger:          s.log,
		Trace:           opts.Trace,
		Redact:          redactText,
		Rejected:        s.rejected,
	})
	return rpc.Serve(ctx, in, out)
}

// rpcServer returns the session's method table: the one dispatcher that every
// transport serves.
func (s *session) rpcServer(o jsonrpc.Options) *jsonrpc.Server {
	rpc := jsonrpc.NewServer(o)
	for name, m := range s.table {
		rpc.Handle(name, s.dispatch(name, m))
	}
	rpc.Handle("notifications/initialized", notificationOnly(s.initialized))
	rpc.Handle("notifications/cancelled", notificationOnly(s.cancelled))
	return rpc
}

// notificationOnly serves a notification method only as a notification.
// The same name sent with an id is a request for a method that does not
// exist, answered -32601 as in either era any unknown method is: run, it
// would answer {} (no resultType for a modern request) and a
// notifications/cancelled would cancel a request on a request's behalf.
func notificationOnly(h jsonrpc.Handler) jsonrpc.Handler {
	return func(ctx context.Context, conn *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
		if !req.Notification {
			return nil, notModern(req.Method, false)
		}
		return h(ctx, conn, req)
	}
}

// session is the state of one served connection.
type session struct {
	opts   Options
	reg    *Registry
	log    *slog.Logger
	policy policy
	audit  *auditor
	// modernPrefix opens every modern result: resultType and serverInfo.
	// It is encoded by the first modern request, not before a session's
	// first answer.
	modernPrefix func() []byte
	// table is the method table, from [session.methods].
	table map[string]method

	mu       sync.Mutex
	logLevel int // index into logLevels; -1 until the client sets one
}

func newSession(opts Options) (*session, error) {
	if opts.Registry == nil {
		return nil, errors.New("serve mcp: no registry")
	}
	pol, err := newPolicy(opts)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.MaxConcurrency == 0:
		opts.MaxConcurrency = DefaultMaxConcurrency
	case opts.MaxConcurrency < 0:
		opts.MaxConcurrency = 0
	}
	if opts.Limiter == nil && opts.RequestsPerMinute >= 0 {
		perMin, burst := opts.RequestsPerMinute, opts.Burst
		if perMin == 0 {
			perMin = DefaultRequestsPerMinute
		}
		if burst <= 0 {
			burst = DefaultBurst
		}
		opts.Limiter = rate.NewLimiter(rate.Limit(float64(perMin)/60), burst)
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	opts.PageSize = min(opts.PageSize, MaxPageSize)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &session{opts: opts, reg: opts.Registry, log: log, policy: pol, logLevel: -1, modernPrefix: sync.OnceValue(func() []byte { return newModernPrefix(opts.Version) })}
	s.table = s.methods()
	if opts.Audit != nil {
		s.audit = &auditor{w: opts.Audit, now: opts.Now, log: log, writesOnly: opts.AuditWritesOnly}
	}
	return s, nil
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// invalidParams returns a -32602 error.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...)
}

// decodeParams decodes request params into v; absent params leave v
// unchanged. Params that are not an object are invalid.
func decodeParams(req *jsonrpc.Request, v any) error {
	if req.Params == nil {
		return nil
	}
	if req.Params[0] != '{' {
		return invalidParams("Invalid params: %s takes an object", req.Method)
	}
	if err := json.Unmarshal(req.Params, v); err != nil {
		return invalidParams("Invalid params: %s: %v", req.Method, err)
	}
	return nil
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    capabilities   `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions"`
}

type capabilities struct {
	Logging   struct{} `json:"logging"`
	Resources struct{} `json:"resources"`
	Tools     struct{} `json:"tools"`
}

func (s *session) initialize(_ context.Context, _ *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p struct {
		ProtocolVersion any `json:"protocolVersion"`
	}
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	version := LegacyProtocolVersions[0]
	if v, ok := p.ProtocolVersion.(string); ok && slices.Contains(LegacyProtocolVersions, v) {
		version = v
	}
	return initializeResult{
		ProtocolVersion: version,
		ServerInfo:      implementation{Name: ServerName, Version: s.opts.Version},
		Instructions:    s.instructions(),
	}, nil
}

func (s *session) ping(context.Context, *jsonrpc.Conn, *jsonrpc.Request) (any, error) {
	return struct{}{}, nil
}

func (s *session) initialized(context.Context, *jsonrpc.Conn, *jsonrpc.Request) (any, error) {
	s.log.Debug("client initialized")
	return nil, nil
}

// cancelled handles notifications/cancelled: the request's context is
// cancelled and its response suppressed. Unknown or finished ids are
// ignored, as the specification allows.
func (s *session) cancelled(_ context.Context, conn *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p struct {
		RequestID *jsonrpc.ID `json:"requestId"`
		Reason    string      `json:"reason"`
	}
	if err := decodeParams(req, &p); err != nil || p.RequestID == nil {
		return nil, fmt.Errorf("notifications/cancelled: want an object with a valid requestId")
	}
	if conn.Cancel(*p.RequestID) {
		s.log.Debug("request cancelled", "id", p.RequestID.String(), "reason", p.Reason)
	}
	return nil, nil
}

// logLevels are the RFC 5424 severities of notifications/message, lowest
// first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LogLevel is the severity of a notifications/message.
type LogLevel string

// The log levels of notifications/message.
const (
	LogDebug     LogLevel = "debug"
	LogInfo      LogLevel = "info"
	LogNotice    LogLevel = "notice"
	LogWarning   LogLevel = "warning"
	LogError     LogLevel = "error"
	LogCritical  LogLevel = "critical"
	LogAlert     LogLevel = "alert"
	LogEmergency LogLevel = "emergency"
)

func (s *session) setLevel(_ context.Context, _ *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p struct {
		Level any `json:"level"`
	}
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	i, err := parseLevel(p.Level)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.logLevel = i
	s.mu.Unlock()
	return struct{}{}, nil
}

// parseLevel returns the index into logLevels of a decoded level, or a
// -32602 error naming the valid ones.
func parseLevel(level any) (int, *jsonrpc.Error) {
	name, _ := level.(string)
	i := slices.Index(logLevels, name)
	if i < 0 {
		b, _ := json.Marshal(level)
		return -1, invalidParams("Invalid log level: %s (want one of %s)", auditText(string(b), maxEchoBytes), strings.Join(logLevels, ", "))
	}
	return i, nil
}

// notifyLog sends a notifications/message when the client asked for
// messages of this level or above: a legacy client with logging/setLevel
// for the whole session, a modern request with its own
// io.modelcontextprotocol/logLevel (without it, it gets none).
func (s *session) notifyLog(ctx context.Context, conn *jsonrpc.Conn, level LogLevel, logger string, data any) {
	i := slices.Index(logLevels, string(level))
	var least int // the least level asked for; -1 for none
	if ri := requestInfoFrom(ctx); ri.modern {
		least = ri.logLevel
	} else {
		s.mu.Lock()
		least = s.logLevel
		s.mu.Unlock()
	}
	if least < 0 || i < least {
		return
	}
	err := conn.Notify(ctx, "notifications/message", struct {
		Level  LogLevel `json:"level"`
		Logger string   `json:"logger,omitempty"`
		Data   any      `json:"data"`
	}{level, logger, redactValue(data)})
	if err != nil {
		s.log.Warn("send log message", "err", err)
	}
}

// rejected audits a tools/call or resources/read that was refused before
// dispatch (concurrency cap, rate limit, duplicate id).
func (s *session) rejected(req *jsonrpc.Request, _ *jsonrpc.Error) {
	if s.audit == nil || (req.Method != "tools/call" && req.Method != "resources/read") {
		return
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(req.Params, &p) // best effort: the name is informative only
	name := p.Name
	if req.Method == "resources/read" {
		name = p.URI
	}
	var scope, category string
	var mutating bool
	if t := s.reg.byName[name]; t != nil && req.Method == "tools/call" {
		scope, category, mutating = t.Scope, t.AuditCategory, t.Mutating
	}
	s.audit.start(req, req.Method, name, scope, category, mutating).finish("rejected", nil)
}
