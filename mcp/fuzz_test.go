package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/mcp"
)

// FuzzServeParams sends arbitrary params, modern _meta included, to every
// method that reads params: the server must answer each request exactly once with a
// well-formed JSON-RPC message and never fail.
func FuzzServeParams(f *testing.F) {
	for _, s := range []string{
		`{"name":"echo","arguments":{"text":"hi"}}`,
		`{"name":"echo","arguments":{"text":7}}`,
		`{"name":"count","_meta":{"progressToken":{"x":1}}}`,
		`{"name":"leak","arguments":null}`,
		`{"uri":"test://items/a"}`,
		`{"uri":"test://boards/%2F/x"}`,
		`{"cursor":"dG9vbHM6Mg"}`,
		`{"level":"debug"}`,
		`{"protocolVersion":["2025-06-18"]}`,
		`{"requestId":1}`,
		`{"requestId":-1}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
		`{"name":"count","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}`,
		`{"uri":"test://readme","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}`,
		`{"_meta":"io.modelcontextprotocol/protocolVersion"}`,
		`[1,2]`,
		`null`,
	} {
		f.Add(s)
	}
	reg, err := fakeRegistry()
	if err != nil {
		f.Fatal(err)
	}
	methods := []string{"initialize", "tools/call", "tools/list", "resources/read", "resources/list",
		"resources/templates/list", "logging/setLevel", "ping", "server/discover"}
	f.Fuzz(func(t *testing.T, params string) {
		if strings.ContainsAny(params, "\n\r") || !json.Valid([]byte(params)) {
			return // one message per line; framing is FuzzReadLine's job
		}
		var in strings.Builder
		// First, so that it has nothing in flight to cancel.
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":` + params + "}\n")
		for i, m := range methods {
			in.WriteString(`{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"method":"` + m + `","params":` + params + "}\n")
		}
		var out bytes.Buffer
		if err := mcp.Serve(context.Background(), strings.NewReader(in.String()), &out, mcp.Options{Registry: reg, RequestsPerMinute: -1}); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		lines := splitLines(out.Bytes())
		responses := 0
		for _, l := range lines {
			checkMessage(t, l)
			if _, ok := responseKey(l); ok {
				responses++
			}
		}
		if responses != len(methods) {
			t.Fatalf("%d responses to %d requests:\n%s", responses, len(methods), out.String())
		}
	})
}
