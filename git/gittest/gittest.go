// Package gittest builds throwaway git repositories in t.TempDir() for the
// tests of other packages. It drives the real git binary with a hermetic
// environment (no system or global config, fixed identities), so tests see
// exactly what users' repositories hold; a test skips when git is absent.
package gittest

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// Repo is a git working tree under test.
type Repo struct {
	t    testing.TB
	Dir  string
	tick int
}

// Env is the hermetic environment every git command of this package runs
// with, added to os.Environ.
var Env = []string{
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=Foundry Test",
	"GIT_AUTHOR_EMAIL=test@foundry.invalid",
	"GIT_COMMITTER_NAME=Foundry Test",
	"GIT_COMMITTER_EMAIL=test@foundry.invalid",
	"GIT_TERMINAL_PROMPT=0",
	// No background gc or maintenance: they race with the test's own commands.
	"GIT_CONFIG_COUNT=2",
	"GIT_CONFIG_KEY_0=gc.auto",
	"GIT_CONFIG_VALUE_0=0",
	"GIT_CONFIG_KEY_1=maintenance.auto",
	"GIT_CONFIG_VALUE_1=false",
}

// New creates an empty repository (branch main) in a fresh temporary folder.
func New(t testing.TB) *Repo {
	t.Helper()
	return Init(t, t.TempDir())
}

// Init creates an empty repository (branch main) in dir.
func Init(t testing.TB, dir string) *Repo {
	t.Helper()
	testenv.Git(t)
	r := &Repo{t: t, Dir: dir}
	r.Git("init", "-q", "-b", "main", ".")
	return r
}

// Git runs git in the repository and returns its trimmed stdout; it fails the
// test on error.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := r.TryGit(args...)
	if err != nil {
		r.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// TryGit runs git and returns its error instead of failing.
func (r *Repo) TryGit(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	// Each commit gets a distinct, increasing, fixed date.
	date := fmt.Sprintf("2026-01-%02dT10:%02d:00Z", 1+r.tick/60%28, r.tick%60)
	cmd.Env = append(append(os.Environ(), Env...), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// Write writes a file (slash path relative to the repository), creating
// folders as needed.
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Symlink makes path (slash form, relative to the repository) a symbolic
// link to target, creating folders as needed; where the system makes no
// links the test ends through testenv.Missing (a failure under CI).
func (r *Repo) Symlink(path, target string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		testenv.Missing(r.t, "symbolic links", err)
	}
}

// Remove deletes a file from the working tree.
func (r *Repo) Remove(path string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.Dir, filepath.FromSlash(path))); err != nil {
		r.t.Fatal(err)
	}
}

// CommitAll stages everything and commits it; it returns the new hash.
func (r *Repo) CommitAll(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.tick++
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// FutureExtension makes the repository one of a format Foundry does not
// read (git.ErrUnsupportedFormat): format version 1 with an extension no
// reader knows, which Foundry names "extensions.somefuturething = true".
func (r *Repo) FutureExtension() {
	r.t.Helper()
	r.Git("config", "core.repositoryformatversion", "1")
	r.Git("config", "extensions.someFutureThing", "true")
}

// StageZeros stages at path (a slash path) a blob of size zero bytes,
// written straight into git's objects without a working-tree file, and
// returns its id: a huge blob that compresses to almost nothing, as a
// hostile repository can commit one.
func (r *Repo) StageZeros(path string, size int64) string {
	r.t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), Env...)
	cmd.Stdin = io.LimitReader(zeros{}, size)
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git hash-object: %v", err)
	}
	id := strings.TrimSpace(string(out))
	r.Git("update-index", "--add", "--cacheinfo", "100644,"+id+","+path)
	return id
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
