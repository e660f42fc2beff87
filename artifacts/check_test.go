package artifacts_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
)

// plainFS hides that an FS is a Root's, so Check reads each input through
// the root by its full path instead of in per-folder batches.
type plainFS struct{ fs.FS }

func (p plainFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(p.FS, name) }

// TestCheckBatchesAsRoot checks that reading a project's artifacts in
// per-folder batches gives the results reading each through the root gives:
// folders longer than one batch, links to a sibling folder and out of the
// project, a folder named like an artifact, an oversized file, and (where
// there are named pipes) a pipe refused without blocking.
func TestCheckBatchesAsRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 75 {
		sev := "high"
		if i%3 == 0 {
			sev = "High" // invalid
		}
		write(fmt.Sprintf(".foundry/blackboard/w%d/a-%02d.json", i%2, i), fmt.Sprintf(`{"schema": "finding.v1", "producedBy": "agent", "id": "F-%d", "severity": %q, "title": "t", "summary": "s", "failureScenario": "f", "confidence": "high"}`, i, sev))
	}
	write(".foundry/blackboard/w0/broken.json", `{"schema": `)
	write(".foundry/blackboard/w0/big.json", "")
	if err := os.Truncate(filepath.Join(root, ".foundry/blackboard/w0/big.json"), artifacts.MaxBytes+1); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".foundry/blackboard/w0/folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("outside.json", `{"schema": "finding.v1"}`)
	for link, target := range map[string]string{"sibling.json": "../w1/a-01.json", "out.json": "../../../outside.json", "dangling.json": "nowhere.json"} {
		if err := os.Symlink(target, filepath.Join(root, ".foundry/blackboard/w0", link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	if runtime.GOOS != "windows" {
		if err := mkfifo(filepath.Join(root, ".foundry/blackboard/w0/pipe.json")); err != nil {
			t.Logf("no named pipe: %v", err)
		}
	}
	r, err := confined.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	reg, err := contracts.Load(r.FS())
	if err != nil {
		t.Fatal(err)
	}
	names, err := artifacts.List(r.FS())
	if err != nil {
		t.Fatal(err)
	}
	inputs := func(fsys fs.FS) []artifacts.Input {
		var in []artifacts.Input
		for _, n := range names {
			in = append(in, artifacts.Input{Path: n, FS: fsys, Name: n})
		}
		return in
	}
	got, err := artifacts.Check(context.Background(), reg, inputs(r.FS()), artifacts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := artifacts.Check(context.Background(), reg, inputs(plainFS{r.FS()}), artifacts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	errText := cmp.Transformer("error", func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	})
	if diff := cmp.Diff(want, got, errText); diff != "" {
		t.Errorf("batched results (-through the root +batched):\n%s", diff)
	}
	bad := 0
	for _, res := range got {
		if !res.OK() {
			bad++
		}
	}
	if len(got) < 80 || bad < 30 {
		t.Errorf("%d results, %d not OK: the fixture lost its hard cases", len(got), bad)
	}
}
