// This file defines ProjectRegistry: Foundry's own tools and resources,
// registered over one opened project. Each tool is a thin adapter: it
// decodes the arguments, calls one core operation and shapes the result.

package mcp

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/project"
	"github.com/foundryhq/foundry/tokens"
)

// Recorder receives one event per recorded operation (memory_search,
// memory_write, blackboard_write, gate_blocked, runbook_get);
// *tokens.Log is one.
type Recorder interface{ Record(kind string) }

// ProjectOptions configure [ProjectRegistry].
type ProjectOptions struct {
	// Logger receives warnings: malformed fact files, events that could
	// not be recorded. Nil discards them.
	Logger *slog.Logger
	// Now is the clock that dates new facts and decides expiry; nil means
	// time.Now.
	Now func() time.Time
	// ReadOnly says the server must not write: pass [Options.ReadOnly], or
	// true when [ScopeWriteMemory] is not enabled. The memory index
	// resource is then rendered, not written, when INDEX.md is missing. A
	// project opened on a revision or the index never writes, whatever
	// ReadOnly says.
	ReadOnly bool
	// Events records the operations token_report counts; nil records them
	// in the working tree's .foundry/metrics/events.jsonl.
	Events Recorder
	// WatchMemory makes the fact store of a working tree learn changes
	// from file-system events (see [facts.Options.Watch]), for a server
	// that lives long. [Registry.Close] stops watching.
	WatchMemory bool
}

// foundry is the state the tools and resources of one project share. The
// fact store and the contracts are kept for the life of the server: each
// is revalidated by file identity, so a call never re-parses every fact
// or recompiles a contract.
type foundry struct {
	p        *project.Project
	files    fs.FS // what audits read (see projectFiles)
	store    *facts.Store
	warm     *warmContracts   // the contracts, kept between calls
	reports  *tokens.Reporter // token_report's figures, kept between calls
	events   Recorder
	log      *slog.Logger
	now      func() time.Time
	readOnly bool
	redacted redactCache // memory_search's redacted facts
	// clearings spares blackboard_write a listing of its wave on every
	// call (see blackboard.Clearings).
	clearings *blackboard.Clearings
}

// ProjectRegistry returns the registry of Foundry's tools and resources
// over p, in a stable order: memory_search, memory_write, memory_index,
// runbook_list, runbook_get, contract_validate, blackboard_write,
// blackboard_read, token_report and doctor; the resources
// foundry://memory/index, foundry://contracts and one
// foundry://runbooks/<slug> per runbook; the templates
// foundry://runbooks/{slug}, foundry://contracts/{id},
// foundry://memory/facts/{id} and foundry://blackboard/{wave}/{agent}.
//
// Every tool is registered whatever the source; serve a project opened on
// a revision or the index with [Options.ReadOnly] so that the mutating
// tools are neither listed nor callable.
func ProjectRegistry(p *project.Project, opts ProjectOptions) (*Registry, error) {
	if p == nil {
		return nil, fmt.Errorf("build mcp registry: no project")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	f := &foundry{p: p, files: projectFiles(p), warm: newWarmContracts(p), log: log, now: now, readOnly: opts.ReadOnly || !p.Writable(), events: opts.Events, clearings: blackboard.NewClearings(now)}
	if f.events == nil {
		f.events = tokens.NewLog(p.Root, log)
	}
	f.store = facts.Open(p, facts.Options{Warn: warnWriter{log}, Now: now, Events: f.events, Watch: opts.WatchMemory})
	// Off the working tree (--rev, --staged) the report lists the facts
	// at that source on every call.
	var src tokens.FactSource
	if p.Writable() {
		src = f.store
	}
	f.reports = tokens.NewReporter(src)

	r := NewRegistry()
	r.closers = append(r.closers, f.store.Close)
	for _, add := range []func(*Registry) error{
		f.addMemorySearch, f.addMemoryWrite, f.addMemoryIndex,
		f.addRunbookList, f.addRunbookGet,
		f.addContractValidate,
		f.addBlackboardWrite, f.addBlackboardRead,
		f.addTokenReport,
		f.addDoctor,
		f.addResources,
	} {
		if err := add(r); err != nil {
			return nil, fmt.Errorf("build mcp registry: %w", err)
		}
	}
	// Foundry's tools build their results from typed values, and
	// TestFoundryConformance checks every result it sees against the
	// tool's output schema: the server need not check them on every call.
	for _, t := range r.tools {
		t.OutputProven = true
	}
	return r, nil
}

// warnWriter turns the line-oriented warnings of the domain packages into
// log records.
type warnWriter struct{ log *slog.Logger }

func (w warnWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			w.log.Warn(line)
		}
	}
	return len(p), nil
}

// noArguments is the input schema of a tool without arguments.
var noArguments = json.RawMessage(`{"type":"object","additionalProperties":false}`)

// schema is a schema literal written readably in the source. The
// registry checks and compacts it on first use (see addDeferred).
func schema(s string) json.RawMessage { return json.RawMessage(s) }

// enumJSON renders values as a JSON array for a schema's enum.
func enumJSON[T ~string](values []T) string {
	b, _ := json.Marshal(values)
	return string(b)
}
