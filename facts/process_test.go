package facts

// This file holds the multi-process tests: the test binary re-executes
// itself as a writer process (see TestMain), so locking and crash safety are
// tested across real processes.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/internal/testpause"
)

// Environment of a writer process.
const (
	envWriter = "FOUNDRY_FACTS_TEST_WRITER" // writer name; set only in writer processes
	envRoot   = "FOUNDRY_FACTS_TEST_ROOT"
	envCount  = "FOUNDRY_FACTS_TEST_COUNT"
	envTitle  = "FOUNDRY_FACTS_TEST_TITLE" // optional: write this title once
	envBody   = "FOUNDRY_FACTS_TEST_BODY"
	envFix    = "FOUNDRY_FACTS_TEST_FIX" // set: repair duplicate ids instead of writing
)

func TestMain(m *testing.M) {
	testpause.Enable()
	if name := os.Getenv(envWriter); name != "" {
		os.Exit(writerMain(name))
	}
	os.Exit(m.Run())
}

// writerMain writes facts as a separate process and reports failures on
// stderr with a non-zero exit.
func writerMain(name string) int {
	s := OpenDir(os.Getenv(envRoot), Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if os.Getenv(envFix) != "" {
		if _, err := s.Repair(ctx, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if title := os.Getenv(envTitle); title != "" {
		if _, err := s.Write(ctx, WriteRequest{Title: title, Type: Domain, Body: os.Getenv(envBody)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	n, _ := strconv.Atoi(os.Getenv(envCount))
	for i := range n {
		req := WriteRequest{
			Title: fmt.Sprintf("Writer %s stores fact number %d", name, i),
			Type:  Types[i%len(Types)],
			Body:  fmt.Sprintf("Body of fact %d from writer %s.\nWhy: testing.\nHow to apply: count it.", i, name),
			Tags:  []string{"writer-" + name},
		}
		if _, err := s.Write(ctx, req); err != nil {
			fmt.Fprintf(os.Stderr, "writer %s fact %d: %v\n", name, i, err)
			return 1
		}
	}
	return 0
}

func writerCmd(t *testing.T, root, name string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envWriter+"="+name, envRoot+"="+root)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// checkConsistent verifies that every fact file parses, ids are distinct, no
// temporary file is left and INDEX.md is what the facts give.
func checkConsistent(t *testing.T, root string) []Fact {
	t.Helper()
	warn := &syncBuffer{}
	s := NewStore(os.DirFS(root), Options{Warn: warn})
	all, err := s.RawFacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if warn.String() != "" {
		t.Errorf("malformed fact files:\n%s", warn.String())
	}
	if n := len(factFiles(t, root)); n != len(all) {
		t.Errorf("%d fact files, %d readable", n, len(all))
	}
	ids := map[string]string{}
	for _, f := range all {
		if other, dup := ids[f.ID]; dup {
			t.Errorf("id %s used by %s and %s", f.ID, other, f.Path)
		}
		ids[f.ID] = f.Path
	}
	entries, _ := os.ReadDir(filepath.Join(root, Dir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".foundry-tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	want, err := s.Index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, IndexPath); got != string(want.Content) {
		t.Errorf("INDEX.md is not what the facts give:\n%s\nwant:\n%s", got, want.Content)
	}
	return all
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns 8 writer processes")
	}
	const writers, each = 8, 50
	root := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for w := range writers {
		cmd := writerCmd(t, root, strconv.Itoa(w), envCount+"="+strconv.Itoa(each))
		out := &strings.Builder{}
		cmd.Stderr = out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		outs = append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", i, err, outs[i])
		}
	}
	all := checkConsistent(t, root)
	if len(all) != writers*each {
		t.Fatalf("%d facts, want %d", len(all), writers*each)
	}
	for i, f := range all {
		if want := FormatID(i + 1); f.ID != want {
			t.Fatalf("ids are not 1..%d: position %d holds %s", writers*each, i, f.ID)
		}
	}
	perWriter := map[string]int{}
	for _, f := range all {
		perWriter[f.Tags[0]]++
	}
	for w := range writers {
		if n := perWriter["writer-"+strconv.Itoa(w)]; n != each {
			t.Errorf("writer %d stored %d facts, want %d", w, n, each)
		}
	}
}

func TestCrashedWriter(t *testing.T) {
	t.Parallel()
	points := []struct {
		point     string
		newExists bool // the crashed write's fact file exists afterwards
	}{
		{"facts.after-lock", false},
		{"atomicfile.after-temp", false},
		{"facts.after-fact-written", true},
		{"facts.after-supersede", true},
		{"facts.after-index-written", true},
	}
	for _, p := range points {
		t.Run(p.point, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := t.TempDir()
			pauseDir := t.TempDir()
			s := OpenDir(root, Options{})
			if _, err := s.Write(ctx, WriteRequest{Title: "Cache layer runs on Redis", Type: Domain, Body: "Version 6."}); err != nil {
				t.Fatal(err)
			}
			// The crashing write supersedes fact-0001, so it passes every point.
			cmd := writerCmd(t, root, "crash",
				envTitle+"=Cache layer runs on Redis", envBody+"=Version 7.",
				"FOUNDRY_TEST_PAUSE="+p.point, "FOUNDRY_TEST_PAUSE_DIR="+pauseDir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			reached := filepath.Join(pauseDir, p.point+".reached")
			deadline := time.Now().Add(60 * time.Second)
			for {
				if _, err := os.Stat(reached); err == nil {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("writer never reached %s: %s", p.point, stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			_ = cmd.Wait()

			// No partial or empty fact file.
			for _, name := range factFiles(t, root) {
				data := readFile(t, root, Dir+"/"+name)
				if _, err := Parse(name, []byte(data)); err != nil || strings.TrimSpace(data) == "" {
					t.Errorf("fact file %s after the kill: %v\n%q", name, err, data)
				}
			}
			after, _ := NewStore(os.DirFS(root), Options{}).List(ctx, ListOptions{})
			if p.newExists {
				if len(after) != 1 || after[0].ID != "fact-0002" || after[0].Body != "Version 7." {
					t.Errorf("after the kill, active facts = %+v; want fact-0002 superseding fact-0001", after)
				}
			} else if len(after) != 1 || after[0].ID != "fact-0001" {
				t.Errorf("after the kill, active facts = %+v; want fact-0001 only", after)
			}

			// The lock died with the writer: the next writer goes through at once.
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			next := OpenDir(root, Options{})
			if _, err := next.Write(wctx, WriteRequest{Title: "Sessions expire after thirty minutes", Type: Constraint, Body: "Idle timeout."}); err != nil {
				t.Fatalf("next writer: %v", err)
			}
			checkConsistent(t, root)
		})
	}
}

// A doctor --fix killed at any step of renumbering a duplicate id leaves
// each fact in one file, and the next repair completes the job without
// copying a fact or reusing an id.
func TestCrashedRenumbering(t *testing.T) {
	t.Parallel()
	for _, point := range []string{"facts.after-lock", "atomicfile.after-temp", "facts.after-renumber-write", "facts.after-index-written"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := t.TempDir()
			pauseDir := t.TempDir()
			for _, f := range []Fact{
				{ID: "fact-0001", Type: Domain, Title: "Orders have lines", Body: "b", Created: "2025-01-02", Status: Active, Path: Dir + "/fact-0001-orders-have-lines.md"},
				{ID: "fact-0001", Type: Domain, Title: "Invoices are monthly", Body: "b", Created: "2025-02-01", Status: Active, Path: Dir + "/fact-0001-invoices-are-monthly.md"},
			} {
				testenv.WriteFile(t, root, f.Path, string(Format(f)))
			}
			cmd := writerCmd(t, root, "fix", envFix+"=1", "FOUNDRY_TEST_PAUSE="+point, "FOUNDRY_TEST_PAUSE_DIR="+pauseDir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			reached := filepath.Join(pauseDir, point+".reached")
			deadline := time.Now().Add(60 * time.Second)
			for {
				if _, err := os.Stat(reached); err == nil {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("fixer never reached %s: %s", point, stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			_ = cmd.Wait()

			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			// doctor --fix repairs ids, then rebuilds a stale index.
			next := OpenDir(root, Options{})
			if _, err := next.Repair(wctx, nil); err != nil {
				t.Fatalf("next repair: %v", err)
			}
			if _, err := next.RebuildIndex(wctx); err != nil {
				t.Fatal(err)
			}
			all := checkConsistent(t, root)
			titles := map[string]int{}
			for _, f := range all {
				titles[f.Title]++
			}
			if diff := cmp.Diff(map[string]int{"Orders have lines": 1, "Invoices are monthly": 1}, titles); diff != "" {
				t.Errorf("facts after the kill and a new repair (-want +got):\n%s\nfiles: %v", diff, factFiles(t, root))
			}
		})
	}
}
