package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/mcp"
)

// TestSDKClient drives Serve with the official Go MCP SDK client, a
// third-party check of the wire, in both eras: by default the client probes
// server/discover and stays on 2026-07-28; with 2025-11-25 forced it opens
// with initialize. Either way it lists and calls every tool, lists and
// reads every resource and template, and closes its end, after which Serve
// returns nil.
func TestSDKClient(t *testing.T) {
	t.Parallel()
	for _, version := range []string{mcp.ModernProtocolVersion, "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			testSDKClient(t, version)
		})
	}
}

func testSDKClient(t *testing.T, version string) {
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- mcp.Serve(ctx, inR, outW, mcp.Options{Registry: reg, Version: "1.2.3", Trace: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
		outW.Close()
	}()

	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	exerciseSDKSession(t, ctx, cs, version)

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil after the client closed its end", err)
	}
}

// exerciseSDKSession checks an SDK client session on the fake registry,
// connected for the given protocol version: the initialize (or discover)
// result, ping, every tool called, every resource and template read, and
// an unknown resource.
func exerciseSDKSession(t *testing.T, ctx context.Context, cs *sdk.ClientSession, version string) {
	t.Helper()
	init := cs.InitializeResult()
	// The fake registry has none of the tools the instructions name.
	if init.ServerInfo == nil || init.ServerInfo.Name != "foundry" || init.ServerInfo.Version != "1.2.3" || init.Instructions != "Foundry memory and contracts." || init.ProtocolVersion != version {
		t.Errorf("initialize result: %+v", init)
	}
	if init.Capabilities.Tools == nil || init.Capabilities.Resources == nil || init.Capabilities.Logging == nil {
		t.Errorf("capabilities: %+v", init.Capabilities)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("ping: %v", err)
	}

	args := map[string]any{
		"echo":       map[string]any{"text": "hi"},
		"note_write": map[string]any{"title": "a note"},
	}
	wantError := map[string]string{
		"fail":     "fail failed: open .foundry/memory: disk on fire",
		"verbatim": "Provide either `data` or `path`.",
		"big":      "big failed: result of 102 bytes exceeds the 100-byte limit; narrow the request",
		"badout":   `badout failed: internal error: result does not match the output schema: #: missing required property "id"`,
		"stuck":    "stuck failed: timed out after 1ms",
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("list tools: %v", err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" || tool.Annotations == nil {
			t.Errorf("tool %s lacks a description or annotations", tool.Name)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool.Name, Arguments: args[tool.Name]})
		if err != nil {
			t.Errorf("call %s: %v", tool.Name, err)
			continue
		}
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*sdk.TextContent); ok {
				text = tc.Text
			}
		}
		if want, ok := wantError[tool.Name]; ok {
			if !res.IsError || text != want {
				t.Errorf("call %s: isError=%v text=%q, want error %q", tool.Name, res.IsError, text, want)
			}
			continue
		}
		if res.IsError || text == "" {
			t.Errorf("call %s: isError=%v text=%q", tool.Name, res.IsError, text)
		}
		if tool.OutputSchema == nil {
			continue
		}
		schema, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		s, err := contracts.Compile(schema)
		if err != nil {
			t.Fatalf("compile output schema of %s: %v", tool.Name, err)
		}
		if vs := s.Validate(res.StructuredContent); len(vs) > 0 || res.StructuredContent == nil {
			t.Errorf("structuredContent of %s = %v breaks its output schema: %v", tool.Name, res.StructuredContent, vs)
		}
	}
	if got := strings.Join(names, ","); got != "echo,note_write,fail,verbatim,slow,count,leak,big,badout,stuck" {
		t.Errorf("tools listed: %s", got)
	}

	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("list resources: %v", err)
		}
		uris = append(uris, r.URI)
	}
	for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("list templates: %v", err)
		}
		uris = append(uris, strings.NewReplacer("{id}", "a", "{wave}", "w1", "{agent}", "bot").Replace(tmpl.URITemplate))
	}
	for _, uri := range uris {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].Text == "" {
			t.Errorf("read %s: %+v", uri, res.Contents)
		}
	}
	if len(uris) != 5 {
		t.Errorf("resources and templates: %q", uris)
	}
	_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://nowhere"})
	if err == nil || !strings.Contains(err.Error(), "Unknown resource: test://nowhere") {
		t.Errorf("read unknown resource: %v", err)
	}
}
