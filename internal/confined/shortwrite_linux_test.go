package confined_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestAppendCutsBackAShortWrite appends a line the file system takes only
// part of, as a full disk does, in a child process whose file size limit
// ends inside the line (RLIMIT_FSIZE, the kernel's own short write): the
// append fails and the log still ends with its last whole line, so the
// next append starts a line of its own instead of running into half a
// record (two audit lines became one line of invalid JSON).
func TestAppendCutsBackAShortWrite(t *testing.T) {
	if dir := os.Getenv("FOUNDRY_TEST_SHORT_WRITE"); dir != "" {
		shortWriteChild(t, dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	first := []byte(`{"n":1}` + "\n")
	log := filepath.Join(dir, ".foundry", "metrics", "audit.jsonl")
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, first, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAppendCutsBackAShortWrite$")
	cmd.Env = append(os.Environ(), "FOUNDRY_TEST_SHORT_WRITE="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, first) {
		t.Errorf("log after a short append = %q, want %q", got, first)
	}
}

// shortWriteChild appends a line past a file size limit set inside it.
func shortWriteChild(t *testing.T, dir string) {
	signal.Ignore(syscall.SIGXFSZ) // the write past the limit fails with EFBIG instead
	r, err := confined.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	name := ".foundry/metrics/audit.jsonl"
	fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	limit := uint64(fi.Size()) + 4
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	if err := r.Append(context.Background(), name, []byte(`{"n":2,"long":"enough"}`+"\n"), confined.LogMax); err == nil {
		t.Fatal("an append past the file size limit succeeded")
	}
}
