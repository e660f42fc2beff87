package mcp_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/mcp"
)

// leak is one secret planted in the project: value must never come out.
type leak struct{ name, value string }

// Values are assembled at run time so the source holds no string a secret
// scanner would flag.
var (
	leakGH       = "ghp_" + strings.Repeat("a1B2", 9)
	leakAWS      = "AKIA" + "IOSFODNN7EXAMPLE"
	leakAWSSec   = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	leakNPM      = "npm_" + strings.Repeat("aB3d", 9)
	leakSlack    = "xoxb-" + "123456789012-" + strings.Repeat("Ab3", 8)
	leakBearer   = strings.Repeat("9f8e7d6c", 5)
	leakPEMBody  = "MIIEowIBAAKCAQEAleakyleaky"
	leakPEM      = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + leakPEMBody + "\n-----END RSA PRIVATE KEY-----"
	leakPEM64    = base64.StdEncoding.EncodeToString([]byte(leakPEM))
	leakSplit    = "ghp_" + strings.Repeat("Zz9y", 9)
	leakSplitZW  = leakSplit[:10] + "\u200b" + leakSplit[10:]
	leakWide     = "ghp_" + strings.Repeat("Qq7w", 9)
	leakWideFull = fullwidth(leakWide)
	leakEscaped  = "ghp_" + strings.Repeat("Jj5k", 9) // planted as ghp\u005f…, in a JSON string in prose
	leakKey      = "ghp_" + strings.Repeat("Kk6m", 9) // planted as an object key
)

func fullwidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r + 0xFEE0)
	}
	return b.String()
}

// leaks lists every planted value; the fact and the artifact below hold
// each of them.
var leaks = []leak{
	{"github token", leakGH}, {"aws key", leakAWS}, {"aws secret", leakAWSSec}, {"npm token", leakNPM},
	{"slack token", leakSlack}, {"bearer hex", leakBearer}, {"private key", leakPEMBody}, {"base64 private key", leakPEM64[14:60]},
	{"zero-width split token", leakSplit[10:]}, {"fullwidth token", leakWideFull[12:]}, {"fullwidth token folded", leakWide[4:]},
	{"password", "Hunter2-Zq9x"}, {"escaped password", "Esc4ped-Pw1"}, {"escaped token", "Esc4ped-Tk2"}, {"escaped api key", "Esc4ped-Ak3"},
	{"password hash", "$2b$12$Zq9xLeakyHashValue"}, {"session", "sess-8f7e6d5c4b3a"}, {"session id", "sid-77aa88bb99cc"},
	{"cookie", "ck-1a2b3c4d5e6f"}, {"credentials", "alice:Wonder1and"}, {"connection string password", "Tr0ub4dorX"},
	{"conn str", "Server=db;Uid=sa;Pwd=Conn5tr1ng"}, {"deep secret", "deep-1nside-value"},
	{"json-escaped token", leakEscaped[4:]}, {"token as a key", leakKey[4:]}, {"numeric password", "84736251937"},
}

// plantedText holds every secret as free text.
func plantedText() string {
	return strings.Join([]string{
		"token " + leakGH + " and " + leakAWS + " with AWS secret " + leakAWSSec,
		"npm " + leakNPM + " slack " + leakSlack,
		"Authorization: Bearer " + leakBearer,
		leakPEM,
		"tls.key: " + leakPEM64,
		"split " + leakSplitZW + " wide " + leakWideFull,
		`password: "Hunter2-Zq9x"`,
		`{"q": "password: \"Esc4ped-Pw1\""} {"token": "Esc4ped-Tk2"} API_KEY="Esc4ped-Ak3"`,
		`passwordHash: "$2b$12$Zq9xLeakyHashValue"`,
		"session=sess-8f7e6d5c4b3a sessionId: sid-77aa88bb99cc Cookie: ck-1a2b3c4d5e6f",
		"credentials: alice:Wonder1and",
		"postgres://app:Tr0ub4dorX@db.internal/orders",
		`connStr="Server=db;Uid=sa;Pwd=Conn5tr1ng"`,
		`The CI config reads {"cfg": "ghp\u005f` + leakEscaped[4:] + `"}.`,
	}, "\n")
}

// TestNoSecretLeaves plants one fact and one artifact holding each kind of
// secret (and a runbook), then reads them through every tool and resource:
// no secret value comes out, in the text block, structuredContent or a
// resource, in any JSON spelling.
func TestNoSecretLeaves(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	text := plantedText()
	testenv.WriteFile(t, root, ".foundry/memory/fact-0009-leaky-config-notes.md", "---\nid: fact-0009\ntype: domain\n"+
		"title: Leaky config notes\nscope: project\ntags: [leaky]\nconfidence: high\nsource: incident\ncreated: 2026-12-01\nstatus: active\n---\n"+
		text+"\n")
	artifact := map[string]any{
		"schema": "finding.v1", "producedBy": "leaky-agent", "id": "F-9", "severity": "high", "title": "Leaky config",
		"summary":           "leaky summary " + text,
		"failureScenario":   text,
		"confidence":        "high",
		"credentials":       "alice:Wonder1and",
		"passwordHash":      "$2b$12$Zq9xLeakyHashValue",
		"password_hash":     "$2b$12$Zq9xLeakyHashValue",
		"session":           "sess-8f7e6d5c4b3a",
		"sessionId":         "sid-77aa88bb99cc",
		"session_id":        "sid-77aa88bb99cc",
		"Cookie":            "ck-1a2b3c4d5e6f",
		"Authorization":     "Bearer " + leakBearer,
		"connection-string": "Server=db;Uid=sa;Pwd=Conn5tr1ng",
		"CONNECTION_STRING": "Server=db;Uid=sa;Pwd=Conn5tr1ng",
		"connStr":           "Server=db;Uid=sa;Pwd=Conn5tr1ng",
		"deep":              map[string]any{"a": []any{map[string]any{"Session.ID": "deep-1nside-value", "nested": `{"token": "Esc4ped-Tk2"}`}}},
		"q":                 `password: "Esc4ped-Pw1"`,
		"env":               `API_KEY="Esc4ped-Ak3" password="Hunter2-Zq9x"`,
		"db":                map[string]any{"user": "admin", "password": int64(84736251937)},
		"bots":              map[string]any{leakKey: "ci bot"},
	}
	data, err := json.MarshalIndent(artifact, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, root, ".foundry/blackboard/leaky/leaky-agent.json", string(data)+"\n")
	// A title with a secret, put there by hand: a write of a similar title
	// quotes it in its warning.
	testenv.WriteFile(t, root, ".foundry/memory/fact-0010-deploy-key-rotation.md", "---\nid: fact-0010\ntype: convention\n"+
		"title: Deploy key "+leakGH+" rotation\nscope: project\ntags: []\nconfidence: high\nsource: incident\ncreated: 2026-12-01\nstatus: active\n---\nRotate it.\n")
	testenv.WriteFile(t, root, ".foundry/runbooks/leaky-runbook.md", "---\ntitle: Leaky runbook\ntrigger: when "+leakGH+" leaks\n---\n"+text+"\n")

	requests := []string{
		call("memory_search", map[string]any{"query": "leaky config notes"}),
		call("memory_search", map[string]any{"query": "leaky", "limit": 25}),
		call("memory_index", map[string]any{"force": true}),
		call("runbook_list", map[string]any{}),
		call("runbook_get", map[string]any{"slug": "leaky-runbook"}),
		call("contract_validate", map[string]any{"schema": "finding.v1", "path": ".foundry/blackboard/leaky/leaky-agent.json"}),
		call("contract_validate", map[string]any{"schema": "finding.v1", "data": artifact}),
		call("blackboard_read", map[string]any{"wave": "leaky"}),
		call("blackboard_read", map[string]any{"wave": "leaky", "full": true}),
		call("blackboard_read", map[string]any{"wave": "leaky", "agent": "leaky-agent", "full": true}),
		call("token_report", map[string]any{}),
		call("doctor", map[string]any{}),
		call("memory_write", map[string]any{"title": "Leak attempt", "body": text, "type": "domain"}),
		call("blackboard_write", map[string]any{"wave": "leaky2", "agent": "leaky-agent", "schema": "finding.v1", "data": artifact}),
		read(mcp.MemoryIndexURI),
		read(mcp.ContractsURI),
		read("foundry://memory/facts/fact-0009"),
		read("foundry://runbooks/leaky-runbook"),
		read("foundry://blackboard/leaky/leaky-agent"),
		`"method":"resources/list"`,
		call("memory_write", map[string]any{"title": "Deploy key rotation", "body": "Rotate the deploy key monthly.", "type": "convention"}),
		`"method":"` + leakGH + `"`, // an unknown method is named in its error
	}
	got := serveProject(t, root, nil, requests...)
	for id := 1; id <= len(requests); id++ {
		r := got[id]
		// Every spelling: the raw line, and its strings decoded.
		var decoded any
		_ = json.Unmarshal([]byte(r.raw), &decoded)
		flat := r.raw + "\n" + strings.Join(allStrings(decoded), "\n")
		for _, l := range leaks {
			if strings.Contains(flat, l.value) {
				t.Errorf("request %d (%s): %s leaks:\n%.600s", id, requests[id-1][:min(len(requests[id-1]), 80)], l.name, r.raw)
			}
		}
	}
	// The write is refused by pointer, not by value.
	if w := got[14]; !w.Result.IsError || !strings.Contains(w.text(), "#/failureScenario: holds a GitHub token") {
		t.Errorf("blackboard_write of an artifact with secrets: %.400s", w.raw)
	}
	// The write warned of the similar fact, whose title it quotes redacted.
	if w := got[21]; w.Result.IsError || !strings.Contains(w.text(), "warning: similar to fact-0010") || !strings.Contains(w.raw, `"warnings":["warning: similar to fact-0010`) {
		t.Errorf("memory_write of a title like one holding a secret: %.600s", w.raw)
	}
	if e := got[22]; !strings.Contains(e.raw, "Method not found: [REDACTED]") {
		t.Errorf("unknown method: %.300s", e.raw)
	}
	// The reads did their job: the planted material was found.
	for id, want := range map[int]string{1: "fact-0009", 5: "Leaky runbook", 9: "leaky-agent.json", 17: "Leaky config notes", 19: "leaky summary"} {
		if !strings.Contains(got[id].raw, want) {
			t.Errorf("request %d does not show %q: %.300s", id, want, got[id].raw)
		}
	}
}

// allStrings returns every string in a decoded JSON value, and the
// strings of any JSON document a string holds.
func allStrings(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
		var inner any
		if json.Unmarshal([]byte(v), &inner) == nil {
			out = append(out, allStrings(inner)...)
		}
	case map[string]any:
		for k, e := range v {
			out = append(out, k)
			out = append(out, allStrings(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, allStrings(e)...)
		}
	}
	return out
}
