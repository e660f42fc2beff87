package confined_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestAppendCutsBackAShortWrite appends a line the file system takes only
// part of, as a full disk does, in a child process whose file size limit
// ends inside the line (the kernel's own short write): the append fails
// and the log still ends with its last whole line, so the next append
// starts a line of its own instead of running into half a record (two
// audit lines became one line of invalid JSON).
func TestAppendCutsBackAShortWrite(t *testing.T) {
	const name = ".foundry/metrics/audit.jsonl"
	if dir, ok := testenv.FileSizeLimited(t); ok {
		r, err := confined.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.Append(context.Background(), name, []byte(`{"n":2,"long":"enough"}`+"\n"), confined.LogMax); err == nil {
			t.Fatal("an append past the file size limit succeeded")
		}
		return
	}
	t.Parallel()
	dir := t.TempDir()
	first := []byte(`{"n":1}` + "\n")
	log := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, first, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.RunFileSizeLimited(t, uint64(len(first))+4, dir)
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, first) {
		t.Errorf("log after a short append = %q, want %q", got, first)
	}
}
