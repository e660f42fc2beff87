package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/foundryhq/foundry/mcp"
)

// TestHTTPTranscript replays the HTTP transcripts in testdata/http against
// one HTTP server. Each client line is one POST: a JSON object with the
// request headers ("h") and the body ("body"); the writer's bearer token is
// added to every request. Each server line is the status code, then the
// response body when there is one; an event stream is "event-stream" and
// one indented line per message. $SESSION stands for the Mcp-Session-Id
// that the last initialize returned, in both sections.
func TestHTTPTranscript(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "http", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/http: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var client, server *txtar.File
			for i := range ar.Files {
				switch ar.Files[i].Name {
				case "client":
					client = &ar.Files[i]
				case "server":
					server = &ar.Files[i]
				}
			}
			if client == nil || server == nil || len(bytes.TrimSpace(ar.Comment)) == 0 {
				t.Fatal("transcript needs a prose header, a client and a server section")
			}
			reg, err := fakeRegistry()
			if err != nil {
				t.Fatal(err)
			}
			d := startHTTP(t, reg, nil)
			var got []string
			session := ""
			for _, line := range splitLines(client.Data) {
				var step struct {
					H    map[string]string `json:"h"`
					Body json.RawMessage   `json:"body"`
				}
				if err := json.Unmarshal([]byte(line), &step); err != nil {
					t.Fatalf("bad client line %q: %v", line, err)
				}
				req, err := http.NewRequest(http.MethodPost, d.url, bytes.NewReader(step.Body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+tokenRW)
				for k, v := range step.H {
					req.Header.Set(k, strings.ReplaceAll(v, "$SESSION", session))
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
					session = id
				}
				out := strconv.Itoa(resp.StatusCode)
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
					// One line per event: the status, then each message.
					out += " event-stream"
					for _, l := range strings.Split(string(body), "\n") {
						if data, ok := strings.CutPrefix(l, "data: "); ok {
							checkMessage(t, data)
							out += "\n  " + data
						}
					}
				} else if b := bytes.TrimSpace(body); len(b) > 0 {
					checkMessage(t, string(b))
					out += " " + string(b)
				}
				if session != "" {
					out = strings.ReplaceAll(out, session, "$SESSION")
				}
				got = append(got, strings.Split(out, "\n")...)
			}
			if *update {
				server.Data = []byte(strings.Join(got, "\n") + "\n")
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(splitLines(server.Data), got); diff != "" {
				t.Errorf("server lines (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzHTTPEra posts arbitrary MCP-Protocol-Version, Mcp-Method and
// Mcp-Name headers with arbitrary params to the HTTP handler: whatever they
// hold, the answer is one of the transport's statuses with an empty body or
// one well-formed JSON-RPC message, and nothing panics.
func FuzzHTTPEra(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, s := range [][4]string{
		{"2026-07-28", "tools/call", "echo", `{"name":"echo","arguments":{"text":"hi"},` + meta + `}`},
		{"2026-07-28", "tools/call", "=?base64?ZWNobw==?=", `{"name":"echo",` + meta + `}`},
		{"2026-07-28", "tools/call", "=?base64?ZWNobw?=", `{"name":"echo",` + meta + `}`},
		{"2026-07-28", "resources/read", "test://readme", `{"uri":"test://readme",` + meta + `}`},
		{"2026-07-28", "tools/list", "", `{}`},
		{"1900-01-01", "server/discover", "", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}`},
		{"2025-11-25", "ping", "", `{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`},
		{"", "", "\x00", `[1]`},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	reg, err := fakeRegistry()
	if err != nil {
		f.Fatal(err)
	}
	h, err := mcp.NewHTTPHandler(mcp.HTTPOptions{Options: mcp.Options{Registry: reg, RequestsPerMinute: -1}, TotalRequestsPerMinute: -1})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(h.Close)
	methods := []string{"server/discover", "tools/call", "resources/read", "tools/list", "ping", "initialize"}
	f.Fuzz(func(t *testing.T, version, methodHeader, name, params string) {
		if !json.Valid([]byte(params)) {
			return
		}
		for i, m := range methods {
			body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"` + m + `","params":` + params + `}`
			req := httptest.NewRequest(http.MethodPost, mcp.Endpoint, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range map[string]string{"MCP-Protocol-Version": version, "Mcp-Method": methodHeader, "Mcp-Name": name} {
				if v != "" {
					req.Header[http.CanonicalHeaderKey(k)] = []string{v}
				}
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if id := w.Header().Get("Mcp-Session-Id"); id != "" {
				// The handler lives across runs: a session an initialize
				// opened is ended, as a client would, or 256 runs would
				// fill the server and every later one get 503.
				del := httptest.NewRequest(http.MethodDelete, mcp.Endpoint, nil)
				del.Header.Set("Mcp-Session-Id", id)
				h.ServeHTTP(httptest.NewRecorder(), del)
			}
			switch w.Code {
			case http.StatusOK, http.StatusAccepted, http.StatusBadRequest, http.StatusNotFound:
			default:
				t.Fatalf("%s: status %d: %s", m, w.Code, w.Body)
			}
			if b := bytes.TrimSpace(w.Body.Bytes()); len(b) > 0 && !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
				checkMessage(t, string(b))
			}
		}
	})
}

// TestHTTPModernRequestsIndependent checks that requests of revision
// 2026-07-28 are served each on its own, as the revision has no session:
// two agents sharing one token (or none) may use the same JSON-RPC id at
// the same time, and a notifications/cancelled naming that id from one of
// them does not cancel the other's call (on HTTP, closing the response
// stream is the cancellation).
func TestHTTPModernRequestsIndependent(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	reg := mcp.NewRegistry()
	if err := mcp.AddTool(reg, mcp.Tool{
		Name: "hold", Description: "Waits until released.", InputSchema: []byte(`{"type":"object"}`), Scope: scopeReadTest,
		Governance: mcp.Governance{AuditCategory: "test.read"},
	}, func(ctx context.Context, _ *mcp.Call, _ struct{}) (mcp.Output, error) {
		started <- struct{}{}
		select {
		case <-release:
			return mcp.Output{Text: "released"}, nil
		case <-ctx.Done():
			return mcp.Output{}, ctx.Err()
		}
	}); err != nil {
		t.Fatal(err)
	}
	url, _, stop := serveLoopback(t, reg, func(o *mcp.HTTPOptions) { o.Tokens = testTokens() })
	defer stop()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	send := func(body string, h map[string]string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tokenRW)
		req.Header.Set("MCP-Protocol-Version", mcp.ModernProtocolVersion)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold",` + meta + `}}`
	headers := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "hold"}
	answers := make(chan string, 2)
	for range 2 {
		go func() {
			_, b := send(call, headers)
			answers <- b
		}()
	}
	for range 2 {
		select {
		case <-started:
		case b := <-answers:
			t.Fatalf("a call with the id of another agent's call in flight was refused: %s", b)
		}
	}
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,` + meta + `}}`
	if st, b := send(cancel, map[string]string{"Mcp-Method": "notifications/cancelled"}); st != http.StatusAccepted {
		t.Errorf("notifications/cancelled: %d %s", st, b)
	}
	close(release)
	for range 2 {
		if b := <-answers; !strings.Contains(b, `"text":"released"`) {
			t.Errorf("held call: %s, want it released", b)
		}
	}
}
