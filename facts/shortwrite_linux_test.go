package facts

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// TestRepairFailedWriteMovesBack: a repair whose rewrite of a renumbered
// fact fails (here the file system refuses its bytes, in a child process
// whose file size limit is 10 bytes, as a full disk would) puts the fact
// back where it was, as it was. Left at its new name with its old id, it
// claimed a number no fact had, which the next repair skipped.
func TestRepairFailedWriteMovesBack(t *testing.T) {
	if root, ok := testenv.FileSizeLimited(t); ok {
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
	testenv.RunFileSizeLimited(t, 10, root)
	if after := factFiles(t, root); !slices.Equal(before, after) {
		t.Errorf("fact files after a failed repair: %q, want %q", after, before)
	}
}
