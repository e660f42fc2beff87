package config

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	custom := Default()
	custom.MemoryRetrieval.MaxFacts = 12
	custom.Memory.IndexBudgetTokens = 2000
	custom.MCP.ReadOnly = true
	custom.MCP.Burst = 10
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
		{name: "duplicate", in: "memory: {}\nmemory: {}\n", wantErr: ".foundry/config.yaml:2: memory: duplicate key"},
		{name: "bad yaml", in: "memory: [\n", wantErr: ".foundry/config.yaml:1: not valid YAML: did not find expected node content"},
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
