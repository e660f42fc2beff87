// Package testpause provides deterministic pause points for tests that must
// interrupt a process at an exact step (a SIGKILL between two steps of a
// write, a tool call still in flight when stdin closes).
//
// A point is active only when the environment variable FOUNDRY_TEST_PAUSE
// names it (a comma-separated list). An active point creates the file
// <FOUNDRY_TEST_PAUSE_DIR>/<name>.reached, then waits until
// <name>.release appears in that folder or ctx is done. Without
// FOUNDRY_TEST_PAUSE_DIR it waits for ctx alone. In production the variable is
// unset and Point returns at once.
package testpause

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Point pauses at the named point when a test asked for it.
func Point(ctx context.Context, name string) {
	list := os.Getenv("FOUNDRY_TEST_PAUSE")
	if list == "" || !active(list, name) {
		return
	}
	dir := os.Getenv("FOUNDRY_TEST_PAUSE_DIR")
	if dir == "" {
		<-ctx.Done()
		return
	}
	_ = os.WriteFile(filepath.Join(dir, name+".reached"), nil, 0o644)
	release := filepath.Join(dir, name+".release")
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(release); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func active(list, name string) bool {
	for _, p := range strings.Split(list, ",") {
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}
