package claude_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/claude"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestSetupAllOrNothing: when .claude/settings.json cannot be written (here
// the file system refuses its bytes, in a child process whose file size
// limit lies between the two files' sizes, as a full disk would), the
// .mcp.json written before it is put back as it was, or removed when it
// was new, and the error says nothing was changed.
func TestSetupAllOrNothing(t *testing.T) {
	if root, ok := testenv.FileSizeLimited(t); ok {
		_, err := claude.Setup(root)
		if err == nil || !strings.HasSuffix(err.Error(), "; nothing was changed") || !strings.HasPrefix(err.Error(), "set up .claude/settings.json: ") {
			t.Fatalf("Setup past the file size limit: %v", err)
		}
		return
	}
	t.Parallel()
	// The settings hold 2 KiB of the user's: merged, over the limit; the
	// server entry of .mcp.json stays well under it.
	settings := `{"permissions": {"allow": ["` + strings.Repeat("Bash(make test)", 140) + `"]}}` + "\n"
	for _, mcp := range []string{"", `{"mcpServers": {"other": {"command": "other"}}}` + "\n"} {
		root := t.TempDir()
		testenv.WriteFile(t, root, ".claude/settings.json", settings)
		if mcp != "" {
			testenv.WriteFile(t, root, ".mcp.json", mcp)
		}
		testenv.RunFileSizeLimited(t, 1024, root)
		got, err := os.ReadFile(filepath.Join(root, ".mcp.json"))
		switch {
		case mcp == "" && !os.IsNotExist(err):
			t.Errorf(".mcp.json left behind: %q, %v", got, err)
		case mcp != "" && string(got) != mcp:
			t.Errorf(".mcp.json = %q, %v; want it put back as %q", got, err, mcp)
		}
		if got := readFile(t, filepath.Join(root, ".claude", "settings.json")); got != settings {
			t.Errorf("settings.json changed: %q", got)
		}
	}
}
