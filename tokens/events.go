package tokens

// This file defines the event log: one JSON line per event in
// .foundry/metrics/events.jsonl, appended with a single write.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
)

// Event kinds. The report lists them in this order, then any other kind
// alphabetically.
const (
	KindMemorySearch    = "memory_search"
	KindMemoryWrite     = "memory_write"
	KindGateBlocked     = "gate_blocked" // a contract rejected an artifact
	KindBlackboardWrite = "blackboard_write"
	KindRunbookGet      = "runbook_get"
)

// kindOrder is the report's order of the known kinds.
var kindOrder = []string{KindMemorySearch, KindMemoryWrite, KindGateBlocked, KindBlackboardWrite, KindRunbookGet}

// MetricsDir and EventsPath locate the event log, relative to the project
// root. The folder is gitignored by `foundry init`.
const (
	MetricsDir = ".foundry/metrics"
	EventsPath = MetricsDir + "/events.jsonl"
)

// maxLineBytes bounds one event line. Lines this short are written by one
// write(2) even to slow file systems, and a reader never needs more.
const maxLineBytes = 4096

// Event is one line of the event log.
type Event struct {
	Time time.Time `json:"ts"`
	Kind string    `json:"kind"`
}

// Log appends events to a project's event log. It is safe for concurrent
// use by goroutines and by processes: each event is one [confined.Root.Append]
// under the log's lock, following no symbolic link, and the file is capped
// at [confined.LogMax] (16 MiB), the oldest half dropped when an append would
// pass it. A nil *Log records nothing.
type Log struct {
	dir    string // the folder holding .foundry/
	logger *slog.Logger
	now    func() time.Time

	warnOnce sync.Once

	once    sync.Once
	root    *confined.Root // opened on the first append
	rootErr error

	// mu guards pending and flushing. The appends of one process are
	// grouped: the caller that finds no flush running writes what is
	// pending, its own line and those queued meanwhile, in one append, so
	// that a server with many concurrent callers (the HTTP daemon) takes
	// the file lock once per group instead of once per event.
	mu       sync.Mutex
	pending  []byte
	flushing bool
}

// maxBatch bounds one grouped append, well under half the log's cap.
const maxBatch = 64 << 10

// NewLog returns the event log of the project rooted at root (the folder
// that holds .foundry/). Problems while recording are reported once to
// logger at warning level; logger may be nil.
func NewLog(root string, logger *slog.Logger) *Log {
	return &Log{
		dir:    root,
		logger: logger,
		now:    time.Now,
	}
}

// Record appends one event of kind. It never fails the caller: the log is
// accounting, so a read-only checkout or a full disk costs the event, not
// the operation. The first problem is logged as a warning.
func (l *Log) Record(kind string) {
	if l == nil {
		return
	}
	if err := l.Append(Event{Time: l.now().UTC(), Kind: kind}); err != nil && l.logger != nil {
		l.warnOnce.Do(func() {
			l.logger.Warn("event not recorded", "kind", kind, "err", err)
		})
	}
}

// appendGrouped queues line and, unless another caller is flushing (it
// then writes line too, before it returns), writes every queued line.
func (l *Log) appendGrouped(line []byte) error {
	l.mu.Lock()
	l.pending = append(l.pending, line...)
	if l.flushing {
		l.mu.Unlock()
		return nil
	}
	l.flushing = true
	var err error
	for len(l.pending) > 0 {
		batch := l.pending
		if len(batch) > maxBatch {
			cut := bytes.LastIndexByte(batch[:maxBatch], '\n') + 1
			batch = batch[:cut]
		}
		l.pending = l.pending[len(batch):]
		l.mu.Unlock()
		if werr := l.root.Append(context.Background(), EventsPath, batch, confined.LogMax); werr != nil && err == nil {
			err = werr
		}
		l.mu.Lock()
	}
	l.pending = nil
	l.flushing = false
	l.mu.Unlock()
	return err
}

// Append writes e as one line, creating .foundry/metrics/ when needed.
func (l *Log) Append(e Event) error {
	if e.Kind == "" || strings.ContainsAny(e.Kind, "\n\r") {
		return fmt.Errorf("record event: invalid kind %q", e.Kind)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("record event: %w", err)
	}
	line = append(line, '\n')
	if len(line) > maxLineBytes {
		return fmt.Errorf("record event: line of %d bytes exceeds %d", len(line), maxLineBytes)
	}
	l.once.Do(func() { l.root, l.rootErr = confined.Open(l.dir) })
	if l.rootErr != nil {
		return fmt.Errorf("record event: %w", l.rootErr)
	}
	// Only the metrics folder is created: .foundry/ itself must exist, so a
	// wrong root never grows a stray .foundry/. The append does not create
	// it (it makes the last folder of the log's path alone) and checks
	// that the held metrics folder is still reached through a real
	// .foundry/, so .foundry/ is looked at again only to explain a failure.
	if err := l.appendGrouped(line); err != nil {
		if fi, serr := fs.Stat(l.root.FS(), ".foundry"); serr != nil || !fi.IsDir() {
			return fmt.Errorf("record event: %s is not a folder", l.root.Path(".foundry"))
		}
		return fmt.Errorf("record event: %w", err)
	}
	return nil
}

// EventCount is the number of recorded events of one kind.
type EventCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// EventCounts summarises an event log.
type EventCounts struct {
	// Counts holds one entry per kind seen, in report order.
	Counts []EventCount `json:"counts"`
	// Total is the number of well-formed events.
	Total int `json:"total"`
	// Malformed counts lines that are not an event object with a kind; they
	// are skipped, not fatal.
	Malformed int `json:"malformed"`
}

// Count returns the number of events of kind.
func (c EventCounts) Count(kind string) int {
	for _, e := range c.Counts {
		if e.Kind == kind {
			return e.Count
		}
	}
	return 0
}

// ReadEvents counts the events in .foundry/metrics/events.jsonl of fsys
// (rooted at the project root). A missing log counts nothing.
func ReadEvents(fsys fs.FS) (EventCounts, error) {
	var t eventTail // nothing counted yet: the whole log
	return t.read(fsys)
}

// countEvents reads event lines from r.
func countEvents(r io.Reader) (EventCounts, error) {
	counts := map[string]int{}
	var res EventCounts
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if kind, ok := eventKind(line); ok {
				counts[kind]++
				res.Total++
			} else {
				res.Malformed++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return EventCounts{}, err
		}
	}
	res.Counts = orderCounts(counts)
	return res, nil
}

// eventKind returns the kind of the event of line and whether line is one:
// a JSON object with a kind that is not empty, ended by its newline.
func eventKind(line []byte) (string, bool) {
	var e struct {
		Kind *string `json:"kind"`
	}
	if json.Unmarshal(line, &e) != nil || e.Kind == nil || *e.Kind == "" || !bytes.HasSuffix(line, []byte("\n")) {
		return "", false
	}
	return *e.Kind, true
}

// orderCounts lists counts in report order: the known kinds first, then the
// rest alphabetically.
func orderCounts(counts map[string]int) []EventCount {
	out := []EventCount{}
	for _, k := range kindOrder {
		if n := counts[k]; n > 0 {
			out = append(out, EventCount{Kind: k, Count: n})
		}
	}
	var rest []string
	for k := range counts {
		if !slices.Contains(kindOrder, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		out = append(out, EventCount{Kind: k, Count: counts[k]})
	}
	return out
}
