package blackboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/atomicfile"
	"github.com/foundryhq/foundry/tokens"
)

// The concurrency test re-executes this test binary as writer processes.
const (
	writerRootEnv = "FOUNDRY_BLACKBOARD_TEST_WRITER" // project root
	writerIDEnv   = "FOUNDRY_BLACKBOARD_TEST_ID"
)

const (
	writerProcs  = 8
	writerWrites = 30 // per process; every fifth one is rejected
)

func TestMain(m *testing.M) {
	if root := os.Getenv(writerRootEnv); root != "" {
		if err := runWriter(root, os.Getenv(writerIDEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runWriter is one writer process: it writes its own artifacts, fights
// over one shared artifact, and sends invalid ones.
func runWriter(root, id string) error {
	b := Open(os.DirFS(root), Options{Root: root, Events: tokens.NewLog(root, nil)})
	ctx := context.Background()
	for i := range writerWrites {
		agent := fmt.Sprintf("agent-%s-%02d", id, i)
		if i%2 == 1 {
			agent = "shared"
		}
		data := fmt.Sprintf(`{"id":"F-%s-%d","severity":"low","title":"t","summary":"%s","failureScenario":"f","confidence":"low"}`,
			id, i, strings.Repeat("writer "+id+" ", 40))
		if i%5 == 4 {
			data = `{"id":"F-1","severity":"low"}`
		}
		res, err := b.Write(ctx, WriteRequest{Wave: "wave-" + strconv.Itoa(i%3), Agent: agent, Schema: "finding.v1", Data: []byte(data)})
		if err != nil {
			return err
		}
		if res.Written == (i%5 == 4) {
			return fmt.Errorf("write %d: written = %v:\n%s", i, res.Written, res.Text())
		}
	}
	return nil
}

// TestWriteConcurrentProcesses: 8 processes write artifacts and events at
// once. Every artifact on disk is complete and valid, no temp file is left,
// and events.jsonl holds exactly one well-formed line per event.
func TestWriteConcurrentProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := newProject(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A reader runs alongside the writers: whenever a shared artifact
	// exists, it is complete and valid.
	done := make(chan struct{})
	var readerWG sync.WaitGroup
	reads := 0
	readerWG.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			for w := range 3 {
				data, err := os.ReadFile(filepath.Join(root, ".foundry", "blackboard", "wave-"+strconv.Itoa(w), "shared.json"))
				if err != nil {
					continue
				}
				reads++
				if vs, err := reg.Validate("finding.v1", data); err != nil || len(vs) > 0 {
					t.Errorf("reader saw an incomplete or invalid artifact: %v %v\n%s", vs, err, data)
					return
				}
			}
		}
	})
	var wg sync.WaitGroup
	for p := range writerProcs {
		wg.Go(func() {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), writerRootEnv+"="+root, writerIDEnv+"="+strconv.Itoa(p))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("writer %d: %v\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	close(done)
	readerWG.Wait()
	t.Logf("concurrent reads of shared artifacts: %d", reads)
	if t.Failed() {
		return
	}
	artifacts := 0
	err = filepath.WalkDir(filepath.Join(root, ".foundry", "blackboard"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == filepath.Join(root, filepath.FromSlash(WriteLock)) {
			return err
		}
		if strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			t.Errorf("temp file left: %s", p)
			return nil
		}
		artifacts++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		vs, err := reg.Validate("finding.v1", data)
		if err != nil || len(vs) > 0 {
			t.Errorf("%s is not a complete, valid artifact: %v %v", p, vs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Odd writes go to wave-N/shared.json (N = 1, 0, 2 by i%3); even ones,
	// minus rejected even ones (i = 4, 14, 24), to their own files.
	ownPerProc := writerWrites/2 - 3
	if want := writerProcs*ownPerProc + 3; artifacts != want {
		t.Errorf("artifacts = %d, want %d", artifacts, want)
	}

	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(tokens.EventsPath)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	counts := map[string]int{}
	for i, line := range lines {
		var e tokens.Event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || e.Kind == "" || e.Time.IsZero() || dec.More() {
			t.Fatalf("events.jsonl line %d is not one well-formed event: %q (%v)", i+1, line, err)
		}
		counts[e.Kind]++
	}
	rejected := writerWrites / 5
	want := map[string]int{
		tokens.KindBlackboardWrite: writerProcs * (writerWrites - rejected),
		tokens.KindGateBlocked:     writerProcs * rejected,
	}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("event counts = %v, want %v", counts, want)
	}
	locks, err := ReadLocks(os.DirFS(root))
	if err != nil || len(locks) != 1 || locks[0].Problem != "" {
		t.Errorf("locks = %+v, %v", locks, err)
	}
}
