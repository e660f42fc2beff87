package facts

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// TestRepairFailedWriteMovesBack: a repair whose rewrite of a renumbered
// fact fails (here the file system refuses its bytes, in a child process
// whose file size limit is 10 bytes, as a full disk would) puts the fact
// back where it was, as it was. Left at its new name with its old id, it
// claimed a number no fact had, which the next repair skipped.
func TestRepairFailedWriteMovesBack(t *testing.T) {
	if root := os.Getenv("FOUNDRY_TEST_REPAIR_LIMIT"); root != "" {
		signal.Ignore(syscall.SIGXFSZ) // the write past the limit fails with EFBIG instead
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 10, Max: 10}); err != nil {
			t.Skipf("setrlimit: %v", err)
		}
		_, err := OpenDir(root, Options{Now: fixedNow}).Repair(context.Background(), nil)
		if err == nil || !strings.HasSuffix(err.Error(), " stays as it was") {
			t.Fatalf("Repair past the file size limit: %v", err)
		}
		return
	}
	t.Parallel()
	_, root, _ := newTestStore(t)
	// Two facts share fact-0016, linked to nothing: the later one moves.
	for _, f := range mergedFacts()[1:] {
		f.Supersedes = ""
		testenv.WriteFile(t, root, f.Path, string(Format(f)))
	}
	before := factFiles(t, root)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRepairFailedWriteMovesBack$")
	cmd.Env = append(os.Environ(), "FOUNDRY_TEST_REPAIR_LIMIT="+root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if after := factFiles(t, root); !slices.Equal(before, after) {
		t.Errorf("fact files after a failed repair: %q, want %q", after, before)
	}
}
