package mcp

import (
	"regexp"
	"strings"
	"testing"
)

// toolNamePattern is the rule validToolName implements, as the MCP
// specification words it.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func TestValidToolName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"", "a", "memory_search", "A.b-c_9", strings.Repeat("x", 128), strings.Repeat("x", 129),
		"memory search", "tool/x", "tool:x", "é", "tool\n", "\x00", "ü" + strings.Repeat("x", 127),
	} {
		if got, want := validToolName(name), toolNamePattern.MatchString(name); got != want {
			t.Errorf("validToolName(%q) = %v, want %v", name, got, want)
		}
	}
}

func FuzzValidToolName(f *testing.F) {
	for _, s := range []string{"", "memory_search", strings.Repeat("x", 128), "a b", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := validToolName(name), toolNamePattern.MatchString(name); got != want {
			t.Errorf("validToolName(%q) = %v, want %v", name, got, want)
		}
	})
}
