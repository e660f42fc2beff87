package config

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsQuoteOptIn: the documents that show the mcp block foundry init
// writes show it as it is written, so that a reader comparing their
// config with the documents finds them alike.
func TestDocsQuoteOptIn(t *testing.T) {
	t.Parallel()
	want := MCPOptIn[strings.Index(MCPOptIn, "mcp:\n"):]
	block := regexp.MustCompile("(?s)```yaml\n(mcp:\n  enabled: true.*?)```")
	for _, name := range []string{"../README.md", "../docs/mcp.md", "../docs/claude-code.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		found := block.FindAllStringSubmatch(string(data), -1)
		if len(found) == 0 {
			t.Errorf("%s quotes no mcp block", name)
		}
		for _, m := range found {
			if m[1] != want {
				t.Errorf("%s quotes an mcp block other than the one foundry init writes:\n%s\nwant:\n%s", name, m[1], want)
			}
		}
	}
}
