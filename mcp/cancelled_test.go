package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/mcp"
)

// TestCancelledCallSendsNothing cancels a call whose tool, winding down,
// still reports progress and logs: once notifications/cancelled has
// arrived nothing more is sent for the request (MCP 2026-07-28, stdio
// Cancellation: the server MUST NOT send any further messages for it),
// neither its response nor a notification, in either era, whatever the
// kind of the call's id (MCP's RequestId is a string or any integer).
func TestCancelledCallSendsNothing(t *testing.T) {
	t.Parallel()
	const modernMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"`
	const legacyPre = `{"jsonrpc":"2.0","id":0,"method":"logging/setLevel","params":{"level":"debug"}}`
	legacyCall := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"wind_down","_meta":{"progressToken":"p"}}}`
	}
	modernCall := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"wind_down","_meta":{"progressToken":"p",` + modernMeta + `}}}`
	}
	for _, tt := range []struct {
		name string
		pre  string // a request answered before the call
		id   string // the call's id, as JSON
		call string
	}{
		{name: "2025-11-25", pre: legacyPre, id: `1`, call: legacyCall(`1`)},
		{name: "2026-07-28", id: `1`, call: modernCall(`1`)},
		{name: "2025-11-25 negative id", pre: legacyPre, id: `-1`, call: legacyCall(`-1`)},
		{name: "2026-07-28 negative id", id: `-7`, call: modernCall(`-7`)},
		{name: "2026-07-28 smallest id", id: `-9223372036854775808`, call: modernCall(`-9223372036854775808`)},
		{name: "2026-07-28 string id", id: `"-7"`, call: modernCall(`"-7"`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			started := make(chan struct{})
			reg := mcp.NewRegistry()
			err := mcp.AddTool(reg, mcp.Tool{
				Name: "wind_down", Description: "Reports progress and logs once cancelled.", InputSchema: json.RawMessage(`{"type":"object"}`), Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read"},
			}, func(ctx context.Context, call *mcp.Call, _ struct{}) (mcp.Output, error) {
				close(started)
				<-ctx.Done()
				call.Progress(ctx, 1, 0, "winding down")
				call.Log(ctx, mcp.LogWarning, "winding down")
				return mcp.Output{}, ctx.Err()
			})
			if err != nil {
				t.Fatal(err)
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- mcp.Serve(context.Background(), inR, outW, mcp.Options{Registry: reg})
				outW.Close()
			}()
			lines := make(chan string, 16)
			go func() {
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			if tt.pre != "" {
				_, _ = io.WriteString(inW, tt.pre+"\n")
				if l := <-lines; !strings.Contains(l, `"result":{}`) {
					t.Fatalf("%s: %s", tt.pre, l)
				}
			}
			_, _ = io.WriteString(inW, tt.call+"\n")
			select {
			case <-started:
			case l := <-lines:
				t.Fatalf("answered before it was cancelled: %s", l)
			case <-time.After(10 * time.Second): // a hang guard, not a timing assumption
				t.Fatal("the call did not start within 10s")
			}
			_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+tt.id+`}}`+"\n")
			inW.Close()
			if err := <-served; err != nil {
				t.Errorf("Serve = %v", err)
			}
			for l := range lines {
				t.Errorf("sent for a cancelled call: %s", l)
			}
		})
	}
}
