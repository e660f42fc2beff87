package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var testHash = strings.Repeat("ab", 32)

func TestParseMCPHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    MCPHTTP
		wantErr string
	}{
		{name: "absent", in: "mcp:\n  enabled: true\n"},
		{name: "full", in: "mcp:\n  http:\n    listen: 127.0.0.1:9000\n    tls: {cert: c.pem, key: k.pem}\n    allowed_origins: [http://localhost:3000]\n" +
			"    token_file: /home/u/.config/foundry/tokens.yaml\n    max_concurrency: 8\n    rate_limit: {requests_per_minute: 100, burst: 10}\n" +
			"    tokens:\n      - {name: reviewer, scopes: [read:memory], sha256: " + testHash + "}\n      - {name: writer, sha256: " + testHash + "}\n",
			want: MCPHTTP{Listen: "127.0.0.1:9000", TLSCert: "c.pem", TLSKey: "k.pem", AllowedOrigins: []string{"http://localhost:3000"},
				TokenFile: "/home/u/.config/foundry/tokens.yaml", MaxConcurrency: 8, RequestsPerMinute: 100, Burst: 10,
				Tokens: []MCPToken{{Name: "reviewer", Scopes: []string{"read:memory"}, SHA256: testHash}, {Name: "writer", SHA256: testHash}}}},
		{name: "cert without key", in: "mcp:\n  http:\n    tls: {cert: c.pem}\n", wantErr: ".foundry/config.yaml:3: mcp.http.tls: want both cert and key"},
		{name: "token in clear", in: "mcp:\n  http:\n    tokens: [{name: a, sha256: fmcp_secret}]\n", wantErr: `mcp.http.tokens[0].sha256: want 64 lowercase hex digits, got string "fmcp_secret"`},
		{name: "duplicate name", in: "mcp:\n  http:\n    tokens: [{name: a, sha256: " + testHash + "}, {name: a, sha256: " + testHash + "}]\n", wantErr: `duplicate token name "a"`},
		{name: "no hash", in: "mcp:\n  http:\n    tokens: [{name: a}]\n", wantErr: "mcp.http.tokens[0]: want name and sha256"},
		{name: "bad scope", in: "mcp:\n  http:\n    tokens: [{name: a, scopes: [root], sha256: " + testHash + "}]\n", wantErr: `mcp.http.tokens[0].scopes[0]: want a scope like read:memory, got "root"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse(Path, []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.MCP.HTTP); diff != "" {
				t.Errorf("mcp.http (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddToken(t *testing.T) {
	t.Parallel()
	in := "# project config\nmcp:\n  enabled: true # opted in\n  scopes: [read:memory]\n"
	tok := MCPToken{Name: "reviewer", Scopes: []string{"read:memory"}, SHA256: testHash}
	out, err := AddToken(Path, []byte(in), tok)
	if err != nil {
		t.Fatal(err)
	}
	// yaml.v3 quotes a flow item holding a colon; comments and order stay.
	want := "# project config\nmcp:\n  enabled: true # opted in\n  scopes: ['read:memory']\n  http:\n    tokens:\n      - name: reviewer\n        scopes: ['read:memory']\n        sha256: " + testHash + "\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	out2, err := AddToken(Path, out, MCPToken{Name: "writer", SHA256: testHash})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(Path, out2)
	if err != nil || len(c.MCP.HTTP.Tokens) != 2 || c.MCP.HTTP.Tokens[1].Scopes != nil {
		t.Errorf("after a second token: %+v, %v", c.MCP.HTTP.Tokens, err)
	}
	if _, err := AddToken(Path, out2, tok); err == nil || !strings.Contains(err.Error(), "already has a token named reviewer") {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := AddToken(Path, []byte(""), tok); err != nil {
		t.Errorf("empty config: %v", err)
	}
}

func TestRemoveToken(t *testing.T) {
	t.Parallel()
	in := "# project config\nmcp:\n  enabled: true # opted in\n  http:\n    listen: 127.0.0.1:7400\n    tokens:\n      - name: reviewer\n        sha256: " + testHash + "\n      - {name: writer, sha256: " + testHash + "}\n"
	tests := []struct {
		name, token string
		in          string
		want        string
		wantErr     string
	}{
		{name: "first of two", token: "reviewer", in: in,
			want: "# project config\nmcp:\n  enabled: true # opted in\n  http:\n    listen: 127.0.0.1:7400\n    tokens:\n      - {name: writer, sha256: " + testHash + "}\n"},
		{name: "last of two", token: "writer", in: in,
			want: "# project config\nmcp:\n  enabled: true # opted in\n  http:\n    listen: 127.0.0.1:7400\n    tokens:\n      - name: reviewer\n        sha256: " + testHash + "\n"},
		{name: "the only one", token: "ci", in: "mcp:\n  http:\n    tokens: [{name: ci, sha256: " + testHash + "}]\n",
			want: "mcp:\n  http:\n    tokens: []\n"},
		{name: "unknown", token: "ci", in: in, wantErr: ".foundry/config.yaml has no token named ci"},
		{name: "no config", token: "ci", in: "", wantErr: ".foundry/config.yaml has no token named ci"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := RemoveToken(Path, []byte(tt.in), tt.token)
			if tt.wantErr != "" {
				var none *NoTokenError
				if err == nil || err.Error() != tt.wantErr || !errors.As(err, &none) {
					t.Errorf("RemoveToken = %q, %v; want the error %q", out, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTokens(t *testing.T) {
	t.Parallel()
	toks, err := ParseTokens("tokens.yaml", []byte("- {name: ci, scopes: [read:ops], sha256: "+testHash+"}\n"))
	if err != nil || len(toks) != 1 || toks[0].Name != "ci" {
		t.Errorf("ParseTokens = %+v, %v", toks, err)
	}
	if _, err := ParseTokens("tokens.yaml", []byte("- {name: ci, scopes: [read:opz], sha256: "+testHash+"}\n")); err == nil || !strings.Contains(err.Error(), `tokens.yaml:1: tokens[0].scopes[0]: unknown scope "read:opz"; did you mean read:ops?`) {
		t.Errorf("ParseTokens of an unknown scope = %v", err)
	}
	if _, err := ParseTokens("tokens.yaml", []byte("{name: ci}")); err == nil || !strings.Contains(err.Error(), "tokens.yaml:1: tokens: want a list") {
		t.Errorf("ParseTokens of a mapping = %v", err)
	}
}
