//go:build unix

package mcp_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestContractValidateReadsOnlyRegularFiles checks that contract_validate
// refuses a path naming a FIFO, a directory or a device instead of reading
// it: opening a FIFO blocks until a writer comes, and /dev/stdin is the
// server's own protocol stream, whose messages the call would swallow.
func TestContractValidateReadsOnlyRegularFiles(t *testing.T) {
	s := fixtureSession{root: copyFixture(t)}
	if err := syscall.Mkfifo(filepath.Join(s.root, "pipe.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"pipe.json"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"` + filepath.Join(s.root, "pipe.json") + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"/dev/stdin"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"inputs"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	}, "\n")
	got := strings.ReplaceAll(string(runSession(t, s, []byte(client))), s.root, "$ROOT")
	want := []string{
		`{"id":1,"result":{"content":[{"type":"text","text":"contract_validate failed: read artifact pipe.json: is not a regular file"}],"isError":true},"jsonrpc":"2.0"}`,
		`{"id":2,"result":{"content":[{"type":"text","text":"contract_validate failed: read artifact $ROOT/pipe.json: is not a regular file"}],"isError":true},"jsonrpc":"2.0"}`,
		`{"id":3,"result":{"content":[{"type":"text","text":"contract_validate failed: read artifact: /dev/stdin leads outside the project"}],"isError":true},"jsonrpc":"2.0"}`,
		`{"id":4,"result":{"content":[{"type":"text","text":"contract_validate failed: read artifact inputs: is a folder, not a file"}],"isError":true},"jsonrpc":"2.0"}`,
		`{"id":5,"result":{},"jsonrpc":"2.0"}`,
	}
	if diff := cmp.Diff(want, splitLines([]byte(got))); diff != "" {
		t.Errorf("server lines (-want +got):\n%s", diff)
	}
}
