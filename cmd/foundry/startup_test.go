package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/gcpace"
	"github.com/foundryhq/foundry/internal/gcpace/gcpacetest"
	"github.com/foundryhq/foundry/internal/lazyre"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestLazyRegexpsCompile compiles every regular expression that the
// packages of the binary make with lazyre.New. They are compiled on first
// use, not at start-up, so a broken one would otherwise panic only in the
// command that first needs it.
func TestLazyRegexpsCompile(t *testing.T) {
	n, err := lazyre.Check()
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("checked %d expressions; the binary's packages make about 30 with lazyre.New: is this test still linked with them?", n)
	}
}

// maxInitBytes bounds what the package initialisation of any Foundry
// package may allocate: a few tables and small values, not compiled
// regular expressions or schemas, which are made on first use.
const maxInitBytes = 16 << 10

// TestStartupAllocatesLittle runs the built binary with the runtime's
// init trace and checks that no Foundry package allocates more than
// maxInitBytes before main: every process, whatever its command, pays for
// package initialisation. The figures are allocation counts, which do not
// vary between runs, not times.
func TestStartupAllocatesLittle(t *testing.T) {
	t.Parallel()
	bin := buildFoundry(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("foundry version: %v\n%s", err, stderr.Bytes())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/foundryhq/foundry/config @2.1 ms, 0.004 ms clock, 720 bytes, 19 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		if f[1] != "main" && !strings.HasPrefix(f[1], "github.com/foundryhq/foundry/") {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("parse %q: %v", sc.Text(), err)
		}
		if n > maxInitBytes {
			t.Errorf("package %s allocates %d bytes at start-up (at most %d): make what it builds on first use", f[1], n, maxInitBytes)
		}
	}
	if seen < 5 {
		t.Fatalf("the init trace names %d Foundry packages; has its format changed?\n%s", seen, stderr.Bytes())
	}
}

// BenchmarkValidateColdStart measures a whole process of validate --auto
// over three finding.v1 artifacts (one invalid), the small case of goal P1:
// start-up, the first compile of the contract and the three checks.
// BenchmarkMCPColdStart measures the server's start-up the same way.
func BenchmarkValidateColdStart(b *testing.B) {
	bin := buildFoundry(b)
	root := b.TempDir()
	for i := range 3 {
		f := maps.Clone(validFinding)
		f["schema"], f["producedBy"], f["id"] = "finding.v1", "appsec-reviewer", fmt.Sprintf("F-%d", i)
		if i == 0 {
			delete(f, "failureScenario")
		}
		data, err := json.Marshal(f)
		if err != nil {
			b.Fatal(err)
		}
		dir := filepath.Join(root, ".foundry", "blackboard", fmt.Sprintf("wave-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "agent.json"), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		cmd := exec.Command(bin, "validate", "--auto", "--format", "lines")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !bytes.Contains(out, []byte("1 problem in 1 of 3 files")) {
			b.Fatalf("validate --auto: %v\n%s", err, out)
		}
	}
}

// TestServeAnswersBeforeCollecting runs `foundry mcp serve` with the
// runtime's GC trace and checks that no collection starts before the
// initialize answer is written, in a git repository: the start-up's garbage (mostly the JSON
// Schema library's init) stays under the default first goal, and the
// server's lower GC percent (gcpace.ServerPercent) applies from the first
// answer on, not before it. The trace of the answer ("rpc send") is logged
// just before it is written. The figures are heap sizes, which do not vary
// between runs, not times. A start-up that allocates beyond the first
// goal (4 MB), e.g. by compiling every tool schema or reading facts before
// the first request needs them, fails it.
func TestServeAnswersBeforeCollecting(t *testing.T) {
	t.Parallel()
	bin := buildFoundry(t)
	root := mcpFixture(t)
	// In a repository, as agents serve it: opening it allocates too.
	if out, err := exec.Command(testenv.Git(t), "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "mcp", "serve", "--rpc-trace")
	cmd.Dir = root
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOGC" && k != "GODEBUG" && k != "GOMEMLIMIT" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GODEBUG=gctrace=1")
	cmd.Stdin = strings.NewReader(initializeLine + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("foundry mcp serve: %v\n%s", err, stderr.Bytes())
	}
	if !bytes.Contains(stdout.Bytes(), []byte(`"serverInfo":{"name":"foundry"`)) {
		t.Fatalf("no initialize answer:\n%s", stdout.Bytes())
	}
	for line := range strings.Lines(stderr.String()) {
		if strings.HasPrefix(line, "gc ") {
			t.Fatalf("a collection started before the initialize answer was written:\n%s", stderr.Bytes())
		}
		if strings.Contains(line, `msg="rpc send"`) {
			return
		}
	}
	t.Fatalf("no trace of the initialize answer on stderr:\n%s", stderr.Bytes())
}

// TestAfterFirstWrite checks the server's output bounds the GC percent
// from its first write until the session ends, and not when the session
// ends before any write.
func TestAfterFirstWrite(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: gcpace.Bound leaves it alone")
	}
	before := gcpacetest.Percent()
	var buf bytes.Buffer
	w := &afterFirstWrite{w: &buf}
	if got := gcpacetest.Percent(); got != before {
		t.Fatalf("GC percent %d before the first write, want %d", got, before)
	}
	for range 2 {
		if _, err := w.Write([]byte("x\n")); err != nil {
			t.Fatal(err)
		}
		if got := gcpacetest.Percent(); got != gcpace.ServerPercent {
			t.Fatalf("GC percent %d after a write, want %d", got, gcpace.ServerPercent)
		}
	}
	w.end()
	if got := gcpacetest.Percent(); got != before || buf.String() != "x\nx\n" {
		t.Fatalf("after the session: GC percent %d (want %d), output %q", got, before, buf.String())
	}
	unused := &afterFirstWrite{w: &buf}
	unused.end()
	if _, err := unused.Write([]byte("late\n")); err != nil {
		t.Fatal(err)
	}
	if got := gcpacetest.Percent(); got != before {
		t.Fatalf("GC percent %d after a write past the session's end, want %d", got, before)
	}
}

// unlinked are packages the binary must not link, each with why: every
// process pays for the package initialisation and the size of what it
// links, and none of these serves a command. A prefix ending in "/" stands
// for the packages under it.
var unlinked = map[string]string{
	"github.com/go-git/go-git/v5": "go-git's root package links every transport (SSH, HTTP, git://) and its " +
		"init; git/ reads through go-git's storage and plumbing packages",
	"github.com/go-git/go-git/v5/plumbing/transport/": "Foundry never fetches or pushes",
	"golang.org/x/crypto/ssh/":                        "Foundry never fetches or pushes over SSH",
	"github.com/kevinburke/ssh_config":                "Foundry never fetches or pushes over SSH",
	"github.com/skeema/knownhosts":                    "Foundry never fetches or pushes over SSH",
	"github.com/xanzy/ssh-agent":                      "Foundry never fetches or pushes over SSH",
}

// TestLinkedPackages lists the packages `foundry` links (go list -deps)
// and checks that none of unlinked is among them.
func TestLinkedPackages(t *testing.T) {
	t.Parallel()
	goBin := testenv.Exec(t, "go")
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/go-git/go-git/v5/plumbing") {
		t.Fatalf("go list -deps does not list go-git's plumbing package; is this the list of the binary's packages?\n%s", out)
	}
	for _, dep := range deps {
		for p, why := range unlinked {
			if dep == strings.TrimSuffix(p, "/") || strings.HasSuffix(p, "/") && strings.HasPrefix(dep, p) {
				t.Errorf("foundry links %s: %s", dep, why)
			}
		}
	}
}

// TestAfterFirstWriteReleases checks that the server's output holds a
// pause of collection that a load ended with gcpace.Linger until the next
// message is written, and resumes one still lingering when the session
// ends.
func TestAfterFirstWriteReleases(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: gcpace.Bound leaves it alone")
	}
	before := gcpacetest.Percent()
	var buf bytes.Buffer
	w := &afterFirstWrite{w: &buf, endHold: gcpace.Hold()}
	gcpace.Linger(gcpace.Pause())
	if got := gcpacetest.Percent(); got != -1 {
		t.Fatalf("GC percent %d while a load's pause lingers, want -1", got)
	}
	if _, err := w.Write([]byte("answer\n")); err != nil {
		t.Fatal(err)
	}
	if got := gcpacetest.Percent(); got != gcpace.ServerPercent {
		t.Fatalf("GC percent %d once the answer is written, want %d", got, gcpace.ServerPercent)
	}
	gcpace.Linger(gcpace.Pause())
	w.end()
	if got := gcpacetest.Percent(); got != before {
		t.Fatalf("GC percent %d after the session, with a pause lingering at its end, want %d", got, before)
	}
}
