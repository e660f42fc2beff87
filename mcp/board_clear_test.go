package mcp_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
)

// TestServerClearsWaveOncePerInterval checks that blackboard_write in a
// server clears a wave's stale temp files as the server's clock allows
// (blackboard.Clearings), not on every call: a killed writer's leftover
// planted after a write survives the next write, and goes with the first
// write once blackboard.ClearInterval has passed on the server's clock.
func TestServerClearsWaveOncePerInterval(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".foundry", "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now()
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	call := serveCalls(t, reg)
	write := func() {
		t.Helper()
		call("blackboard_write", `{"wave":"w","agent":"a","schema":"finding.v1","data":{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}}`)
	}
	write()
	leftover := filepath.Join(root, ".foundry", "blackboard", "w", confined.TempPrefix+"a.json-killed")
	if err := os.WriteFile(leftover, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * confined.StaleAge)
	if err := os.Chtimes(leftover, old, old); err != nil {
		t.Fatal(err)
	}
	write()
	if _, err := os.Lstat(leftover); err != nil {
		t.Fatalf("a write within the interval cleared the wave: %v", err)
	}
	clock = clock.Add(blackboard.ClearInterval)
	write()
	if _, err := os.Lstat(leftover); err == nil {
		t.Fatal("the first write once the interval passed left the stale temp file")
	}
}
