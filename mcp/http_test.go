package mcp_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/foundryhq/foundry/mcp"
)

// Tokens of the HTTP tests, assembled at run time so the source holds no
// credential-looking literal.
var (
	tokenRW = "fmcp_" + strings.Repeat("a1", 16)
	tokenRO = "fmcp_" + strings.Repeat("b2", 16)
)

func testTokens() []mcp.Token {
	return []mcp.Token{
		{Name: "writer", SHA256: sha256.Sum256([]byte(tokenRW))},
		{Name: "reviewer", Scopes: []string{scopeReadTest}, SHA256: sha256.Sum256([]byte(tokenRO))},
	}
}

// httpDaemon is a handler served by ServeHTTP on a loopback port.
type httpDaemon struct {
	url    string // the MCP endpoint
	base   string // scheme://host:port
	h      *mcp.HTTPHandler
	stop   context.CancelFunc
	served chan error
}

// startHTTP serves reg over HTTP on 127.0.0.1 with the loopback Host and
// Origin checks of a real daemon. edit may change the options.
func startHTTP(t *testing.T, reg *mcp.Registry, edit func(*mcp.HTTPOptions)) *httpDaemon {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	o := mcp.HTTPOptions{
		Options:        mcp.Options{Registry: reg, Version: "1.2.3"},
		Tokens:         testTokens(),
		AllowedHosts:   mcp.LoopbackHosts(ln.Addr().String()),
		AllowedOrigins: mcp.LoopbackOrigins("http", ln.Addr().String()),
	}
	if edit != nil {
		edit(&o)
	}
	h, err := mcp.NewHTTPHandler(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &httpDaemon{url: "http://127.0.0.1:" + port + mcp.Endpoint, base: "http://127.0.0.1:" + port, h: h, stop: cancel, served: make(chan error, 1)}
	go func() { d.served <- mcp.ServeHTTP(ctx, ln, h, mcp.HTTPServeOptions{}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-d.served; err != nil {
			t.Errorf("ServeHTTP = %v", err)
		}
	})
	return d
}

// bearer adds a token to every request of an http.Client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// sdkConnect connects the SDK's Streamable HTTP client with a token, in
// the legacy era (initialize, a session) unless version says otherwise.
func sdkConnect(ctx context.Context, endpoint, token string, version ...string) (*sdk.ClientSession, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-http-test", Version: "1"}, nil)
	hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
	v := "2025-11-25"
	if len(version) > 0 {
		v = version[0]
	}
	return client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: v})
}

// TestHTTPSDKClient drives the HTTP transport with the official Go SDK's
// Streamable HTTP client: initialize, every tool and resource, and the
// end of the session by DELETE, after which its id is unknown.
func TestHTTPSDKClient(t *testing.T) {
	t.Parallel()
	d := startFake(t, nil)
	ctx := context.Background()
	cs, err := sdkConnect(ctx, d.url, tokenRW)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	exerciseSDKSession(t, ctx, cs, "2025-11-25")
	id := cs.ID()
	if len(id) < 32 || d.h.Sessions() != 1 {
		t.Errorf("session id %q, %d sessions open; want a long random id and 1", id, d.h.Sessions())
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if n := d.h.Sessions(); n != 0 {
		t.Errorf("%d sessions open after the client's DELETE, want 0", n)
	}
	resp := post(t, d, tokenRW, map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if resp.status != http.StatusNotFound {
		t.Errorf("ping in an ended session: %d %s, want 404", resp.status, resp.body)
	}
}

// TestHTTPSDKClientModern drives the transport with the SDK client left to
// its default, revision 2026-07-28: server/discover and then stateless
// requests without a session, through the same dispatcher.
func TestHTTPSDKClientModern(t *testing.T) {
	t.Parallel()
	d := startFake(t, nil)
	ctx := context.Background()
	cs, err := sdkConnect(ctx, d.url, tokenRW, mcp.ModernProtocolVersion)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	exerciseSDKSession(t, ctx, cs, mcp.ModernProtocolVersion)
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if n := d.h.Sessions(); n != 0 {
		t.Errorf("%d sessions open in the stateless era", n)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHTTPTokenScopes checks that a token's scopes narrow what its
// sessions see, that a session is bound to the token that opened it, and
// that audit lines name the token by its configured name alone.
func TestHTTPTokenScopes(t *testing.T) {
	t.Parallel()
	var audit syncBuffer
	d := startFake(t, func(o *mcp.HTTPOptions) { o.Audit = &audit })
	ctx := context.Background()
	cs, err := sdkConnect(ctx, d.url, tokenRO)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if slices.Contains(names, "note_write") || !slices.Contains(names, "echo") {
		t.Errorf("tools of the read-only token: %v; want echo but not note_write", names)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "note_write", Arguments: map[string]any{"title": "x"}})
	if err == nil || !strings.Contains(err.Error(), "Tool not available: note_write (scope write:test is not enabled)") {
		t.Errorf("call note_write with the read-only token: %v, %v", res, err)
	}
	// The reviewer's session id with the writer's token is unknown.
	resp := post(t, d, tokenRW, map[string]string{"Mcp-Session-Id": cs.ID()}, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if resp.status != http.StatusNotFound {
		t.Errorf("another token's session: %d %s, want 404", resp.status, resp.body)
	}
	log := audit.String()
	if !strings.Contains(log, `"method":"tools/call","token":"reviewer","name":"note_write"`) || !strings.Contains(log, `"outcome":"denied"`) {
		t.Errorf("audit log does not name the token: %s", log)
	}
	if strings.Contains(log, tokenRO) || strings.Contains(log, tokenRW) {
		t.Errorf("audit log shows a token: %s", log)
	}
}

type httpResult struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, req *http.Request) httpResult {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return httpResult{resp.StatusCode, resp.Header, string(b)}
}

func newRequest(t *testing.T, method, url, token string, header map[string]string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	return req
}

// streamRequest is a GET that asks url for an SSE stream.
func streamRequest(t *testing.T, url, token string, header map[string]string) *http.Request {
	t.Helper()
	req := newRequest(t, http.MethodGet, url, token, header, nil)
	req.Header.Set("Accept", "text/event-stream")
	return req
}

func post(t *testing.T, d *httpDaemon, token string, header map[string]string, body string) httpResult {
	t.Helper()
	return do(t, newRequest(t, http.MethodPost, d.url, token, header, strings.NewReader(body)))
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// startFake starts a daemon serving the fake registry (see fakeRegistry),
// its options edited by edit unless nil.
func startFake(t *testing.T, edit func(*mcp.HTTPOptions)) *httpDaemon {
	t.Helper()
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return startHTTP(t, reg, edit)
}

// sessionHeaders are the headers of a request in session sid, at protocol
// version 2025-11-25.
func sessionHeaders(sid string) map[string]string {
	return map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
}

// initSession opens a session by hand and returns its id.
func initSession(t *testing.T, d *httpDaemon, token string) string {
	t.Helper()
	r := post(t, d, token, nil, initBody)
	id := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s (session %q)", r.status, r.body, id)
	}
	if r := post(t, d, token, map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return id
}

// TestHTTPGuards checks the answers of the transport's guards, each with
// the status the issue names.
func TestHTTPGuards(t *testing.T) {
	t.Parallel()
	d := startFake(t, func(o *mcp.HTTPOptions) { o.MaxBodyBytes = 1 << 10 })
	sid := initSession(t, d, tokenRW)
	ended := initSession(t, d, tokenRW)
	if r := do(t, newRequest(t, http.MethodDelete, d.url, tokenRW, map[string]string{"Mcp-Session-Id": ended}, nil)); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.base, "http://"))
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	inSession := sessionHeaders(sid)
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range inSession {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name       string
		method     string
		path       string
		token      string
		header     map[string]string
		body       string
		bodyReader io.Reader // overrides body, sent chunked
		wantStatus int
		wantBody   string // a substring
		wantHeader [2]string
	}{
		{name: "ping in the session", token: tokenRW, header: inSession, body: ping,
			wantStatus: 200, wantBody: `"result":{}`},
		{name: "ping with a negative id", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","id":-1,"method":"ping"}`,
			wantStatus: 200, wantBody: `{"id":-1,"result":{}`},
		{name: "ping with the smallest id", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`,
			wantStatus: 200, wantBody: `{"id":-9223372036854775808,"result":{}`},
		{name: "ping with id -0", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
			wantStatus: 400, wantBody: `{"jsonrpc":"2.0","error":{"code":-32600`},
		{name: "ping with an id below int64", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}`,
			wantStatus: 400, wantBody: `{"jsonrpc":"2.0","error":{"code":-32600`},
		{name: "missing token", header: inSession, body: ping,
			wantStatus: 401, wantBody: "a bearer token is required", wantHeader: [2]string{"WWW-Authenticate", `Bearer realm="foundry"`}},
		{name: "wrong token", token: tokenRW + "x", header: inSession, body: ping,
			wantStatus: 401, wantBody: "the bearer token is not valid", wantHeader: [2]string{"WWW-Authenticate", `Bearer realm="foundry", error="invalid_token"`}},
		{name: "not a bearer token", header: with(map[string]string{"Authorization": "Basic " + tokenRW}), body: ping,
			wantStatus: 401},
		{name: "bad origin", token: tokenRW, header: with(map[string]string{"Origin": "http://evil.example.com"}), body: ping,
			wantStatus: 403, wantBody: "Origin not allowed"},
		{name: "own origin", token: tokenRW, header: with(map[string]string{"Origin": "http://localhost:" + port}), body: ping,
			wantStatus: 200},
		{name: "rebound host", token: tokenRW, header: with(map[string]string{"Host": "evil.example.com:" + port}), body: ping,
			wantStatus: 403, wantBody: "Host header not allowed"},
		{name: "localhost host", token: tokenRW, header: with(map[string]string{"Host": "localhost:" + port}), body: ping,
			wantStatus: 200},
		{name: "host on another port", token: tokenRW, header: with(map[string]string{"Host": "127.0.0.1:1"}), body: ping,
			wantStatus: 403},
		{name: "oversized body with length", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`,
			wantStatus: 413, wantBody: "exceeds the 1024-byte limit"},
		{name: "oversized chunked body", token: tokenRW, header: inSession, bodyReader: io.MultiReader(strings.NewReader(`{"pad":"`), &endless{}),
			wantStatus: 413},
		{name: "unsupported protocol version", token: tokenRW, header: with(map[string]string{"Mcp-Protocol-Version": "1999-01-01"}), body: ping,
			wantStatus: 400, wantBody: `unsupported Mcp-Protocol-Version \"1999-01-01\"`},
		{name: "first revision of the transport", token: tokenRW, header: with(map[string]string{"Mcp-Protocol-Version": "2025-03-26"}), body: ping,
			wantStatus: 200},
		{name: "missing session", token: tokenRW, body: ping,
			wantStatus: 400, wantBody: "Mcp-Session-Id header is required"},
		{name: "unknown method without session", token: tokenRW, body: `{"jsonrpc":"2.0","id":1,"method":"nope/nope"}`,
			wantStatus: 404, wantBody: `"id":1,"error":{"code":-32601`},
		{name: "unknown method without session, negative id", token: tokenRW, body: `{"jsonrpc":"2.0","id":-2,"method":"nope/nope"}`,
			wantStatus: 404, wantBody: `"id":-2,"error":{"code":-32601`},
		{name: "modern request without session", token: tokenRW, header: map[string]string{"Mcp-Protocol-Version": mcp.ModernProtocolVersion, "Mcp-Method": "tools/list"},
			body:       `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`,
			wantStatus: 200, wantBody: `"resultType":"complete"`},
		{name: "modern method header mismatch", token: tokenRW, header: map[string]string{"Mcp-Protocol-Version": mcp.ModernProtocolVersion, "Mcp-Method": "tools/call"}, body: ping,
			wantStatus: 400, wantBody: `"code":-32020`},
		{name: "unknown session", token: tokenRW, header: with(map[string]string{"Mcp-Session-Id": "nope"}), body: ping,
			wantStatus: 404, wantBody: "unknown or ended session"},
		{name: "ended session", token: tokenRW, header: with(map[string]string{"Mcp-Session-Id": ended}), body: ping,
			wantStatus: 404},
		{name: "notification", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
			wantStatus: 202},
		{name: "cancellation of a negative id", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":-99}}`,
			wantStatus: 202},
		{name: "response from the client", token: tokenRW, header: inSession, body: `{"jsonrpc":"2.0","id":4,"result":{}}`,
			wantStatus: 202},
		{name: "parse error", token: tokenRW, header: inSession, body: `{"jsonrpc":`,
			wantStatus: 400, wantBody: `"code":-32700`},
		{name: "batch", token: tokenRW, header: inSession, body: `[` + ping + `]`,
			wantStatus: 400, wantBody: `"code":-32600`},
		{name: "GET without event-stream", method: http.MethodGet, token: tokenRW, header: with(map[string]string{"Accept": "application/json"}),
			wantStatus: 406},
		{name: "PUT", method: http.MethodPut, token: tokenRW, header: inSession,
			wantStatus: 405, wantHeader: [2]string{"Allow", "GET, POST, DELETE"}},
		{name: "health without token", method: http.MethodGet, path: mcp.HealthPath,
			wantStatus: 200, wantBody: "ok"},
		{name: "other path", method: http.MethodGet, path: "/", token: tokenRW,
			wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			method, path := tt.method, tt.path
			if method == "" {
				method = http.MethodPost
			}
			if path == "" {
				path = mcp.Endpoint
			}
			var body io.Reader = strings.NewReader(tt.body)
			if tt.bodyReader != nil {
				body = tt.bodyReader
			}
			r := do(t, newRequest(t, method, d.base+path, tt.token, tt.header, body))
			if r.status != tt.wantStatus || !strings.Contains(r.body, tt.wantBody) {
				t.Errorf("got %d %s, want %d with %q", r.status, r.body, tt.wantStatus, tt.wantBody)
			}
			if k := tt.wantHeader[0]; k != "" && r.header.Get(k) != tt.wantHeader[1] {
				t.Errorf("%s: %q, want %q", k, r.header.Get(k), tt.wantHeader[1])
			}
			if strings.Contains(r.body, tokenRW) {
				t.Errorf("the answer shows the token: %s", r.body)
			}
		})
	}
}

// endless is a body that never ends: the server must refuse it after the
// limit instead of reading it whole.
type endless struct{}

func (*endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestHTTPSDKAuthFailures checks that the SDK client cannot connect with a
// wrong or a missing token.
func TestHTTPSDKAuthFailures(t *testing.T) {
	t.Parallel()
	d := startFake(t, nil)
	for _, tok := range []string{"", "fmcp_wrong"} {
		client := sdk.NewClient(&sdk.Implementation{Name: "sdk-http-test", Version: "1"}, nil)
		hc := http.DefaultClient
		if tok != "" {
			hc = &http.Client{Transport: bearer{tok, http.DefaultTransport}}
		}
		cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: d.url, HTTPClient: hc, MaxRetries: -1}, nil)
		if err == nil {
			cs.Close()
			t.Errorf("connect with token %q succeeded", tok)
		} else if !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("connect with token %q: %v, want Unauthorized", tok, err)
		}
	}
	if n := d.h.Sessions(); n != 0 {
		t.Errorf("%d sessions opened without a valid token", n)
	}
}

// sseEvents reads the data lines of an SSE body.
func sseEvents(t *testing.T, body io.Reader, n int) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for len(out) < n && sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, data)
		}
	}
	return out
}

// TestHTTPStreams checks the SSE side: a request that asks for progress is
// answered on a stream carrying its notifications, then its response;
// several GET streams stay open at once, and a message that belongs to no
// request reaches one of them.
func TestHTTPStreams(t *testing.T) {
	t.Parallel()
	d := startFake(t, nil)
	sid := initSession(t, d, tokenRW)
	hdr := sessionHeaders(sid)
	if r := post(t, d, tokenRW, hdr, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`); r.status != 200 {
		t.Fatalf("setLevel: %d %s", r.status, r.body)
	}

	resp, err := http.DefaultClient.Do(newRequest(t, http.MethodPost, d.url, tokenRW, hdr,
		strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":"p"}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if ct, xab := resp.Header.Get("Content-Type"), resp.Header.Get("X-Accel-Buffering"); ct != "text/event-stream" || xab != "no" {
		t.Errorf("Content-Type and X-Accel-Buffering of a call with progress: %q %q, want text/event-stream and no", ct, xab)
	}
	events := sseEvents(t, resp.Body, 6)
	resp.Body.Close()
	var methods []string
	for _, e := range events {
		var m struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(e), &m); err != nil {
			t.Fatalf("event %s: %v", e, err)
		}
		methods = append(methods, orElse(m.Method, "response "+string(m.ID)))
	}
	want := "notifications/message,notifications/progress,notifications/progress,notifications/progress,notifications/message,response 2"
	if got := strings.Join(methods, ","); got != want {
		t.Errorf("stream of the call:\n got %s\nwant %s", got, want)
	}

	// Two GET streams at once; a log message of a call answered as JSON
	// (no progress asked) goes to one of them, not to both.
	var wg sync.WaitGroup
	got := make(chan string, 4)
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan struct{}, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := streamRequest(t, d.url, tokenRW, hdr).WithContext(ctx)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("GET: %d", resp.StatusCode)
				return
			}
			opened <- struct{}{}
			if xab := resp.Header.Get("X-Accel-Buffering"); xab != "no" {
				t.Errorf("X-Accel-Buffering of a GET stream: %q, want no", xab)
			}
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					got <- data
				}
			}
		}()
	}
	<-opened
	<-opened
	if r := post(t, d, tokenRW, hdr, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count"}}`); r.status != 200 || !strings.Contains(r.body, `"id":3`) {
		t.Fatalf("call as JSON: %d %s", r.status, r.body)
	}
	for range 2 {
		if e := <-got; !strings.Contains(e, `"notifications/message"`) {
			t.Errorf("GET stream event: %s", e)
		}
	}
	cancel()
	wg.Wait()
	if len(got) != 0 {
		t.Errorf("a message went to two streams: %q", <-got)
	}
}

// TestHTTPInitializeAskingProgress opens a session with an initialize that
// carries a progressToken (any request may) from a client that accepts
// SSE: the answer must still carry the session's Mcp-Session-Id, without
// which the client cannot send another request, and the session it names
// must be the only one opened.
func TestHTTPInitializeAskingProgress(t *testing.T) {
	t.Parallel()
	d := startFake(t, nil)
	r := post(t, d, tokenRW, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"_meta":{"progressToken":"p"},"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" || !strings.Contains(r.body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize asking progress: %d %s (session %q), want 200, the result and a session id", r.status, r.body, sid)
	}
	if r := post(t, d, tokenRW, sessionHeaders(sid), `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != http.StatusOK {
		t.Errorf("ping in the session: %d %s", r.status, r.body)
	}
	if n := d.h.Sessions(); n != 1 {
		t.Errorf("%d sessions open, want 1", n)
	}
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestHTTPShutdownAnswersInFlight shuts the server down while calls are in
// flight: every call is answered, and the GET stream is closed so that the
// shutdown does not wait for it.
func TestHTTPShutdownAnswersInFlight(t *testing.T) {
	t.Parallel()
	const calls = 4
	started := make(chan struct{}, calls)
	release := make(chan struct{})
	reg := mcp.NewRegistry()
	err := mcp.AddTool(reg, mcp.Tool{
		Name: "hold", Description: "Waits until released.", InputSchema: json.RawMessage(`{"type":"object"}`), Scope: scopeReadTest,
		Governance: mcp.Governance{AuditCategory: "test.read"},
	}, func(ctx context.Context, _ *mcp.Call, _ struct{}) (mcp.Output, error) {
		started <- struct{}{}
		<-release
		return mcp.Output{Text: "released"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := startHTTP(t, reg, nil)
	ctx := context.Background()
	// The SDK client fails every pending call once its standalone stream
	// ends for good, even with the responses already on the wire; this
	// one opens none, and a raw GET stream stands in for it.
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-http-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: d.url, DisableStandaloneSSE: true, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{tokenRW, http.DefaultTransport}}}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	get := streamRequest(t, d.url, tokenRW, map[string]string{"Mcp-Session-Id": cs.ID()})
	stream, err := http.DefaultClient.Do(get)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", stream, err)
	}
	defer stream.Body.Close()
	results := make(chan error, calls)
	for range calls {
		go func() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "hold"})
			if err == nil && (res.IsError || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "released") {
				err = fmt.Errorf("result %+v", res)
			}
			results <- err
		}()
	}
	for range calls {
		<-started
	}
	d.stop()
	// The server no longer accepts connections before the calls end.
	for {
		c, err := net.Dial("tcp", strings.TrimPrefix(d.base, "http://"))
		if err != nil {
			break
		}
		c.Close()
	}
	close(release)
	for range calls {
		if err := <-results; err != nil {
			t.Errorf("call in flight at shutdown: %v", err)
		}
	}
	if err := <-d.served; err != nil {
		t.Errorf("ServeHTTP = %v", err)
	}
	d.served <- nil // for the cleanup
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Errorf("GET stream ended with %v, want its end", err)
	}
	if n := d.h.Sessions(); n != 0 {
		t.Errorf("%d sessions left after shutdown", n)
	}
}

// TestHTTPOptionsRefused checks NewHTTPHandler's refusal of a token scope
// the registry does not know.
func TestHTTPOptionsRefused(t *testing.T) {
	t.Parallel()
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	_, err = mcp.NewHTTPHandler(mcp.HTTPOptions{Options: mcp.Options{Registry: reg},
		Tokens: []mcp.Token{{Name: "x", Scopes: []string{"admin:all"}}}})
	if err == nil || !strings.Contains(err.Error(), `token x: unknown scope "admin:all"`) {
		t.Errorf("NewHTTPHandler = %v", err)
	}
}

// TestHTTPSessionBounds checks the bounds on sessions: over MaxSessions an
// initialize of another client (which ends no session of the first's) is
// answered 503, and a session left idle is ended by the reaper, after
// which its id is unknown. Idleness is measured by a fake
// clock, so a slow machine cannot end a session before the test lets it.
func TestHTTPSessionBounds(t *testing.T) {
	t.Parallel()
	var clock atomic.Int64 // Unix nanoseconds of the fake clock
	clock.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	const idle = 40 * time.Millisecond // the reaper checks every 10ms
	d := startFake(t, func(o *mcp.HTTPOptions) {
		o.MaxSessions = 1
		o.SessionIdle = idle
		o.Now = func() time.Time { return time.Unix(0, clock.Load()) }
	})
	sid := initSession(t, d, tokenRW)
	if r := post(t, d, tokenRO, nil, initBody); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "1 sessions are open") {
		t.Errorf("initialize over MaxSessions: %d %s", r.status, r.body)
	}
	// While the fake clock stands still no session idles, however many
	// checks the reaper makes meanwhile; the sleep lets it make some.
	time.Sleep(3 * idle)
	if r := post(t, d, tokenRW, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != http.StatusOK {
		t.Errorf("ping before the session idled: %d %s", r.status, r.body)
	}
	clock.Add(int64(idle + time.Nanosecond))
	for d.h.Sessions() != 0 {
		time.Sleep(5 * time.Millisecond) // until the reaper's next check
	}
	if r := post(t, d, tokenRW, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != http.StatusNotFound {
		t.Errorf("ping in a reaped session: %d %s", r.status, r.body)
	}
	initSession(t, d, tokenRW) // room again
}

// TestHTTPUnreadBodyAnswered sends requests that announce a body and send
// one byte of it: each is answered, and its connection closed, at once
// (the refusals, which do not read the body) or once the body's read
// times out, instead of the connection waiting for the rest of the body
// for as long as the client cares to hold it.
func TestHTTPUnreadBodyAnswered(t *testing.T) {
	t.Parallel()
	d := startFake(t, func(o *mcp.HTTPOptions) { o.BodyReadTimeout = 200 * time.Millisecond })
	sid := initSession(t, d, tokenRW)
	host := strings.TrimPrefix(d.base, "http://")
	tests := []struct {
		name   string
		head   string // the request line and headers but Host, Content-Length and the blank line
		status string
	}{
		{"no token", "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n", "401"},
		{"wrong Host", "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + tokenRW + "\r\n", "403"},
		{"wrong method for health", "POST /healthz HTTP/1.1\r\n", "405"},
		{"no session", "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + tokenRW + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", "400"},
		{"body never sent", "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + tokenRW + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: " + sid + "\r\nMcp-Protocol-Version: 2025-11-25\r\n", "400"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			h := host
			if tc.name == "wrong Host" {
				h = "evil.example"
			}
			// A guard against a hang, not a measure of speed.
			_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.WriteString(conn, tc.head+"Host: "+h+"\r\nContent-Length: 100\r\n\r\n{"); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(conn) // to the end: the server closes the connection
			if err != nil {
				t.Fatalf("no answer, the connection still open: %v (read %q)", err, got)
			}
			if !strings.HasPrefix(string(got), "HTTP/1.1 "+tc.status+" ") || !strings.Contains(string(got), "Connection: close\r\n") {
				t.Errorf("answer:\n%s\nwant status %s and Connection: close", got, tc.status)
			}
		})
	}
}

// TestHTTPRefusalLogBounded checks that a refused Host or Origin is logged
// cut to a bound: the refusal comes before authentication, and a header
// can be 64 KiB.
func TestHTTPRefusalLogBounded(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	d := startFake(t, func(o *mcp.HTTPOptions) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	long := "http://" + strings.Repeat("a", 20_000) + ".example"
	for _, header := range []map[string]string{{"Origin": long}, {"Host": strings.Repeat("b", 20_000)}} {
		req := newRequest(t, http.MethodGet, d.base+mcp.HealthPath, "", header, nil)
		if h, ok := header["Host"]; ok {
			req.Host = h
		}
		if r := do(t, req); r.status != http.StatusForbidden {
			t.Fatalf("%v: status %d, want 403", header, r.status)
		}
	}
	out := logs.String()
	if !strings.Contains(out, "Origin not allowed") || !strings.Contains(out, "Host not allowed") {
		t.Fatalf("no refusal logged:\n%.500s", out)
	}
	if strings.Contains(out, strings.Repeat("a", 1000)) || strings.Contains(out, strings.Repeat("b", 1000)) {
		t.Errorf("a refused header is logged whole (%d bytes of log)", len(out))
	}
}

// TestHTTPClientSessionBound checks the bound on the sessions of one
// client. While every session of its share is busy (here each holds a GET
// stream), one more is answered 429, naming the bound and DELETE, while
// another token can still initialize; ending one of its sessions makes
// room. Once one has idled for ten minutes, one more ends the least
// recently used to make room, as for agents that exit without DELETE,
// which locked their token out for the hour sessions take to idle away;
// one idle for less (an agent thinking) is not ended. Without tokens the
// one anonymous client may hold every session unless the bound is set.
func TestHTTPClientSessionBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		edit      func(*mcp.HTTPOptions)
		token     string // of the client that fills its share
		client    string // its name in the refusal
		bound     int    // sessions it may open
		status    int    // the answer to one more
		wantOther bool   // another token can still initialize
	}{
		{"default share", func(o *mcp.HTTPOptions) { o.MaxSessions = 8 }, tokenRO, "reviewer", 2, http.StatusTooManyRequests, true},
		{"set share", func(o *mcp.HTTPOptions) { o.MaxSessions, o.MaxClientSessions = 8, 3 }, tokenRW, "writer", 3, http.StatusTooManyRequests, true},
		{"anonymous, set share", func(o *mcp.HTTPOptions) { o.Tokens, o.MaxSessions, o.MaxClientSessions = nil, 8, 2 }, "", "anonymous", 2, http.StatusTooManyRequests, false},
		{"anonymous, every session", func(o *mcp.HTTPOptions) { o.Tokens, o.MaxSessions = nil, 3 }, "", "anonymous", 3, http.StatusServiceUnavailable, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := startFake(t, tc.edit)
			var sids []string
			var streams []*http.Response
			for range tc.bound {
				sid := initSession(t, d, tc.token)
				resp, err := http.DefaultClient.Do(streamRequest(t, d.url, tc.token, sessionHeaders(sid)))
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("GET stream: %v %v", resp, err)
				}
				sids, streams = append(sids, sid), append(streams, resp)
			}
			r := post(t, d, tc.token, nil, initBody)
			want := fmt.Sprintf("client %s has %d sessions open", tc.client, tc.bound)
			if tc.status == http.StatusServiceUnavailable {
				want = fmt.Sprintf("%d sessions are open", tc.bound)
			}
			if r.status != tc.status || !strings.Contains(r.body, want) || !strings.Contains(r.body, "DELETE") {
				t.Fatalf("initialize over the bound: %d %s\nwant %d with %q and DELETE", r.status, r.body, tc.status, want)
			}
			if tc.wantOther {
				other := tokenRW
				if tc.token == tokenRW {
					other = tokenRO
				}
				initSession(t, d, other)
			}
			del := newRequest(t, http.MethodDelete, d.url, tc.token, map[string]string{"Mcp-Session-Id": sids[0]}, nil)
			if r := do(t, del); r.status != http.StatusNoContent {
				t.Fatalf("DELETE: %d %s", r.status, r.body)
			}
			initSession(t, d, tc.token) // room again
			for _, resp := range streams {
				resp.Body.Close()
			}

			// Idle, every one: one more is refused while none has idled
			// for ten minutes (an agent thinking), then ends the least
			// recently used. Idleness is measured by a fake clock.
			var clock atomic.Int64
			clock.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
			d = startFake(t, func(o *mcp.HTTPOptions) {
				tc.edit(o)
				o.Now = func() time.Time { return time.Unix(0, clock.Load()) }
			})
			sids = sids[:0]
			for range tc.bound {
				sids = append(sids, initSession(t, d, tc.token))
			}
			ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
			clock.Add(int64(time.Minute))
			for _, sid := range sids[1:] { // used after the first
				if r := post(t, d, tc.token, sessionHeaders(sid), ping); r.status != http.StatusOK {
					t.Fatalf("ping: %d %s", r.status, r.body)
				}
			}
			clock.Add(int64(9*time.Minute - time.Nanosecond))
			if r := post(t, d, tc.token, nil, initBody); r.status != tc.status {
				t.Fatalf("initialize over the bound, no session idle for ten minutes: %d %s; want %d", r.status, r.body, tc.status)
			}
			clock.Add(int64(time.Nanosecond))
			initSession(t, d, tc.token)
			for i, sid := range sids {
				r := post(t, d, tc.token, sessionHeaders(sid), ping)
				if wantGone := i == 0; (r.status == http.StatusNotFound) != wantGone {
					t.Errorf("session %d after one more: %d %s; ended: want %v", i, r.status, r.body, wantGone)
				}
			}
		})
	}
}

// TestHTTPBodiesCapped checks that the concurrency caps apply before a
// POST's body is read: with the cap's worth of requests whose bodies are
// still coming, one more is answered at once, 429 over the client's cap
// and 503 over the total, without its body being read, while another
// client still gets through the client's cap; the held requests are
// answered once their bodies arrive.
func TestHTTPBodiesCapped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		client      int      // MaxConcurrency
		total       int      // TotalConcurrency
		held        []string // the tokens of the requests whose bodies are held
		over        string   // the token of the requests over the cap
		status      int
		otherPasses string // a token whose request still passes, if any
	}{
		{"client cap", 2, 64, []string{tokenRW, tokenRW}, tokenRW, http.StatusTooManyRequests, tokenRO},
		{"total cap", 16, 2, []string{tokenRW, tokenRO}, tokenRW, http.StatusServiceUnavailable, ""},
	}
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := startFake(t, func(o *mcp.HTTPOptions) {
				o.MaxConcurrency, o.TotalConcurrency = tc.client, tc.total
				o.BodyReadTimeout = time.Minute // the held bodies must not time out
			})
			host := strings.TrimPrefix(d.base, "http://")
			sids := map[string]string{}
			for _, tok := range tc.held {
				if sids[tok] == "" {
					sids[tok] = initSession(t, d, tok)
				}
			}
			// send writes a request's headers and the first byte of its
			// body; the rest never comes unless the test sends it.
			send := func(tok string) net.Conn {
				t.Helper()
				conn, err := net.Dial("tcp", host)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close() })
				// A guard against a hang, not a measure of speed.
				_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
				head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", host, tok)
				if sid := sids[tok]; sid != "" {
					head += "Mcp-Session-Id: " + sid + "\r\nMcp-Protocol-Version: 2025-11-25\r\n"
				}
				if _, err := fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n%s", head, len(ping), ping[:1]); err != nil {
					t.Fatal(err)
				}
				return conn
			}
			var held []net.Conn
			for _, tok := range tc.held {
				held = append(held, send(tok))
			}
			// Wait, bounded, until the held requests have taken their
			// slots: until a whole request of the refused token is refused.
			// A probe takes a slot too, while it is answered: a held
			// request that came meanwhile may have been refused in its
			// place, and is sent again.
			for deadline := time.Now().Add(10 * time.Second); ; {
				r := post(t, d, tc.over, nil, ping)
				if r.status == tc.status {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("with %d bodies being read, a request is answered %d %s, want %d", len(held), r.status, r.body, tc.status)
				}
				for i, c := range held {
					_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
					n, _ := c.Read(make([]byte, 1))
					_ = c.SetDeadline(time.Now().Add(20 * time.Second))
					if n > 0 { // answered: refused
						c.Close()
						held[i] = send(tc.held[i])
					}
				}
			}
			// Each is answered before its body comes, long before the
			// body's read would time out; the connection is closed once
			// net/http gives up the body, as for any refusal.
			for i := range 3 {
				resp, err := http.ReadResponse(bufio.NewReader(send(tc.over)), nil)
				if err != nil {
					t.Fatalf("request %d over the cap: no answer: %v", i, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status || !resp.Close || !strings.Contains(string(b), "already in flight") {
					t.Errorf("request %d over the cap: %d (close %t) %s\nwant %d, Connection: close, already in flight", i, resp.StatusCode, resp.Close, b, tc.status)
				}
			}
			if tc.otherPasses != "" {
				if r := post(t, d, tc.otherPasses, nil, ping); r.status == tc.status {
					t.Errorf("another client's request: %d %s", r.status, r.body)
				}
			}
			for i, conn := range held {
				if _, err := io.WriteString(conn, ping[1:]); err != nil {
					t.Fatal(err)
				}
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatalf("held request %d: %v", i, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result":{}`) {
					t.Errorf("held request %d, its body sent: %d %s", i, resp.StatusCode, b)
				}
			}
		})
	}
}

// smallBuffers is a listener whose connections have a small send buffer,
// so that an answer a client does not read fills it at once.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// TestHTTPStalledReaderFreed checks that a client that stops reading an
// answer does not hold its request's handler, and the concurrency slot of
// its POST, for as long as it keeps the connection open: the answer's
// write times out (WriteTimeout), and the client's next POST is served.
func TestHTTPStalledReaderFreed(t *testing.T) {
	t.Parallel()
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 200<<10)
	if err := mcp.AddTool(reg, mcp.Tool{
		Name: "huge", Description: "Answers 200 KiB.", InputSchema: []byte(`{"type":"object"}`), Scope: scopeReadTest,
		Governance: mcp.Governance{AuditCategory: "test.read"}, Idempotent: true,
	}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
		return mcp.Output{Text: big}, nil
	}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	h, err := mcp.NewHTTPHandler(mcp.HTTPOptions{
		Options:        mcp.Options{Registry: reg, Version: "1.2.3", MaxConcurrency: 1},
		Tokens:         testTokens(),
		AllowedHosts:   mcp.LoopbackHosts(host),
		AllowedOrigins: mcp.LoopbackOrigins("http", host),
		WriteTimeout:   300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- mcp.ServeHTTP(ctx, smallBuffers{ln}, h, mcp.HTTPServeOptions{}) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("ServeHTTP = %v", err)
		}
	}()
	d := &httpDaemon{url: "http://" + host + mcp.Endpoint, base: "http://" + host, h: h}
	sid := initSession(t, d, tokenRW)
	inSession := sessionHeaders(sid)

	// The stalled client: asks for the big answer and reads nothing.
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"huge","arguments":{}}}`
	if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s",
		mcp.Endpoint, host, tokenRW, sid, len(call), call); err != nil {
		t.Fatal(err)
	}

	// Its slot is the client's only one: a ping is refused while the
	// answer is stuck, and served once its write has timed out. The wait
	// is a guard against a hang, not a measure of speed.
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	refused := false
	for deadline := time.Now().Add(20 * time.Second); ; {
		r := post(t, d, tokenRW, inSession, ping)
		if r.status == http.StatusOK {
			break
		}
		if r.status != http.StatusTooManyRequests {
			t.Fatalf("ping: %d %s", r.status, r.body)
		}
		refused = true
		if time.Now().After(deadline) {
			t.Fatal("the stalled answer still holds the client's slot after 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !refused {
		t.Log("the ping was served at once: the big answer fit the buffers")
	}
}

// TestHTTPStreamRefusedInShutdown checks that a GET stream asked for once
// a shutdown has begun is refused at once, instead of holding the
// shutdown up until its timeout.
func TestHTTPStreamRefusedInShutdown(t *testing.T) {
	t.Parallel()
	d := startFake(t, nil)
	sid := initSession(t, d, tokenRW)
	d.h.Shutdown() // nothing in flight: it returns at once, the server still serving
	get := streamRequest(t, d.url, tokenRW, sessionHeaders(sid))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a guard against a hang
	defer cancel()
	resp, err := http.DefaultClient.Do(get.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET stream during shutdown: %d, want 503", resp.StatusCode)
	}
}

// TestHTTPClientStreamBound checks that one client's GET streams, across
// its sessions, are held to MaxClientStreams: one more is refused (429)
// while another client can still open one, and once one of them closes
// there is room again.
func TestHTTPClientStreamBound(t *testing.T) {
	t.Parallel()
	d := startFake(t, func(o *mcp.HTTPOptions) { o.MaxClientStreams = 2 })
	open := func(token, sid string) *http.Response {
		t.Helper()
		get := streamRequest(t, d.url, token, sessionHeaders(sid))
		resp, err := http.DefaultClient.Do(get)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	first := open(tokenRW, initSession(t, d, tokenRW))
	second := initSession(t, d, tokenRW)
	for i, resp := range []*http.Response{first, open(tokenRW, second)} {
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", i, resp.StatusCode)
		}
	}
	over := open(tokenRW, second)
	if over.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third stream: %d, want 429", over.StatusCode) // a stream's body would not end
	}
	if body, _ := io.ReadAll(over.Body); !strings.Contains(string(body), "client writer has 2 streams open") {
		t.Errorf("a third stream's refusal: %s, want the bound named", body)
	}
	if other := open(tokenRO, initSession(t, d, tokenRO)); other.StatusCode != http.StatusOK {
		t.Errorf("another client's stream: %d", other.StatusCode)
	}
	first.Body.Close()
	// The server learns of the close on its own time; the wait is a
	// guard against a hang, not a measure of speed.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp := open(tokenRW, second)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if resp.StatusCode != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("a stream once one closed: %d", resp.StatusCode)
		}
	}
}
