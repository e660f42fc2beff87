package mcp

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/foundryhq/foundry/jsonrpc"
)

// auditor writes one JSON line per audited call. A nil *auditor audits
// nothing.
type auditor struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	// log is told of a record that could not be written.
	log *slog.Logger
	// writesOnly records mutating tool calls alone.
	writesOnly bool
	// token is the configured name of the bearer token of the session
	// (HTTP); empty on stdio. Never the token itself.
	token string
}

// auditRecord is one line of the audit log.
type auditRecord struct {
	a     *auditor
	start time.Time
	Time  string     `json:"time"`
	ID    jsonrpc.ID `json:"id"`
	// Method is tools/call or resources/read; Name the tool or the URI.
	Method string `json:"method"`
	// Token names the bearer token the call came with, by its configured
	// name; absent on stdio.
	Token string `json:"token,omitempty"`
	Name  string `json:"name"`
	Scope string `json:"scope,omitempty"`
	// Category is the capability's audit category, e.g. memory.write.
	Category string `json:"category,omitempty"`
	Mutating bool   `json:"mutating"`
	// Outcome is ok, error, invalid_arguments, timeout, too_large,
	// cancelled, unknown (no such tool or resource), denied (read-only
	// mode or a disabled scope) or rejected (over the concurrency cap or
	// the rate limit).
	Outcome    string `json:"outcome"`
	DurationMS int64  `json:"durationMs"`
	// Error is the redacted error text shown to the client, if any.
	Error string `json:"error,omitempty"`
	// Changes are the files a mutating call changed, with their digests
	// before and after; never the arguments.
	Changes []Change `json:"changes,omitempty"`
}

func (a *auditor) start(req *jsonrpc.Request, method, name, scope, category string, mutating bool) *auditRecord {
	if a == nil || (a.writesOnly && !mutating) {
		return nil
	}
	now := a.now()
	return &auditRecord{a: a, start: now, Time: now.UTC().Format(time.RFC3339Nano), ID: auditID(req.ID),
		Method: method, Token: a.token, Name: auditText(name, maxAuditName), Scope: scope, Category: category, Mutating: mutating}
}

// Bounds of the client-supplied or derived text an audit line records, so
// that no request can make the log grow without bound.
const (
	maxAuditName  = 256
	maxAuditError = 1024
	// maxEchoBytes bounds a client's name or URI an error echoes back, so
	// that a huge request cannot make a huge answer.
	maxEchoBytes = 1024
)

// auditText (also used for the names errors echo) returns s redacted and
// cut to at most n bytes, at a rune boundary, with "…" when cut. It
// redacts before cutting so that a cut cannot leave a partial secret that
// no detector recognises, and cuts the input first to a bound so that
// redaction work is bounded too.
func auditText(s string, n int) string {
	if len(s) > 4*n {
		s = s[:4*n]
	}
	return jsonrpc.Cut(redactText(s), n)
}

// auditID returns a request's id as the audit records it: a string id is
// the client's free text, redacted and cut like a name.
func auditID(id jsonrpc.ID) jsonrpc.ID {
	if s, ok := id.Text(); ok {
		return jsonrpc.StringID(auditText(s, maxAuditName))
	}
	return id
}

// finish completes and writes the record; res is the tool result, if any.
func (r *auditRecord) finish(outcome string, res *callResult) {
	if r == nil {
		return
	}
	r.Outcome = outcome
	r.DurationMS = r.a.now().Sub(r.start).Milliseconds()
	if res != nil {
		r.Changes = res.changes
	}
	if res != nil && res.IsError && len(res.Content) > 0 {
		r.Error = auditText(res.Content[0].Text, maxAuditError)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	if _, err := r.a.w.Write(append(b, '\n')); err != nil {
		// The call is done (a write has changed the project): say what
		// the audit misses, where the operator reads.
		r.a.log.Error("audit record not written", "method", r.Method, "name", r.Name, "outcome", r.Outcome, "err", err)
	}
}
