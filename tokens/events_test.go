package tokens

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
)

// The concurrency test re-executes this test binary as writer processes.
const (
	writerEnv      = "FOUNDRY_TOKENS_TEST_WRITER" // project root to write to
	writerCountEnv = "FOUNDRY_TOKENS_TEST_EVENTS"
)

func TestMain(m *testing.M) {
	if root := os.Getenv(writerEnv); root != "" {
		n, _ := strconv.Atoi(os.Getenv(writerCountEnv))
		l := NewLog(root, slog.New(slog.NewTextHandler(os.Stderr, nil)))
		kinds := []string{KindMemorySearch, KindBlackboardWrite, KindGateBlocked}
		for i := range n {
			if err := l.Append(Event{Time: time.Now().UTC(), Kind: kinds[i%len(kinds)]}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func newRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestLogRecord(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	l := NewLog(root, nil)
	at := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return at }
	l.Record(KindMemorySearch)
	l.Record(KindMemorySearch)
	l.Record(KindRunbookGet)
	data, err := os.ReadFile(filepath.Join(root, ".foundry", "metrics", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ts":"2026-01-02T10:00:00Z","kind":"memory_search"}
{"ts":"2026-01-02T10:00:00Z","kind":"memory_search"}
{"ts":"2026-01-02T10:00:00Z","kind":"runbook_get"}
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("events.jsonl (-want +got):\n%s", diff)
	}
	got, err := ReadEvents(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	wantCounts := EventCounts{Counts: []EventCount{{KindMemorySearch, 2}, {KindRunbookGet, 1}}, Total: 3}
	if diff := cmp.Diff(wantCounts, got); diff != "" {
		t.Errorf("ReadEvents (-want +got):\n%s", diff)
	}
}

func TestLogRecordNeverFails(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	// A file where the metrics folder should be makes every append fail.
	if err := os.WriteFile(filepath.Join(root, ".foundry", "metrics"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	l := NewLog(root, slog.New(slog.NewTextHandler(&logs, nil)))
	l.Record(KindRunbookGet)
	l.Record(KindRunbookGet)
	if n := strings.Count(logs.String(), "event not recorded"); n != 1 {
		t.Errorf("warnings = %d, want 1 (once per log):\n%s", n, logs.String())
	}
	if err := l.Append(Event{Kind: KindRunbookGet}); err == nil {
		t.Error("Append into a file: no error")
	}

	// No .foundry/ at all: the log does not create one.
	bare := t.TempDir()
	NewLog(bare, nil).Record(KindMemoryWrite)
	if _, err := os.Stat(filepath.Join(bare, ".foundry")); err == nil {
		t.Error("Record created .foundry/ under a root without one")
	}

	var nilLog *Log
	nilLog.Record(KindMemoryWrite) // must not panic
}

func TestLogAppendRejectsBadKinds(t *testing.T) {
	t.Parallel()
	l := NewLog(newRoot(t), nil)
	for _, kind := range []string{"", "a\nb", strings.Repeat("k", maxLineBytes)} {
		if err := l.Append(Event{Kind: kind}); err == nil {
			t.Errorf("Append(kind %.20q): no error", kind)
		}
	}
}

func TestReadEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		log  string
		want EventCounts
	}{
		{"missing", "", EventCounts{Counts: []EventCount{}}},
		{
			name: "report order then alphabetical",
			log: `{"kind":"zeta"}
{"kind":"blackboard_write"}
{"kind":"alpha"}
{"kind":"gate_blocked"}
{"kind":"memory_write"}
{"kind":"memory_search"}
{"kind":"blackboard_write"}
`,
			want: EventCounts{Counts: []EventCount{
				{"memory_search", 1}, {"memory_write", 1}, {"gate_blocked", 1}, {"blackboard_write", 2},
				{"alpha", 1}, {"zeta", 1},
			}, Total: 7},
		},
		{
			name: "malformed lines are counted, not fatal",
			log:  "{\"kind\":\"memory_search\"}\nnot json\n{\"ts\":\"x\"}\n{\"kind\":\"\"}\n\n[1]\n{\"kind\":\"memory_search\"}",
			want: EventCounts{Counts: []EventCount{{"memory_search", 1}}, Total: 1, Malformed: 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{}
			if tt.log != "" {
				fsys[EventsPath] = &fstest.MapFile{Data: []byte(tt.log)}
			}
			got, err := ReadEvents(fsys)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadEvents (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLogConcurrentProcesses runs 8 writer processes and 8 goroutines at
// once: every event must come out as exactly one well-formed line.
func TestLogConcurrentProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := newRoot(t)
	const procs, perProc = 8, 300
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*procs)
	for range procs {
		wg.Go(func() {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), writerEnv+"="+root, writerCountEnv+"="+strconv.Itoa(perProc))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer: %v: %s", err, out)
			}
		})
		wg.Go(func() {
			l := NewLog(root, nil)
			for range perProc {
				if err := l.Append(Event{Time: time.Now().UTC(), Kind: KindMemoryWrite}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(EventsPath)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if got, want := len(lines), 2*procs*perProc; got != want {
		t.Fatalf("lines = %d, want %d", got, want)
	}
	for i, line := range lines {
		var e Event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || e.Kind == "" || e.Time.IsZero() || dec.More() {
			t.Fatalf("line %d is not one well-formed event: %q (%v)", i+1, line, err)
		}
	}
	got, err := ReadEvents(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	// Writer i%3 cycles memory_search, blackboard_write, gate_blocked.
	want := EventCounts{Counts: []EventCount{
		{KindMemorySearch, procs * perProc / 3},
		{KindMemoryWrite, procs * perProc},
		{KindGateBlocked, procs * perProc / 3},
		{KindBlackboardWrite, procs * perProc / 3},
	}, Total: 2 * procs * perProc}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadEvents (-want +got):\n%s", diff)
	}
}

func FuzzCountEvents(f *testing.F) {
	f.Add([]byte("{\"ts\":\"2026-01-02T10:00:00Z\",\"kind\":\"memory_search\"}\n"))
	f.Add([]byte("garbage\n{\"kind\":\"x\"}"))
	f.Add([]byte("\n\n{\"kind\":\"\"}\n[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := countEvents(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, e := range c.Counts {
			if e.Count <= 0 || e.Kind == "" {
				t.Fatalf("bad count %+v", e)
			}
			sum += e.Count
		}
		if sum != c.Total {
			t.Fatalf("counts sum to %d, total %d", sum, c.Total)
		}
		if lines := bytes.Count(data, []byte("\n")) + 1; c.Total+c.Malformed > lines {
			t.Fatalf("%d events and %d malformed from %d lines", c.Total, c.Malformed, lines)
		}
	})
}

// TestLogRecordConcurrent checks the grouped appends: events recorded by
// many goroutines at once are all written, each on its own line, by the
// time every Record has returned.
func TestLogRecordConcurrent(t *testing.T) {
	t.Parallel()
	root := newRoot(t)
	l := NewLog(root, nil)
	const n = 200
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Record(KindMemorySearch)
		}()
	}
	wg.Wait()
	got, err := ReadEvents(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != n {
		t.Errorf("%d events recorded, want %d", got.Total, n)
	}
}

// TestLogAppendStatsNothing: recording an event into a warm log costs the
// append of its line and the encoding of it, no look at .foundry/ besides
// (the append's own walk to the metrics folder checks it).
func TestLogAppendStatsNothing(t *testing.T) {
	root := newRoot(t)
	l := NewLog(root, nil)
	e := Event{Time: time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC), Kind: KindMemoryWrite}
	if err := l.Append(e); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(e)
	line = append(line, '\n')
	parts := testing.AllocsPerRun(100, func() {
		b, _ := json.Marshal(e)
		_ = append(b, '\n')
		_ = l.root.Append(context.Background(), EventsPath, line, confined.LogMax)
	})
	// Two allocations of slack: the grouping of lines (and the race
	// detector) cost one or two; a stat of .foundry/ costs five.
	if whole := testing.AllocsPerRun(100, func() { _ = l.Append(e) }); whole > parts+3 {
		t.Errorf("Log.Append allocates %.0f times, the encoding and append of its line %.0f", whole, parts)
	}
}
