package config

import (
	"regexp"
	"strings"
	"testing"
)

// The rules validScope and validCapability implement, as regular
// expressions.
var (
	scopePattern      = regexp.MustCompile(`^[a-z]+:[a-z]+$`)
	capabilityPattern = regexp.MustCompile(`^[A-Za-z0-9_.\-:/{}]{1,256}$`)
)

func checkNames(t *testing.T, s string) {
	t.Helper()
	if got, want := validScope(s), scopePattern.MatchString(s); got != want {
		t.Errorf("validScope(%q) = %v, want %v", s, got, want)
	}
	if got, want := validCapability(s), capabilityPattern.MatchString(s); got != want {
		t.Errorf("validCapability(%q) = %v, want %v", s, got, want)
	}
}

func TestValidNames(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "read:memory", "write:blackboard", "read:", ":memory", "read:memory:x", "Read:memory", "read memory",
		"read:memory\n", "memory_search", "foundry://runbooks/{slug}", "a", strings.Repeat("x", 256),
		strings.Repeat("x", 257), "é", "ü" + strings.Repeat("x", 255), "tool name", "\x00", "a+b",
	} {
		checkNames(t, s)
	}
}

func FuzzValidNames(f *testing.F) {
	for _, s := range []string{"read:memory", "foundry://contracts/{id}", strings.Repeat("x", 256), ":", "é"} {
		f.Add(s)
	}
	f.Fuzz(checkNames)
}
