package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/mcp"
)

// This file tests `foundry mcp serve` as a process: the binary is built
// with go build and driven over its stdin and stdout, by the official Go
// MCP SDK client and by raw JSON-RPC lines, and benchmarked.

// buildFoundry builds cmd/foundry into a temporary folder and returns the
// binary's path.
func buildFoundry(tb testing.TB) string {
	tb.Helper()
	goBin := testenv.Exec(tb, "go")
	bin := filepath.Join(tb.TempDir(), "foundry")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// mcpFixture copies the MCP fixture project (mcp/testdata/fixture) into a
// fresh folder and returns it.
func mcpFixture(tb testing.TB) string {
	tb.Helper()
	src := filepath.Join("..", "..", "mcp", "testdata", "fixture")
	root := tb.TempDir()
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
	return root
}

// validFinding is a finding.v1 artifact, valid once schema and producedBy
// are set.
var validFinding = map[string]any{
	"id": "F-014", "severity": "high", "title": "No rate limit on the login endpoint",
	"summary":         "POST /api/login accepts unlimited attempts per account and per source address.",
	"failureScenario": "An attacker sends 10k requests/min to /api/login with a password list; nothing stops them.",
	"confidence":      "high",
}

// TestMCPServeSDK builds foundry and drives `foundry mcp serve` over a
// copy of the fixture project with the official Go MCP SDK client, once in
// its default modern mode (it probes server/discover and stays on
// 2026-07-28) and once with the legacy revision forced (initialize): it
// lists and calls every tool (checking structuredContent against each
// tool's outputSchema), lists and reads every resource and template, and
// closes stdin, after which the server exits 0.
func TestMCPServeSDK(t *testing.T) {
	t.Parallel()
	bin := buildFoundry(t)
	for _, version := range []string{mcp.ModernProtocolVersion, "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			testMCPServeSDK(t, bin, version)
		})
	}
}

func testMCPServeSDK(t *testing.T, bin, version string) {
	root := mcpFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cmd := exec.Command(bin, "mcp", "serve")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "foundry-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}

	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != "foundry" || init.Instructions != mcp.Instructions || init.ProtocolVersion != version {
		t.Errorf("initialize result: %+v", init)
	}
	if init.Capabilities.Tools == nil || init.Capabilities.Resources == nil || init.Capabilities.Logging == nil {
		t.Errorf("capabilities: %+v", init.Capabilities)
	}

	args := map[string]any{
		"memory_search":     map[string]any{"query": "flyway migrations"},
		"memory_write":      map[string]any{"title": "Order ids are UUIDv7", "body": "New orders get UUIDv7 ids.\nWhy: index locality.\nHow to apply: generate them in the service.", "type": "decision"},
		"runbook_get":       map[string]any{"slug": "deploy-production"},
		"contract_validate": map[string]any{"schema": "finding.v1", "path": "inputs/rejected-finding.json"},
		"blackboard_write":  map[string]any{"wave": "analysis", "agent": "appsec-reviewer", "schema": "finding.v1", "data": validFinding},
		"blackboard_read":   map[string]any{"wave": "audit"},
		"doctor":            map[string]any{"history": false},
	}
	wantText := map[string]string{
		"memory_write":      "created: fact-0006\n",
		"memory_index":      "Rebuilt " + root,
		"contract_validate": "INVALID against finding.v1:\n- #: missing required property \"schema\"\n",
		"blackboard_write":  "Wrote .foundry/blackboard/analysis/appsec-reviewer.json (",
		"blackboard_read":   "- **appsec-reviewer.json** · schema review.v1 · by appsec-reviewer · ~711 tokens\n",
		"token_report":      "# Foundry token report\n",
		"doctor":            "foundry doctor: ",
		"memory_search":     "### fact-0001 · decision · confidence high\n",
		"runbook_list":      "- **deploy-production** — Deploy to production\n",
		"runbook_get":       "---\ntitle: Deploy to production\n",
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("list tools: %v", err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" || tool.Annotations == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s lacks a description, annotations or an output schema", tool.Name)
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
		if res.IsError || !strings.HasPrefix(text, wantText[tool.Name]) {
			t.Errorf("call %s: isError=%v text=%q, want a text starting %q", tool.Name, res.IsError, text, wantText[tool.Name])
		}
		schema, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		s, err := contracts.Compile(schema)
		if err != nil {
			t.Fatalf("compile the output schema of %s: %v", tool.Name, err)
		}
		if vs := s.Validate(res.StructuredContent); res.StructuredContent == nil || len(vs) > 0 {
			t.Errorf("structuredContent of %s = %v breaks its output schema: %v", tool.Name, res.StructuredContent, vs)
		}
	}
	want := []string{"memory_search", "memory_write", "memory_index", "runbook_list", "runbook_get",
		"contract_validate", "blackboard_write", "blackboard_read", "token_report", "doctor"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	// A failure the model can act on is a result, not a protocol error.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "contract_validate", Arguments: map[string]any{"schema": "finding.v1"}})
	if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != "Provide either `data` or `path`." {
		t.Errorf("contract_validate without data or path: %+v, %v", res, err)
	}

	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("list resources: %v", err)
		}
		if r.MIMEType != "text/markdown" {
			t.Errorf("resource %s has MIME type %q", r.URI, r.MIMEType)
		}
		uris = append(uris, r.URI)
	}
	if diff := cmp.Diff([]string{"foundry://memory/index", "foundry://contracts", "foundry://runbooks/deploy-production", "foundry://runbooks/rotate-api-keys"}, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	fill := map[string]*strings.Replacer{
		mcp.RunbookTemplate:    strings.NewReplacer("{slug}", "rotate-api-keys"),
		mcp.ContractTemplate:   strings.NewReplacer("{id}", "finding.v1"),
		mcp.FactTemplate:       strings.NewReplacer("{id}", "fact-0006"),
		mcp.BlackboardTemplate: strings.NewReplacer("{wave}", "analysis", "{agent}", "appsec-reviewer"),
	}
	var templates []string
	for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("list templates: %v", err)
		}
		templates = append(templates, tmpl.URITemplate)
		if r := fill[tmpl.URITemplate]; r != nil {
			uris = append(uris, r.Replace(tmpl.URITemplate))
		}
	}
	if diff := cmp.Diff([]string{mcp.RunbookTemplate, mcp.ContractTemplate, mcp.FactTemplate, mcp.BlackboardTemplate}, templates); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	for _, uri := range uris {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].Text == "" || res.Contents[0].MIMEType == "" {
			t.Errorf("read %s: %+v", uri, res.Contents)
		}
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "foundry://runbooks/nope"}); err == nil || !strings.Contains(err.Error(), "Unknown resource: foundry://runbooks/nope") {
		t.Errorf("read an unknown runbook: %v", err)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after stdin closed, want 0; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `msg="serving MCP on stdio"`) {
		t.Errorf("no start-up log on stderr:\n%s", stderr.String())
	}
}

// purityRequests is a full session: every method, every tool, every
// resource kind, errors of each code, a malformed line, a batch, ids 0 and
// "a", a cancellation, a progress token and a log level that makes the
// server send notifications/message.
func purityRequests() []string {
	call := func(id any, name string, args any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		return string(b)
	}
	read := func(id int, uri string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, id, uri)
	}
	return []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"purity","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		call(3, "memory_search", map[string]any{"query": "login rate limit"}),
		call(4, "memory_write", map[string]any{"title": "Invoices are issued per tenant", "body": "One invoice per tenant and month.", "type": "domain"}),
		call(5, "memory_write", map[string]any{"title": "Invoices are issued per tenant and month", "body": "On the first day of the month.", "type": "domain"}),
		call(23, "memory_index", map[string]any{}),
		call(6, "runbook_list", nil),
		call(7, "runbook_get", map[string]any{"slug": "nope"}),
		call(8, "contract_validate", map[string]any{"schema": "finding.v1", "data": validFinding}),
		call(9, "blackboard_write", map[string]any{"wave": "w", "agent": "a", "schema": "finding.v1", "data": map[string]any{}}),
		call(10, "blackboard_read", map[string]any{"wave": "audit", "full": true}),
		call(11, "token_report", nil),
		`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"doctor","arguments":{"history":false},"_meta":{"progressToken":"p1"}}}`,
		call(13, "memory_search", map[string]any{"limit": 99}),
		call(14, "no_such_tool", nil),
		`{"jsonrpc":"2.0","id":15,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":16,"method":"resources/templates/list"}`,
		read(17, "foundry://memory/index"),
		read(18, "foundry://contracts/finding.v1"),
		read(19, "foundry://nowhere"),
		`not json at all`,
		`[{"jsonrpc":"2.0","id":20,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}`,
		`{"jsonrpc":"2.0","id":21,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","id":22,"method":"prompts/list"}`,
	}
}

// TestMCPServeStdoutPurity runs a full session through the built binary,
// with --rpc-trace logging every message to stderr, and checks that every
// byte the server wrote to stdout belongs to a JSON-RPC 2.0 message, one
// compact object per line, and that every request was answered once.
func TestMCPServeStdoutPurity(t *testing.T) {
	t.Parallel()
	bin := buildFoundry(t)
	root := mcpFixture(t)
	cmd := exec.Command(bin, "mcp", "serve", "--rpc-trace")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(purityRequests(), "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("foundry mcp serve: %v\nstderr:\n%s", err, stderr.String())
	}

	out := stdout.Bytes()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("stdout does not end with a newline: %q", out)
	}
	answered := map[string]int{}
	idless, notes := 0, map[string]int{}
	for i, line := range bytes.Split(out[:len(out)-1], []byte("\n")) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, line); err != nil || !bytes.Equal(compact.Bytes(), line) {
			t.Errorf("stdout line %d is not one compact JSON value: %q", i+1, line)
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Errorf("stdout line %d is not a JSON object: %q", i+1, line)
			continue
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			t.Errorf("stdout line %d is not JSON-RPC 2.0: %q", i+1, line)
		}
		_, hasResult := m["result"]
		_, hasError := m["error"]
		id, hasID := m["id"]
		switch method, isNote := m["method"]; {
		case isNote && !hasID && !hasResult && !hasError:
			var name string
			_ = json.Unmarshal(method, &name)
			notes[name]++
		case hasResult == hasError:
			t.Errorf("stdout line %d is neither a result nor an error: %q", i+1, line)
		case hasResult && (!hasID || m["result"][0] != '{'):
			t.Errorf("stdout line %d: a result needs an id and an object: %q", i+1, line)
		case !hasID:
			idless++
		default:
			answered[string(id)]++
		}
	}
	var wantIDs []string
	for _, req := range purityRequests() {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(req), &m) != nil {
			continue
		}
		if id, ok := m["id"]; ok && string(id) != "1.5" {
			wantIDs = append(wantIDs, string(id))
		}
	}
	for _, id := range wantIDs {
		if answered[id] != 1 {
			t.Errorf("request %s answered %d times, want once", id, answered[id])
		}
	}
	if len(answered) != len(wantIDs) {
		t.Errorf("responses to %d ids, want %d: %v", len(answered), len(wantIDs), answered)
	}
	// The malformed line, the batch and the fractional id are answered
	// without an id.
	if idless != 3 {
		t.Errorf("%d id-less error responses, want 3 (parse error, batch, bad id)", idless)
	}
	if notes["notifications/progress"] == 0 || notes["notifications/message"] == 0 {
		t.Errorf("notifications sent: %v; want progress for doctor and log messages (a similar fact, doctor's phases)", notes)
	}
	for _, want := range []string{`msg="rpc recv"`, `msg="rpc send"`, `msg="serving MCP on stdio"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %s", want)
		}
	}
}

// TestMCPServeTraceRedacted checks that --rpc-trace logs what a client
// sends through the redactor that serves every answer: a token in a query
// reaches stderr (or --log-file) as [REDACTED].
func TestMCPServeTraceRedacted(t *testing.T) {
	t.Parallel()
	bin := buildFoundry(t)
	root := mcpFixture(t)
	token := "ghp_" + strings.Repeat("Tr4c", 9) // assembled: the source holds no token
	cmd := exec.Command(bin, "mcp", "serve", "--rpc-trace")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"deploy ` + token + `"}}}`,
	}, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("foundry mcp serve: %v\nstderr:\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), token[4:]) || strings.Contains(stdout.String(), token[4:]) {
		t.Errorf("the token reached the trace or an answer:\nstderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), `msg="rpc recv"`) || !strings.Contains(stderr.String(), "[REDACTED]") {
		t.Errorf("stderr lacks the redacted trace of the query:\n%s", stderr.String())
	}
}

// mcpProcess is a running `foundry mcp serve` driven line by line.
type mcpProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startMCP(tb testing.TB, bin, root string) *mcpProcess {
	tb.Helper()
	cmd := exec.Command(bin, "mcp", "serve")
	cmd.Dir = root
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return &mcpProcess{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// roundTrip sends one request line and reads one response line.
func (p *mcpProcess) roundTrip(tb testing.TB, line string) []byte {
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		tb.Fatal(err)
	}
	resp, err := p.out.ReadBytes('\n')
	if err != nil {
		tb.Fatalf("read response: %v", err)
	}
	return resp
}

func (p *mcpProcess) stop(tb testing.TB) {
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		tb.Errorf("foundry mcp serve: %v", err)
	}
}

const initializeLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

// BenchmarkMCPColdStart measures a whole process from start to its
// initialize response, on the fixture project.
func BenchmarkMCPColdStart(b *testing.B) {
	bin := buildFoundry(b)
	root := mcpFixture(b)
	b.ResetTimer()
	for b.Loop() {
		p := startMCP(b, bin, root)
		if resp := p.roundTrip(b, initializeLine); !bytes.Contains(resp, []byte(`"serverInfo":{"name":"foundry"`)) {
			b.Fatalf("initialize: %s", resp)
		}
		b.StopTimer()
		p.stop(b)
		b.StartTimer()
	}
}

// benchFacts is the size of the memory BenchmarkMCPMemorySearch searches.
const benchFacts = 10_000

// BenchmarkMCPMemorySearch measures one memory_search through the wire of a
// running server over 10,000 facts, each query naming one fact by its code
// word (as scripts/bench-mcp does for both servers). The first search,
// which parses every fact, is done before timing.
func BenchmarkMCPMemorySearch(b *testing.B) {
	bin := buildFoundry(b)
	root := b.TempDir()
	writeBenchFacts(b, root, benchFacts)
	p := startMCP(b, bin, root)
	defer p.stop(b)
	p.roundTrip(b, initializeLine)
	search := func(i int) []byte {
		return p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":%q}}}`,
			i+1, codeWord(i*7919%benchFacts)))
	}
	if resp := search(0); !bytes.Contains(resp, []byte(`"hits":[{`)) {
		b.Fatalf("warm-up search found nothing: %s", resp)
	}
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		if resp := search(i); !bytes.Contains(resp, []byte(`"hits":[{`)) {
			b.Fatalf("search %d found nothing: %s", i, resp)
		}
	}
}

// codeWord is the word that names fact number i alone: "kw" and i in base
// 26 letters, e.g. kwaaab.
func codeWord(i int) string {
	b := []byte("kwaaaa")
	for j := len(b) - 1; j >= 2; j-- {
		b[j] = byte('a' + i%26)
		i /= 26
	}
	return string(b)
}

// writeBenchFacts writes n facts into a new project at root, in the shape
// scripts/bench-mcp generates: a type in turn, a title over a small
// vocabulary with the fact's code word, a two-line body.
func writeBenchFacts(tb testing.TB, root string, n int) {
	tb.Helper()
	dir := filepath.Join(root, filepath.FromSlash(facts.Dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	// The default rate limit (600 requests a minute, bursts of 120) would
	// reject a benchmark's back-to-back calls.
	cfg := "mcp:\n  rate_limit: { requests_per_minute: 1000000, burst: 1000000 }\n"
	if err := os.WriteFile(filepath.Join(root, ".foundry", "config.yaml"), []byte(cfg), 0o644); err != nil {
		tb.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // facts are written long before they are searched
	areas := []string{"orders", "billing", "search", "auth", "export", "gateway", "catalog"}
	techs := []string{"postgres", "kafka", "redis", "flyway", "grpc", "opentelemetry", "s3"}
	for i := range n {
		id := facts.FormatID(i + 1)
		typ := facts.Types[i%len(facts.Types)]
		area, tech := areas[i%len(areas)], techs[(i/7)%len(techs)]
		title := fmt.Sprintf("The %s service relies on %s for %s", area, tech, codeWord(i))
		body := fmt.Sprintf("Fact %d about %s and %s.\nWhy: measured in load test %d.\nHow to apply: check %s before changing %s.", i+1, area, tech, i%97, tech, area)
		f := facts.Fact{
			ID: id, Type: typ, Title: title, Scope: "project", Tags: []string{area, tech},
			Confidence: facts.Medium, Source: "code", Created: "2026-01-02", Status: facts.Active, Body: body,
		}
		name := filepath.Join(dir, facts.FileName(id, title))
		if err := os.WriteFile(name, facts.Format(f), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chtimes(name, old, old); err != nil {
			tb.Fatal(err)
		}
	}
}
