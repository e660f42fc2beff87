package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/mcp"
)

// TestErrorResultBounded checks that an error result obeys the tool's
// result-size limit like a success does: a rejection or an argument check
// listing one violation per property of a large input is cut, keeping its
// first lines verbatim and saying how much was cut.
func TestErrorResultBounded(t *testing.T) {
	const limit = 400
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`- #: missing required property "p%02d"`, i))
	}
	rejection := "Rejected: artifact does not satisfy finding.v1.\n" + strings.Join(lines, "\n") + "\nFix and call again.\n"
	reg := mcp.NewRegistry()
	err := mcp.AddTool(reg, mcp.Tool{
		Name: "reject", Description: "Rejects at length.", Scope: "read:test", Governance: mcp.Governance{AuditCategory: "test.read", MaxResultBytes: limit},
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
		return mcp.Output{}, mcp.Verbatim(rejection)
	})
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for i := range 40 {
		args = append(args, fmt.Sprintf(`"k%02d":%d`, i, i))
	}
	client := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reject"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"reject","arguments":{` + strings.Join(args, ",") + `}}}` + "\n"
	out := playSession(t, mcp.Options{Registry: reg, Version: "0.0.0-test"}, "", []byte(client))

	wantStart := map[string]string{
		"1": "Rejected: artifact does not satisfy finding.v1.\n- #: missing required property \"p00\"\n",
		"2": "reject failed: invalid arguments:\n- #: unexpected property \"k00\"\n",
	}
	for _, line := range splitLines(out) {
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatal(err)
		}
		var res struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		if err := json.Unmarshal(resp.Result, &res); err != nil || len(res.Content) != 1 {
			t.Fatalf("response %s: want a result with one content block", line)
		}
		text := res.Content[0].Text
		if len(resp.Result) > limit {
			t.Errorf("id %s: result of %d bytes, over the %d-byte limit", resp.ID, len(resp.Result), limit)
		}
		if !res.IsError {
			t.Errorf("id %s: isError = false", resp.ID)
		}
		if want := wantStart[string(resp.ID)]; !strings.HasPrefix(text, want) {
			t.Errorf("id %s: text %q does not start with %q", resp.ID, text, want)
		}
		if !strings.Contains(text, "more bytes cut: the text exceeds the 400-byte result limit") {
			t.Errorf("id %s: text %q does not say it was cut", resp.ID, text)
		}
	}
	if n := len(splitLines(out)); n != 2 {
		t.Errorf("%d responses, want 2", n)
	}
}

// TestToolPanicIsAnErrorResult checks that a tool whose handler panics is
// answered like any other failure of the core: an isError result
// "<tool> failed: …" and an audit line, and the session goes on.
func TestToolPanicIsAnErrorResult(t *testing.T) {
	reg := mcp.NewRegistry()
	err := mcp.AddTool(reg, mcp.Tool{
		Name: "boom", Description: "Panics.", Scope: "write:test", Mutating: true, Governance: mcp.Governance{AuditCategory: "test.write"},
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
		panic("boom: a bug in the core")
	})
	if err != nil {
		t.Fatal(err)
	}
	var audit strings.Builder
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := mcp.Options{Registry: reg, Version: "0.0.0-test", Audit: &audit, Now: func() time.Time { return clock }}
	client := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	got := splitLines(playSession(t, opts, "", []byte(client)))
	want := []string{
		`{"id":1,"result":{"content":[{"type":"text","text":"boom failed: internal error: boom: a bug in the core"}],"isError":true},"jsonrpc":"2.0"}`,
		`{"id":2,"result":{},"jsonrpc":"2.0"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("server lines (-want +got):\n%s", diff)
	}
	wantAudit := []string{
		`{"time":"2026-01-02T03:04:05Z","id":1,"method":"tools/call","name":"boom","scope":"write:test","category":"test.write","mutating":true,"outcome":"error","durationMs":0,"error":"boom failed: internal error: boom: a bug in the core"}`,
	}
	if diff := cmp.Diff(wantAudit, splitLines([]byte(audit.String()))); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
}

// TestCancelledSuccessAudited checks that a call cancelled by the client
// whose handler completes all the same is audited as ok (its work was
// done), while its response is still suppressed.
func TestCancelledSuccessAudited(t *testing.T) {
	reg := mcp.NewRegistry()
	err := mcp.AddTool(reg, mcp.Tool{
		Name: "stubborn", Description: "Writes even when cancelled.", Scope: "write:test", Mutating: true, Governance: mcp.Governance{AuditCategory: "test.write"},
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	}, func(ctx context.Context, _ *mcp.Call, _ struct{}) (mcp.Output, error) {
		pause.Point(ctx, "test.stubborn")
		return mcp.Output{Text: "written"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var audit strings.Builder
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := mcp.Options{Registry: reg, Version: "0.0.0-test", Audit: &audit, Now: func() time.Time { return clock }}
	client := `@async {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stubborn"}}` + "\n" +
		`@wait test.stubborn` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	got := splitLines(playSession(t, opts, "test.stubborn", []byte(client)))
	if diff := cmp.Diff([]string{`{"id":2,"result":{},"jsonrpc":"2.0"}`}, got); diff != "" {
		t.Errorf("server lines (-want +got):\n%s", diff)
	}
	wantAudit := []string{
		`{"time":"2026-01-02T03:04:05Z","id":1,"method":"tools/call","name":"stubborn","scope":"write:test","category":"test.write","mutating":true,"outcome":"ok","durationMs":0}`,
	}
	if diff := cmp.Diff(wantAudit, splitLines([]byte(audit.String()))); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
}

// failingWriter refuses every write, as an audit log on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestAuditFailureLogged: a record the audit log refuses (a full disk) is
// not dropped without a word: the server logs it as an error, naming the
// call, and goes on answering.
func TestAuditFailureLogged(t *testing.T) {
	t.Parallel()
	reg := mcp.NewRegistry()
	err := mcp.AddTool(reg, mcp.Tool{
		Name: "put", Description: "Writes.", Scope: "write:test", Mutating: true, Governance: mcp.Governance{AuditCategory: "test.write"},
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
		return mcp.Output{Text: "written"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	opts := mcp.Options{Registry: reg, Version: "0.0.0-test", Audit: failingWriter{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	client := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"put"}}` + "\n"
	var out bytes.Buffer
	if err := mcp.Serve(context.Background(), strings.NewReader(client), &out, opts); err != nil {
		t.Fatal(err)
	}
	got := splitLines(out.Bytes())
	if want := `{"id":1,"result":{"content":[{"type":"text","text":"written"}]},"jsonrpc":"2.0"}`; len(got) != 1 || got[0] != want {
		t.Errorf("server lines %q, want %q", got, want)
	}
	if !strings.Contains(logs.String(), `level=ERROR msg="audit record not written" method=tools/call name=put outcome=ok err="no space left on device"`) {
		t.Errorf("log does not say the audit record was lost:\n%s", logs.String())
	}
}
