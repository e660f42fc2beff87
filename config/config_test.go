package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
)

func TestParse(t *testing.T) {
	t.Parallel()
	custom := Default()
	custom.MemoryRetrieval.MaxFacts = 12
	custom.Memory.IndexBudgetTokens = 2000
	custom.MCP.Declared = true
	custom.MCP.ReadOnly = true
	custom.MCP.Burst = 10
	custom.MCP.Capabilities = map[string]bool{"token_report": false, "foundry://runbooks/{slug}": true}
	custom.MCP.Scopes = []string{"read:memory", "read:ops"}
	tests := []struct {
		name    string
		in      string
		want    Config
		wantErr string
	}{
		{name: "empty", in: "", want: Default()},
		{name: "comments only", in: "# nothing\n", want: Default()},
		{
			name: "every key",
			in: `memoryRetrieval:
  maxFacts: 12
memory:
  indexBudgetTokens: 2000
mcp:
  read_only: true
  rate_limit: {burst: 10}
  scopes: [read:memory, read:ops]
  capabilities:
    token_report: {enabled: false}
    "foundry://runbooks/{slug}": {enabled: true}
`,
			want: custom,
		},
		{name: "unknown key", in: "memory:\n  indexBudget: 10\n", wantErr: ".foundry/config.yaml:2: memory.indexBudget: unknown key (known keys: indexBudgetTokens)"},
		{name: "unknown top key", in: "memory: {}\nmemry: {}\n", wantErr: ".foundry/config.yaml:2: memry: unknown key (known keys: mcp memory memoryRetrieval)"},
		{name: "wrong type", in: "memoryRetrieval:\n  maxFacts: eight\n", wantErr: `.foundry/config.yaml:2: memoryRetrieval.maxFacts: want an integer, got string "eight"`},
		{name: "out of range", in: "memoryRetrieval:\n  maxFacts: 40\n", wantErr: ".foundry/config.yaml:2: memoryRetrieval.maxFacts: 40 is out of range 1–25"},
		{name: "bool as string", in: "mcp:\n  enabled: \"yes\"\n", wantErr: `.foundry/config.yaml:2: mcp.enabled: want true or false, got string "yes"`},
		{name: "not a mapping", in: "mcp: 3\n", wantErr: ".foundry/config.yaml:1: mcp: want a mapping, got integer 3"},
		{name: "bad scope", in: "mcp:\n  scopes: [admin]\n", wantErr: `.foundry/config.yaml:2: mcp.scopes[0]: want a scope like read:memory, got string "admin"`},
		{name: "capability without enabled", in: "mcp:\n  capabilities:\n    doctor: {}\n", wantErr: ".foundry/config.yaml:3: mcp.capabilities.doctor: want {enabled: true} or {enabled: false}"},
		{name: "capability unknown key", in: "mcp:\n  capabilities:\n    doctor: {on: true}\n", wantErr: ".foundry/config.yaml:3: mcp.capabilities.doctor.on: unknown key (known keys: enabled)"},
		{name: "capability bad name", in: "mcp:\n  capabilities:\n    \"a b\": {enabled: true}\n", wantErr: `.foundry/config.yaml:3: mcp.capabilities.a b: want a capability name like memory_search, got string "a b"`},
		{name: "capabilities not a mapping", in: "mcp:\n  capabilities: [doctor]\n", wantErr: ".foundry/config.yaml:2: mcp.capabilities: want a mapping of capability names, got a list"},
		{name: "duplicate", in: "memory: {}\nmemory: {}\n", wantErr: ".foundry/config.yaml:2: memory: duplicate key"},
		{name: "bad yaml", in: "memory: [\n", wantErr: ".foundry/config.yaml:1: not valid YAML: \"[\" is not closed on this line"},
		{name: "bad yaml on a later line", in: "memory:\n  indexBudgetTokens: 100\nmemoryRetrieval: maxFacts: 3\n", wantErr: ".foundry/config.yaml:3: not valid YAML: the value holds \": \"; put it in quotes"},
		{name: "bad yaml, crlf", in: "memory:\r\n  indexBudgetTokens: 100\r\nmcp: 'open\r\n", wantErr: ".foundry/config.yaml:3: not valid YAML: the quoted value is not closed on this line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(Path, []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMCPDefaults pins seed 003's defaults: no file or no block is not
// declared and not enabled; read_only holds unless it is false; scopes
// omitted stay nil (every read scope, no write scope).
func TestMCPDefaults(t *testing.T) {
	t.Parallel()
	base := Default().MCP
	with := func(f func(*MCP)) MCP { m := base; f(&m); return m }
	tests := []struct {
		name string
		in   string
		want MCP
	}{
		{"no config", "", base},
		{"no mcp block", "memory:\n  indexBudgetTokens: 2000\n", base},
		{"empty block", "mcp: {}\n", with(func(m *MCP) { m.Declared = true })},
		{"block without read_only", "mcp:\n  enabled: true\n", with(func(m *MCP) { m.Declared, m.Enabled = true, true })},
		{"block without scopes", "mcp:\n  enabled: true\n  read_only: false\n", with(func(m *MCP) { m.Declared, m.Enabled, m.ReadOnly = true, true, false })},
		{"explicit opt-in", MCPOptIn, with(func(m *MCP) {
			m.Declared, m.Enabled, m.ReadOnly = true, true, false
			m.Scopes = []string{"read:memory", "write:memory", "read:runbooks", "read:contracts", "read:blackboard", "write:blackboard", "read:ops"}
		})},
		{"init template", Template, with(func(m *MCP) {
			m.Declared, m.Enabled, m.ReadOnly = true, true, false
			m.Scopes = []string{"read:memory", "write:memory", "read:runbooks", "read:contracts", "read:blackboard", "write:blackboard", "read:ops"}
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(Path, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.MCP); diff != "" {
				t.Errorf("MCP (-want +got):\n%s", diff)
			}
		})
	}
	if base.Enabled || !base.ReadOnly || base.Scopes != nil || base.Declared {
		t.Errorf("Default().MCP = %+v, want disabled, read-only, scopes nil, not declared", base)
	}
}

// TestParseChecked: ParseChecked refuses, with its line, an MCP scope or
// capability name this build does not serve; Parse, which every other
// command reads the config with, takes it.
func TestParseChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, wantErr string
	}{
		{name: "unknown scope", in: "mcp:\n  scopes: [read:memory, write:memroy]\n", wantErr: `.foundry/config.yaml:2: mcp.scopes[1]: unknown scope "write:memroy"; did you mean write:memory? (known: read:blackboard, read:contracts, read:memory, read:ops, read:runbooks, write:blackboard, write:memory)`},
		{name: "unknown capability", in: "mcp:\n  capabilities:\n    memory_search: {enabled: true}\n    token_reprot: {enabled: false}\n", wantErr: `.foundry/config.yaml:4: mcp.capabilities.token_reprot: unknown capability "token_reprot"; did you mean token_report? (known: blackboard_read, blackboard_write, contract_validate, doctor, foundry://blackboard/{wave}/{agent}, foundry://contracts, foundry://contracts/{id}, foundry://memory/facts/{id}, foundry://memory/index, foundry://runbooks/{slug}, memory_index, memory_search, memory_write, runbook_get, runbook_list, token_report)`},
		{name: "a runbook's resource", in: "mcp:\n  capabilities:\n    foundry://runbooks/deploy: {enabled: false}\n", wantErr: `.foundry/config.yaml:3: mcp.capabilities.foundry://runbooks/deploy: unknown capability "foundry://runbooks/deploy" (known: blackboard_read, blackboard_write, contract_validate, doctor, foundry://blackboard/{wave}/{agent}, foundry://contracts, foundry://contracts/{id}, foundry://memory/facts/{id}, foundry://memory/index, foundry://runbooks/{slug}, memory_index, memory_search, memory_write, runbook_get, runbook_list, token_report)`},
		{name: "token scope", in: "mcp:\n  http:\n    tokens: [{name: a, scopes: [read:memory, admin:all], sha256: " + strings.Repeat("a", 64) + "}]\n",
			wantErr: `.foundry/config.yaml:3: mcp.http.tokens[0].scopes[1]: unknown scope "admin:all" (known: read:blackboard, read:contracts, read:memory, read:ops, read:runbooks, write:blackboard, write:memory)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := ParseChecked(Path, []byte(tt.in)); err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseChecked error = %v\nwant %s", err, tt.wantErr)
			}
			if _, err := Parse(Path, []byte(tt.in)); err != nil {
				t.Errorf("Parse error = %v, want the name taken", err)
			}
		})
	}
	if _, err := ParseChecked(Path, []byte(Template)); err != nil {
		t.Errorf("ParseChecked(Template) = %v", err)
	}
}

func TestAddMCPOptIn(t *testing.T) {
	t.Parallel()
	legacy := "# Foundry configuration.\n#\n# memory:\n#   indexBudgetTokens: 4000\n" + legacyMCPComment
	tests := []struct {
		name    string
		in      string
		want    string // "" with changed false: unchanged
		wantErr string
	}{
		{name: "legacy template: commented mcp section replaced in place", in: legacy,
			want: "# Foundry configuration.\n#\n# memory:\n#   indexBudgetTokens: 4000\n\n" + MCPOptIn},
		{name: "other keys kept, block appended", in: "memoryRetrieval:\n  maxFacts: 3 # mine\nmemory: {indexBudgetTokens: 900}",
			want: "memoryRetrieval:\n  maxFacts: 3 # mine\nmemory: {indexBudgetTokens: 900}\n\n" + MCPOptIn},
		{name: "empty file", in: "", want: MCPOptIn},
		{name: "crlf file: the block in crlf too", in: "memoryRetrieval:\r\n  maxFacts: 3\r\n",
			want: "memoryRetrieval:\r\n  maxFacts: 3\r\n\r\n" + strings.ReplaceAll(MCPOptIn, "\n", "\r\n")},
		{name: "crlf legacy template replaced in place", in: strings.ReplaceAll(legacy, "\n", "\r\n"),
			want: strings.ReplaceAll("# Foundry configuration.\n#\n# memory:\n#   indexBudgetTokens: 4000\n\n"+MCPOptIn, "\n", "\r\n")},
		{name: "block that disables the server is the owner's choice", in: "mcp:\n  enabled: false\n"},
		{name: "block without enabled is kept too", in: "mcp:\n  audit: true\n"},
		{name: "current template unchanged", in: Template},
		{name: "flow mapping cannot take a block", in: "{memory: {indexBudgetTokens: 900}}\n",
			wantErr: "add the mcp opt-in to .foundry/config.yaml: the file's layout does not allow it; add the mcp block by hand as foundry mcp serve prints it"},
		{name: "invalid config", in: "memory: [\n", wantErr: ".foundry/config.yaml:1: not valid YAML: \"[\" is not closed on this line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, changed, err := AddMCPOptIn(Path, []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if changed || string(got) != tt.in {
					t.Fatalf("changed = %v, content:\n%s\nwant it unchanged", changed, got)
				}
				return
			}
			if !changed {
				t.Fatal("changed = false, want true")
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			again, changed, err := AddMCPOptIn(Path, got)
			if err != nil || changed || string(again) != string(got) {
				t.Errorf("second run: changed = %v, err = %v; want idempotent", changed, err)
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	t.Parallel()
	got, err := Load(fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default(), got); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("memoryRetrieval:\n  maxFacts: 3\n")
	f.Add("mcp:\n  scopes: [read:x]\n  rate_limit: {burst: 1}\n")
	f.Add("a: &x [*x]\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, _ = Parse("config.yaml", []byte(in))
	})
}

// TestErrorEchoIsShort checks that an error repeats at most 40 characters
// of the offending value, however long it is.
func TestErrorEchoIsShort(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("root:x:0:0:root:/root:/bin/bash ", 200)
	for _, doc := range []string{
		"memory:\n  indexBudgetTokens: \"" + long + "\"\n",
		"memory: \"" + long + "\"\n",
		long + "\n",
	} {
		_, err := Parse(".foundry/config.yaml", []byte(doc))
		if err == nil {
			t.Fatalf("Parse accepted %.30q…", doc)
		}
		if len(err.Error()) > 300 || strings.Count(err.Error(), "root:x") > 2 {
			t.Errorf("error echoes the value: %.400s", err)
		}
	}
}

// TestLoadRefusesLinks checks that a config.yaml linked out of .foundry (to
// /etc/passwd, say, or to the project's .env) or into a loop of links is
// an invalid config, named with why it was not read, never its target's
// content: doctor reports it and lenient readers fall back to the
// defaults.
func TestLoadRefusesLinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	secret := filepath.Join(base, "passwd")
	if err := os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target, want string
	}{
		{"absolute, outside", secret, ".foundry/config.yaml: not read: it is a link that leads outside .foundry"},
		{"relative, outside", "../../passwd", ".foundry/config.yaml: not read: it is a link that leads outside .foundry"},
		{"into the project", "../.env", ".foundry/config.yaml: not read: it is a link that leads outside .foundry"},
		{"a loop", "config.yaml", ".foundry/config.yaml: not read: it is a link in a loop of links"},
	}
	for i, tt := range tests {
		root := filepath.Join(base, fmt.Sprint("proj", i))
		if err := os.MkdirAll(filepath.Join(root, ".foundry"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".env"), []byte("mcp: {enabled: true}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(tt.target, filepath.Join(root, filepath.FromSlash(Path))); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		_, err := Load(confined.OpenFS(root))
		if !errors.Is(err, ErrInvalid) || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %q (ErrInvalid)", tt.name, err, tt.want)
		}
	}
}

// TestUnknownNames: the check on parsed values agrees with ParseChecked.
func TestUnknownNames(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", Template, "mcp:\n  scopes: [read:memory, write:memroy]\n", "mcp:\n  capabilities:\n    token_reprot: {enabled: false}\n",
		"mcp:\n  capabilities:\n    token_report: {enabled: false}\n",
		"mcp:\n  http:\n    tokens: [{name: a, scopes: [admin:all], sha256: " + strings.Repeat("a", 64) + "}]\n",
		"mcp:\n  http:\n    tokens: [{name: a, scopes: [read:ops], sha256: " + strings.Repeat("a", 64) + "}]\n",
	} {
		c, err := Parse(Path, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		_, cerr := ParseChecked(Path, []byte(in))
		if got := c.MCP.UnknownNames(); got != (cerr != nil) {
			t.Errorf("UnknownNames(%q) = %v, ParseChecked error %v", in, got, cerr)
		}
	}
}
