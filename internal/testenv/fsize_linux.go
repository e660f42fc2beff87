package testenv

import (
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// envFileSizeLimit carries, to the child [RunFileSizeLimited] starts, its
// file size limit and the parent's argument: "<bytes>:<arg>".
const envFileSizeLimit = "FOUNDRY_TEST_FILE_SIZE_LIMIT"

// FileSizeLimited reports whether the test runs as the child of
// [RunFileSizeLimited], and then returns the argument the parent passed,
// with the child's file size limit (RLIMIT_FSIZE) set: a write that would
// pass it writes what fits and fails with EFBIG, as a full disk fails a
// write part way, and SIGXFSZ, which would end the process, is ignored.
// The child does what must fail and returns; the parent checks what it
// left.
func FileSizeLimited(t *testing.T) (arg string, ok bool) {
	v := os.Getenv(envFileSizeLimit)
	if v == "" {
		return "", false
	}
	limit, arg, _ := strings.Cut(v, ":")
	n, err := strconv.ParseUint(limit, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", envFileSizeLimit, v, err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	return arg, true
}

// RunFileSizeLimited runs the test t again in a child process whose file
// size limit is limit bytes, passing it arg (see [FileSizeLimited]), and
// fails t when the child fails.
func RunFileSizeLimited(t *testing.T, limit uint64, arg string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), envFileSizeLimit+"="+strconv.FormatUint(limit, 10)+":"+arg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child under a file size limit of %d bytes: %v\n%s", limit, err, out)
	}
}
