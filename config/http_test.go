package config

import (
	"errors"
	"slices"
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
	// Added in place: the other lines stay as written. The entry is
	// written as the encoder writes it, which quotes a flow item holding
	// a colon.
	want := "# project config\nmcp:\n  enabled: true # opted in\n  scopes: [read:memory]\n  http:\n    tokens:\n      - name: reviewer\n        scopes: ['read:memory']\n        sha256: " + testHash + "\n"
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

// TestTokenEditsInPlace: making and revoking tokens change the lines of
// the token alone, in the config init writes (its comments aligned) and
// in others; a shape the edit in place does not know is encoded anew.
func TestTokenEditsInPlace(t *testing.T) {
	t.Parallel()
	entry := func(ind, name string) string {
		return ind + "- name: " + name + "\n" + ind + "  sha256: " + testHash + "\n"
	}
	tests := []struct {
		name   string
		in     string
		add    string // the token made
		remove string // the token revoked, when add is ""
		want   string
	}{
		// After the last key of mcp, before the comments that end it.
		{name: "init's config", in: MCPOptIn, add: "ci",
			want: strings.Replace(MCPOptIn, "  # capabilities:", "  http:\n    tokens:\n"+entry("      ", "ci")+"  # capabilities:", 1)},
		{name: "after the last entry, its comment kept", in: "mcp:\n  enabled: true   # on\n  http:\n    listen: 127.0.0.1:7400   # here\n    tokens:\n" + entry("    ", "a") + "    # more below\n", add: "b",
			want: "mcp:\n  enabled: true   # on\n  http:\n    listen: 127.0.0.1:7400   # here\n    tokens:\n" + entry("    ", "a") + entry("    ", "b") + "    # more below\n"},
		{name: "http made, before the next top-level key", in: "mcp:\n    enabled: true\nmemory:\n    indexBudgetTokens: 100\n", add: "ci",
			want: "mcp:\n    enabled: true\n    http:\n        tokens:\n" + entry("            ", "ci") + "memory:\n    indexBudgetTokens: 100\n"},
		{name: "CRLF and no final line end", in: "mcp:\r\n  enabled: true", add: "ci",
			want: "mcp:\r\n  enabled: true\r\n  http:\r\n    tokens:\r\n      - name: ci\r\n        sha256: " + testHash + "\r\n"},
		{name: "comments alone", in: "# nothing yet\n", add: "ci",
			want: "# nothing yet\nmcp:\n  http:\n    tokens:\n" + entry("      ", "ci")},
		{name: "revoked in the middle", in: "mcp:\n  http:\n    tokens:   # all\n" + entry("      ", "a") + entry("      ", "b") + entry("      ", "c"), remove: "b",
			want: "mcp:\n  http:\n    tokens:   # all\n" + entry("      ", "a") + entry("      ", "c")},
		{name: "the last revoked", in: "mcp:\n  http:\n    tokens:   # all\n" + entry("      ", "a"), remove: "a",
			want: "mcp:\n  http:\n    tokens: []   # all\n"},
		{name: "made again", in: "mcp:\n  http:\n    tokens: []   # all\n", add: "a",
			want: "mcp:\n  http:\n    tokens:   # all\n" + entry("      ", "a")},
		{name: "a flow list: encoded anew", in: "mcp: {http: {tokens: []}}   # one line\n", add: "a",
			want: "mcp: {http: {tokens: [{name: a, sha256: " + testHash + "}]}} # one line\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out []byte
			var err error
			if tt.add != "" {
				out, err = AddToken(Path, []byte(tt.in), MCPToken{Name: tt.add, SHA256: testHash})
			} else {
				out, err = RemoveToken(Path, []byte(tt.in), tt.remove)
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

// FuzzTokenEdits: making a token, then revoking it, never fails on a
// config that parses, and leaves the config's other settings as they were.
func FuzzTokenEdits(f *testing.F) {
	for _, s := range []string{MCPOptIn, "", "# c\n", "mcp:\n  http:\n    tokens: []\n", "mcp:\r\n  http:\r\n    tokens:\r\n      - name: a\r\n        sha256: " + testHash + "\r\n",
		"mcp: {http: {}}\n", "mcp:\n  http:\n    listen: |\n      x\n", "mcp:\n    enabled: true\nmemory:\n    indexBudgetTokens: 100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		before, err := Parse(Path, []byte(data))
		if err != nil {
			return
		}
		tok := MCPToken{Name: "fuzz-token", SHA256: testHash}
		added, err := AddToken(Path, []byte(data), tok)
		if err != nil {
			return // a token of that name, or a config yaml.v3 cannot write back
		}
		c, err := Parse(Path, added)
		if err != nil || !slices.ContainsFunc(c.MCP.HTTP.Tokens, func(x MCPToken) bool { return x.Name == tok.Name && x.SHA256 == tok.SHA256 }) {
			t.Fatalf("AddToken(%q) = %q: %v, the token missing", data, added, err)
		}
		removed, err := RemoveToken(Path, added, tok.Name)
		if err != nil {
			t.Fatalf("RemoveToken(%q): %v", added, err)
		}
		after, err := Parse(Path, removed)
		if err != nil {
			t.Fatalf("RemoveToken(%q) = %q: %v", added, removed, err)
		}
		if len(after.MCP.HTTP.Tokens) != len(before.MCP.HTTP.Tokens) {
			t.Fatalf("made and revoked: tokens %v, were %v", after.MCP.HTTP.Tokens, before.MCP.HTTP.Tokens)
		}
	})
}

// TestTokenEditsLoneCR: a config whose lines end with a lone CR, which
// YAML counts as line ends, is encoded anew, not edited by lines it does
// not split (an index out of range before).
func TestTokenEditsLoneCR(t *testing.T) {
	t.Parallel()
	in := strings.ReplaceAll(MCPOptIn+"  http:\n    tokens:\n      - name: a\n        sha256: "+testHash+"\n", "\n", "\r")
	for _, add := range []bool{true, false} {
		var out []byte
		var err error
		if add {
			out, err = AddToken(Path, []byte(in), MCPToken{Name: "b", SHA256: testHash})
		} else {
			out, err = RemoveToken(Path, []byte(in), "a")
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(Path, out); err != nil {
			t.Errorf("add %v: %v", add, err)
		}
	}
}
