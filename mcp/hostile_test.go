package mcp_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/mcp"
)

// hostileRisk is a risk.v1 artifact whose probability the JSON Schema
// library could not compare: it panicked in big.Rat.Cmp.
const hostileRisk = `{"schema": "risk.v1", "producedBy": {"agent": "analyst", "wave": "risks"}, "id": "RISK-1", "title": "Hostile", "category": "technical", "probability": 1e1000000000, "impactEur": 1, "mitigation": {"strategy": "accept", "action": "none"}, "owner": "me", "status": "open"}`

// TestHostileNumbersOverMCP checks that a hostile number neither kills the
// server (doctor validated in a goroutine nothing recovered) nor passes:
// the doctor tool reports the file, contract_validate and blackboard_write
// refuse the number, and the server still answers afterwards.
func TestHostileNumbersOverMCP(t *testing.T) {
	s := fixtureSession{root: copyFixture(t)}
	dir := filepath.Join(s.root, ".foundry", "blackboard", "risks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "analyst.json"), []byte(hostileRisk), 0o644); err != nil {
		t.Fatal(err)
	}
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"doctor","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"risk.v1","data":` + hostileRisk + `}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"risk.v1","path":".foundry/blackboard/risks/analyst.json"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"blackboard_write","arguments":{"wave":"w","agent":"a","schema":"risk.v1","data":` + hostileRisk + `}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	}, "\n")
	lines := splitLines(runSession(t, s, []byte(client)))
	if len(lines) != 5 {
		t.Fatalf("got %d answers, want 5:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, want := range []string{
		`analyst.json`,
		`number too large to validate`,
		`number too large to validate`,
		`"text":"blackboard_write failed: data refused at 1:`,
		`"result":{}`,
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("answer %d lacks %q:\n%s", i+1, want, lines[i])
		}
		if strings.Contains(lines[i], "panic") {
			t.Errorf("answer %d reports a panic:\n%s", i+1, lines[i])
		}
		if strings.Contains(lines[i], "not valid JSON") {
			t.Errorf("answer %d calls valid JSON invalid:\n%s", i+1, lines[i])
		}
	}
	if _, err := os.Stat(filepath.Join(s.root, ".foundry", "blackboard", "w", "a.json")); err == nil {
		t.Error("blackboard_write stored the hostile artifact")
	}
}

// TestIntegralLimit checks that a limit the input schema accepts as an
// integer (1.0) is not refused by Go's decoder ("cannot unmarshal number").
func TestIntegralLimit(t *testing.T) {
	s := fixtureSession{root: copyFixture(t)}
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"audit","limit":1.0}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"runbook_list","arguments":{"limit":2e0}}}`,
	}, "\n")
	for i, line := range splitLines(runSession(t, s, []byte(client))) {
		if strings.Contains(line, "cannot unmarshal") || strings.Contains(line, `"isError":true`) {
			t.Errorf("answer %d: %s", i+1, line)
		}
	}
}

// TestLongRunbookSlug checks that a 5,000-character slug is refused for
// its length, named once and cut, by runbook_get and by the runbook
// resource, instead of failing with ENAMETOOLONG and the slug echoed whole.
func TestLongRunbookSlug(t *testing.T) {
	s := fixtureSession{root: copyFixture(t)}
	slug := strings.Repeat("a", 5000)
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runbook_get","arguments":{"slug":"` + slug + `"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"foundry://runbooks/` + slug + `"}}`,
	}, "\n")
	lines := splitLines(runSession(t, s, []byte(client)))
	if len(lines) != 2 {
		t.Fatalf("got %d answers, want 2:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	want := `{"id":1,"result":{"content":[{"type":"text","text":"runbook_get failed: invalid runbook slug \"aaaaaaaaaaaaaaaaaaaa\"…: 5000 characters, at most 80"}],"isError":true},"jsonrpc":"2.0"}`
	if lines[0] != want {
		t.Errorf("runbook_get answered\n%.300s\nwant\n%s", lines[0], want)
	}
	if !strings.Contains(lines[1], `"message":"Unknown resource: foundry://runbooks/aaaa`) || len(lines[1]) > 2*1024+200 {
		t.Errorf("resources/read answered (%d bytes)\n%.300s", len(lines[1]), lines[1])
	}
	for i, l := range lines {
		if strings.Contains(l, "file name too long") {
			t.Errorf("answer %d: %.300s", i+1, l)
		}
	}
}

// TestFullReadRefusedBeforeBuilding checks that a full read of an artifact
// over the result limit is refused from the file's size, before the answer
// is built: blackboard_read and the artifact resource name the size and
// the limit, whatever the file holds (this one is not even JSON, which a
// read would have reported instead).
func TestFullReadRefusedBeforeBuilding(t *testing.T) {
	s := fixtureSession{root: copyFixture(t)}
	dir := filepath.Join(s.root, ".foundry", "blackboard", "big")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const size = 300 << 10
	if err := os.WriteFile(filepath.Join(dir, "a.json"), bytes.Repeat([]byte("x"), size), 0o644); err != nil {
		t.Fatal(err)
	}
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"big","full":true}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"foundry://blackboard/big/a"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"big"}}}`,
	}, "\n")
	lines := splitLines(runSession(t, s, []byte(client)))
	if len(lines) != 3 {
		t.Fatalf("got %d answers, want 3:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, want := range []string{
		`"text":"blackboard_read failed: result of at least 307200 bytes exceeds the 262144-byte limit; narrow the request: pass agent, a smaller limit, or leave out full"}],"isError":true`,
		`"message":"Internal error: resource foundry://blackboard/big/a is 307200 bytes, over the 262144-byte limit"`,
		`not valid JSON`,
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("answer %d lacks %q:\n%.500s", i+1, want, lines[i])
		}
	}
}

// TestErrorEchoBounded checks that every JSON-RPC error naming a value the
// client sent (a method, a cursor, a log level, a protocol version) names
// it cut, and but for the method redacted, as unknown tools and resources
// already are: a 1 MiB value of '<', which JSON escapes as \u003c, must not
// make a 6 MiB answer (7 MiB of it made lines of 44 to 88 MB, over the
// 10 MiB line the TypeScript SDK reads), and a secret in it must not come
// back.
func TestErrorEchoBounded(t *testing.T) {
	t.Parallel()
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	big := leakGH + " " + strings.Repeat("<", 1<<20)
	q := strconv.Quote(big)
	tests := []struct {
		name string
		req  string
		code string
		// redacted: package jsonrpc, which names an unknown method, knows
		// no secrets; it only cuts the name.
		redacted bool
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":` + q + `}`, `"code":-32601`, false},
		{"forged cursor", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":` + q + `}}`, `"code":-32602`, true},
		{"invalid log level", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":` + q + `}}`, `"code":-32602`, true},
		{"unknown protocol version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"` + mcp.MetaProtocolVersion + `":` + q + `}}}`, `"code":-32022`, true},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + q + `}}`, `"code":-32602`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			opts := mcp.Options{Registry: reg, RequestsPerMinute: -1}
			if err := mcp.Serve(context.Background(), strings.NewReader(tt.req+"\n"), &out, opts); err != nil {
				t.Fatal(err)
			}
			line := strings.TrimSuffix(out.String(), "\n")
			if !strings.HasPrefix(line, `{"id":1,"error":{`+tt.code) {
				t.Errorf("answer: %.300s", line)
			}
			if len(line) > 16<<10 {
				t.Errorf("answer is %d bytes, want at most 16 KiB: %.300s", len(line), line)
			}
			if tt.redacted && strings.Contains(line, leakGH) {
				t.Errorf("answer echoes the secret: %.300s", line)
			}
		})
	}
}

// TestAuditIDBounded checks that the audit line of a call records the
// request's id as it records the tool's name or the URI: cut and
// redacted. The id is the client's free text; a 1 MiB one made a 6 MB
// audit line, and a secret in it went to the log verbatim.
func TestAuditIDBounded(t *testing.T) {
	t.Parallel()
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	id := strconv.Quote(leakGH + strings.Repeat("<", 1<<20))
	tests := []struct {
		name   string
		params string
	}{
		{"tool call", `"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`},
		{"unknown tool", `"method":"tools/call","params":{"name":"nope"}}`},
		{"unknown resource", `"method":"resources/read","params":{"uri":"test://nowhere"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, audit bytes.Buffer
			opts := mcp.Options{Registry: reg, RequestsPerMinute: -1, Audit: &audit}
			in := `{"jsonrpc":"2.0","id":` + id + `,` + tt.params + "\n"
			if err := mcp.Serve(context.Background(), strings.NewReader(in), &out, opts); err != nil {
				t.Fatal(err)
			}
			line := strings.TrimSuffix(audit.String(), "\n")
			if line == "" || strings.Contains(line, "\n") {
				t.Fatalf("want one audit line, got %q; answer %.300s", line, out.String())
			}
			if len(line) > 2048 {
				t.Errorf("audit line of %d bytes: %.300s…", len(line), line)
			}
			if strings.Contains(line, leakGH) {
				t.Errorf("audit line holds the token: %.300s…", line)
			}
		})
	}
}
