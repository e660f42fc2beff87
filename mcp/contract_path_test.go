package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestContractValidatePathIsProjectRelative checks that contract_validate's
// structuredContent names the file it read relative to the project root
// (docs/json.md's rule, which issue 16 extends to structuredContent), however
// the client spelled it: an absolute path inside the project or one with
// "./" reports the same path as a plain relative one.
func TestContractValidatePathIsProjectRelative(t *testing.T) {
	s := fixtureSession{root: copyFixture(t)}
	abs := filepath.Join(s.root, "inputs", "finding.json")
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"inputs/finding.json"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"` + filepath.ToSlash(abs) + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"./inputs/../inputs/finding.json"}}}`,
	}, "\n")
	got := strings.ReplaceAll(string(runSession(t, s, []byte(client))), s.root, "$ROOT")
	line := func(id string) string {
		return `{"id":` + id + `,"result":{"content":[{"type":"text","text":"VALID against finding.v1\n"}],"structuredContent":{"path":"inputs/finding.json","schema":"finding.v1","valid":true,"violations":[]}},"jsonrpc":"2.0"}`
	}
	want := []string{line("1"), line("2"), line("3")}
	if diff := cmp.Diff(want, splitLines([]byte(got))); diff != "" {
		t.Errorf("server lines (-want +got):\n%s", diff)
	}
}
