// Package testpause is the test side of package internal/pause: it arms
// pause points from the environment, for tests that drive a process (or
// an in-process server) to an exact step. Only test files import it; the
// shipped binary never does (layering_test.go checks both).
//
// A point is active only when the environment variable FOUNDRY_TEST_PAUSE
// names it (a comma-separated list). An active point creates the file
// <FOUNDRY_TEST_PAUSE_DIR>/<name>.reached, then waits until
// <name>.release appears in that folder or ctx is done. Without
// FOUNDRY_TEST_PAUSE_DIR it waits for ctx alone.
package testpause

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/foundryhq/foundry/internal/pause"
)

// Enable installs [Wait] as the process's pause hook. A test package calls
// it once, from TestMain or an init function of a _test.go file.
func Enable() { pause.Install(Wait) }

// Wait pauses at the named point when the environment asks for it.
func Wait(ctx context.Context, name string) {
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
