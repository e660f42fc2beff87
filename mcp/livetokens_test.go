package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/mcp"
)

// tokenSource is a LiveTokens whose tokens the test sets.
type tokenSource struct {
	mu      sync.Mutex
	tokens  []mcp.Token
	err     error
	changed bool
}

func (s *tokenSource) set(tokens []mcp.Token, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens, s.err, s.changed = tokens, err, true
}

func (s *tokenSource) get() ([]mcp.Token, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.changed
	s.changed = false
	return s.tokens, changed, s.err
}

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// openStream opens a GET stream of session sid and returns a channel
// closed when the stream ends.
func openStream(t *testing.T, d *httpDaemon, token, sid string) <-chan struct{} {
	t.Helper()
	resp, err := http.DefaultClient.Do(streamRequest(t, d.url, token, sessionHeaders(sid)))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return ended
}

func waitEnded(t *testing.T, ended <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still open", what)
	}
}

// TestHTTPLiveTokens follows the tokens of a handler as LiveTokens changes
// them: a token revoked is refused from the next request and its sessions
// (and their streams) end; a token given other scopes loses its sessions
// too; a token added is accepted; an error refuses every request without
// saying why; with no token left, every request is refused, or with
// OpenWithoutTokens none is needed, until a token is made, which ends the
// anonymous sessions.
func TestHTTPLiveTokens(t *testing.T) {
	t.Parallel()
	writer, reviewer := testTokens()[0], testTokens()[1]
	src := &tokenSource{tokens: testTokens()}
	d := startFake(t, func(o *mcp.HTTPOptions) { o.LiveTokens = src.get })

	w := initSession(t, d, tokenRW)
	wStream := openStream(t, d, tokenRW, w)
	r := initSession(t, d, tokenRO)

	src.set([]mcp.Token{reviewer}, nil) // writer revoked
	if res := post(t, d, tokenRO, sessionHeaders(r), pingBody); res.status != http.StatusOK {
		t.Errorf("reviewer after writer's revocation: %d %s", res.status, res.body)
	}
	waitEnded(t, wStream, "the revoked token's stream")
	if res := post(t, d, tokenRW, sessionHeaders(w), pingBody); res.status != http.StatusUnauthorized {
		t.Errorf("revoked token: %d %s, want 401", res.status, res.body)
	}
	if res := post(t, d, tokenRW, nil, initBody); res.status != http.StatusUnauthorized {
		t.Errorf("revoked token's initialize: %d %s, want 401", res.status, res.body)
	}

	narrowed := reviewer
	narrowed.Scopes = []string{scopeWriteTest}
	src.set([]mcp.Token{narrowed}, nil)
	if res := post(t, d, tokenRO, sessionHeaders(r), pingBody); res.status != http.StatusNotFound {
		t.Errorf("session of a token given other scopes: %d %s, want 404", res.status, res.body)
	}
	initSession(t, d, tokenRO)

	src.set([]mcp.Token{narrowed, writer}, nil) // writer made again
	w = initSession(t, d, tokenRW)

	src.set(nil, errors.New("read token file /secret/tokens.yaml: boom"))
	for _, tok := range []string{tokenRW, tokenRO, ""} {
		res := post(t, d, tok, nil, initBody)
		if res.status != http.StatusServiceUnavailable || strings.Contains(res.body, "boom") || strings.Contains(res.body, "secret") {
			t.Errorf("tokens unreadable, token %q: %d %s, want 503 that does not say why", tok, res.status, res.body)
		}
	}
	// Read again, the writer still there: its session lived through.
	src.set([]mcp.Token{narrowed, writer}, nil)
	if res := post(t, d, tokenRW, sessionHeaders(w), pingBody); res.status != http.StatusOK {
		t.Errorf("session of a token kept while the tokens were unreadable: %d %s, want 200", res.status, res.body)
	}
	// Unreadable again, then read without the writer: its session ends
	// once the tokens read.
	src.set(nil, errors.New("boom"))
	post(t, d, tokenRO, nil, initBody)
	src.set([]mcp.Token{narrowed}, nil)
	if res := post(t, d, tokenRW, sessionHeaders(w), pingBody); res.status != http.StatusUnauthorized {
		t.Errorf("the writer revoked while the tokens were unreadable: %d %s, want 401", res.status, res.body)
	}
	src.set([]mcp.Token{narrowed, writer}, nil)
	if res := post(t, d, tokenRW, sessionHeaders(w), pingBody); res.status != http.StatusNotFound {
		t.Errorf("the writer's session, the writer made again: %d %s, want 404 (ended)", res.status, res.body)
	}

	src.set([]mcp.Token{}, nil)
	for _, tok := range []string{tokenRW, ""} {
		if res := post(t, d, tok, nil, initBody); res.status != http.StatusUnauthorized {
			t.Errorf("no token configured, token %q: %d %s, want 401", tok, res.status, res.body)
		}
	}
}

// TestHTTPLiveTokensOpen: a handler that may serve without tokens serves
// anonymous clients while none is configured, the one anonymous client
// bounded by all the sessions, and ends their sessions once a token is
// configured, each token then bounded by a quarter of them.
func TestHTTPLiveTokensOpen(t *testing.T) {
	t.Parallel()
	src := &tokenSource{tokens: testTokens()}
	d := startFake(t, func(o *mcp.HTTPOptions) {
		o.LiveTokens, o.OpenWithoutTokens = src.get, true
		o.MaxSessions = 8
	})
	if res := post(t, d, "", nil, initBody); res.status != http.StatusUnauthorized {
		t.Errorf("anonymous with tokens configured: %d %s, want 401", res.status, res.body)
	}
	src.set(nil, nil)
	anon := initSession(t, d, "")
	stream := openStream(t, d, "", anon)
	for range 3 {
		initSession(t, d, "") // over a quarter of 8: the one client may hold them all
	}
	src.set(testTokens()[:1], nil)
	for i := range 3 {
		want := http.StatusOK
		if i == 2 {
			want = http.StatusTooManyRequests // a quarter of 8 each
		}
		if res := post(t, d, tokenRW, nil, initBody); res.status != want {
			t.Errorf("the token made, session %d: %d %s, want %d", i+1, res.status, res.body, want)
		}
	}
	waitEnded(t, stream, "the anonymous stream")
	if res := post(t, d, "", sessionHeaders(anon), pingBody); res.status != http.StatusUnauthorized {
		t.Errorf("anonymous once a token is configured: %d %s, want 401", res.status, res.body)
	}
}

// TestRunDaemonFollowsTokens runs a daemon on a project and changes its
// tokens through the files, as foundry mcp token new and revoke do and as
// a hand does: each change is seen by the next request, with no wait, a
// change that keeps the token file's size and modification time included.
func TestRunDaemonFollowsTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := daemonOptions(t, "127.0.0.1:0")
	const optIn = "mcp:\n  enabled: true\n"
	if err := os.WriteFile(filepath.Join(o.Worktree, config.Path), []byte(optIn), 0o644); err != nil {
		t.Fatal(err)
	}
	alice, err := mcp.NewToken(ctx, o.Root, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.LoadChecked(o.Root.FS())
	if err != nil {
		t.Fatal(err)
	}
	o.HTTP = c.MCP.HTTP
	url, stop := serveDaemon(t, o)
	t.Cleanup(stop)
	d := &httpDaemon{url: url}
	init := func(token string) int { return post(t, d, token, nil, initBody).status }

	if got := init(alice); got != http.StatusOK {
		t.Fatalf("alice: %d", got)
	}
	if got := init(""); got != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", got)
	}
	bob, err := mcp.NewToken(ctx, o.Root, "bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := init(bob); got != http.StatusOK {
		t.Errorf("bob, made while the daemon runs: %d, want 200", got)
	}
	if err := mcp.RevokeToken(ctx, o.Root, o.Worktree, "alice"); err != nil {
		t.Fatal(err)
	}
	if got := init(alice); got != http.StatusUnauthorized {
		t.Errorf("alice revoked: %d, want 401", got)
	}

	// A token file outside the worktree, named by the config.
	carol, dave := "fmcp_"+strings.Repeat("c3", 16), "fmcp_"+strings.Repeat("d4", 16)
	entry := func(name, token string) string {
		sum := sha256.Sum256([]byte(token))
		return "- {name: " + name + ", sha256: " + hex.EncodeToString(sum[:]) + "}\n"
	}
	file := filepath.Join(t.TempDir(), "tokens.yaml")
	if err := os.WriteFile(file, []byte(entry("carol", carol)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(o.Worktree, config.Path))
	if err != nil {
		t.Fatal(err)
	}
	cfg = []byte(strings.Replace(string(cfg), "  http:\n", "  http:\n    token_file: "+file+"\n", 1))
	if err := os.WriteFile(filepath.Join(o.Worktree, config.Path), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := init(carol); got != http.StatusOK {
		t.Errorf("carol of the token file: %d, want 200", got)
	}
	if err := mcp.RevokeToken(ctx, o.Root, o.Worktree, "carol"); err == nil || !strings.Contains(err.Error(), "held by the token file "+file) {
		t.Errorf("revoke a token of the token file: %v", err)
	}
	listed, err := mcp.ListTokens(o.Root, o.Worktree)
	want := []mcp.TokenEntry{{Name: "bob", Source: config.Path}, {Name: "carol", Source: file}}
	if err != nil || !slices.EqualFunc(listed, want, func(a, b mcp.TokenEntry) bool { return a.Name == b.Name && a.Source == b.Source && a.Scopes == nil }) {
		t.Errorf("ListTokens = %+v, %v; want %+v", listed, err, want)
	}

	// The same size and modification time: the file was read too soon
	// after its change for its stat to prove its content.
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(entry("carol", dave)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := init(dave); got != http.StatusOK {
		t.Errorf("the token file changed in place, same size and time: %d, want 200", got)
	}
	if got := init(carol); got != http.StatusUnauthorized {
		t.Errorf("carol's old token: %d, want 401", got)
	}

	// A token file others can read: every request refused until fixed.
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := init(bob); got != http.StatusServiceUnavailable {
		t.Errorf("token file mode 0644: %d, want 503", got)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := init(bob); got != http.StatusOK {
		t.Errorf("token file mode 0600 again: %d, want 200", got)
	}

	// A config that no longer parses: refused until fixed.
	if err := os.WriteFile(filepath.Join(o.Worktree, config.Path), []byte("mcp: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := init(bob); got != http.StatusServiceUnavailable {
		t.Errorf("config broken: %d, want 503", got)
	}
	if err := os.WriteFile(filepath.Join(o.Worktree, config.Path), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := init(bob); got != http.StatusOK {
		t.Errorf("config fixed: %d, want 200", got)
	}

	// A config that no longer enables the server (a branch without the
	// block, the block switched off) serves nobody, as a start would not,
	// although this read-only daemon on loopback could serve without
	// tokens.
	for _, c := range []string{"memory:\n  indexBudgetTokens: 2000\n", "mcp:\n  enabled: false\n"} {
		if err := os.WriteFile(filepath.Join(o.Worktree, config.Path), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tok := range []string{"", bob} {
			if got := init(tok); got != http.StatusServiceUnavailable {
				t.Errorf("config %q, token %q: %d, want 503", c, tok, got)
			}
		}
	}
}

// TestTokenEditsKeepConfigMode: making and revoking a token rewrite the
// config with the permissions it had.
func TestTokenEditsKeepConfigMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := daemonOptions(t, "127.0.0.1:0")
	name := filepath.Join(o.Worktree, config.Path)
	if err := os.Chmod(name, 0o600); err != nil {
		t.Fatal(err)
	}
	mode := func(step string) {
		t.Helper()
		if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("config after %s: %v, %v; want mode 0600", step, fi.Mode(), err)
		}
	}
	if _, err := mcp.NewToken(ctx, o.Root, "ci", nil); err != nil {
		t.Fatal(err)
	}
	mode("token new")
	if err := mcp.RevokeToken(ctx, o.Root, o.Worktree, "ci"); err != nil {
		t.Fatal(err)
	}
	mode("token revoke")
}
