package artifacts_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
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
	write := func(name, content string) { t.Helper(); testenv.WriteFile(t, root, name, content) }
	for i := range 300 { // two folders, each longer than one batch
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

// goroutineID returns the id of the calling goroutine, from its stack
// header "goroutine N [running]:".
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// TestCheckFewInputsOnCaller checks that a few documents, even in several
// folders, are validated on the calling goroutine: no worker goroutine is
// started for them, whatever the number of CPUs.
func TestCheckFewInputsOnCaller(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var inputs []artifacts.Input
	for i := range 3 {
		p := filepath.Join(root, fmt.Sprintf("w%d", i), "a.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"schema": "finding.v1"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, artifacts.File(p, p))
	}
	reg, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	caller := goroutineID()
	var mu sync.Mutex
	var on []string
	results, err := artifacts.Check(context.Background(), reg, inputs, artifacts.Options{Each: func(int, []byte) {
		mu.Lock()
		on = append(on, goroutineID())
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(inputs) {
		t.Fatalf("%d results for %d inputs", len(results), len(inputs))
	}
	for i, id := range on {
		if id != caller {
			t.Errorf("document %d validated on goroutine %s, want the caller's, %s", i, id, caller)
		}
	}
	if len(on) != len(inputs) {
		t.Errorf("Each called %d times, want %d", len(on), len(inputs))
	}
}
