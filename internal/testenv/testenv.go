// Package testenv decides, for every test of the module, whether a missing
// requirement (the git binary, the JSON-Schema-Test-Suite, pre-commit, a shell,
// the go command) skips the test or fails it.
//
// The rule is one: when the environment variable CI is set to any non-empty
// value, every requirement is promised and a missing one fails the test,
// naming what is missing; otherwise the test skips with a message saying
// what it needs. So a CI run can never pass with tests silently skipped.
// Only test code imports this package.
package testenv

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Required reports whether missing test requirements fail rather than skip:
// CI is set to any non-empty value.
func Required() bool { return os.Getenv("CI") != "" }

// Race reports whether the test binary runs under the race detector (set
// by race.go, built only with -race), which makes code several times
// slower. A test that does more work when CI is set does its developer
// amount under -race: CI's run without -race does the rest.
var Race = false

// Missing ends the test for a requirement that is not met: under CI it fails
// the test, otherwise it skips it. what names the requirement; cause says
// why it is missing.
func Missing(tb testing.TB, what string, cause error) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s is required when CI is set: %v", what, cause)
	}
	tb.Skipf("skipped: needs %s (%v); set CI=1 to make this a failure", what, cause)
}

// Exec returns the path of the program name (a name looked up in PATH, or a
// path), or ends the test through [Missing].
func Exec(tb testing.TB, name string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, "the "+name+" program", err)
	}
	return path
}

// Git returns the path of the git binary, or ends the test through
// [Missing].
func Git(tb testing.TB) string {
	tb.Helper()
	return Exec(tb, "git")
}

// Condition evaluates the testscript condition need:<program>, which the
// CLI scripts use as `[!need:git] skip 'needs git'`: true when the program
// is found, false (the script skips) when it is not and CI is unset, and an
// error (the script fails) when it is not and CI is set. Conditions other
// than need:… are not known here.
func Condition(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "need:")
	if !ok || name == "" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	return need(name, exec.LookPath, Required())
}

// need is Condition with its environment passed in, so the table test can
// cover both sides of CI.
func need(name string, lookPath func(string) (string, error), required bool) (bool, error) {
	if _, err := lookPath(name); err != nil {
		if required {
			return false, fmt.Errorf("the %s program is required when CI is set: %w", name, err)
		}
		return false, nil
	}
	return true, nil
}

// Tree lists every path under the folders dirs, each folder included, in
// the order filepath.WalkDir visits them; a test compares two listings to
// see that nothing was created or left behind. An error reading a folder
// fails tb.
func Tree(tb testing.TB, dirs ...string) []string {
	tb.Helper()
	var out []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				out = append(out, p)
			}
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// WriteFile writes content to rel, a slash path under dir, creating the
// folders on its way, or fails the test.
func WriteFile(tb testing.TB, dir, rel, content string) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}
