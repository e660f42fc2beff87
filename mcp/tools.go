// This file defines tools/list and tools/call: visibility, argument
// validation, limits, redaction, progress and the shape of results.

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/jsonrpc"
)

// Call is one tools/call in progress, handed to the tool's handler.
type Call struct {
	// Tool is the name of the tool called.
	Tool string

	sess  *session
	conn  *jsonrpc.Conn
	token json.RawMessage // _meta.progressToken; nil when absent
	// stopped is closed once the request is cancelled (or its connection
	// or HTTP request ends): from then on nothing is sent for it, as MCP
	// 2026-07-28 requires of a cancelled request, though the tool may
	// still be winding down.
	stopped <-chan struct{}

	mu   sync.Mutex
	last float64
	sent bool
	done bool
}

// Progress reports progress of a long call to the client, when the client
// asked for it with _meta.progressToken; otherwise it does nothing. total
// is 0 when unknown. Values that do not increase are dropped, as are
// reports after the call has returned or was cancelled.
func (c *Call) Progress(ctx context.Context, progress, total float64, message string) {
	if c.token == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over() || (c.sent && progress <= c.last) {
		return
	}
	c.last, c.sent = progress, true
	err := c.conn.Notify(ctx, "notifications/progress", struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    float64         `json:"total,omitempty"`
		Message  string          `json:"message,omitempty"`
	}{c.token, progress, total, redactText(message)})
	if err != nil {
		c.sess.log.Warn("send progress", "tool", c.Tool, "err", err)
	}
}

// Log sends a notifications/message from the tool (logger = tool name) when
// the client's log level admits it, until the call has returned or was
// cancelled.
func (c *Call) Log(ctx context.Context, level LogLevel, data any) {
	c.mu.Lock()
	over := c.over()
	c.mu.Unlock()
	if !over {
		c.sess.notifyLog(ctx, c.conn, level, c.Tool, data)
	}
}

// over reports whether nothing more may be sent for the call. c.mu is held.
func (c *Call) over() bool {
	select {
	case <-c.stopped:
		return true
	default:
		return c.done
	}
}

func (c *Call) finish() {
	c.mu.Lock()
	c.done = true
	c.mu.Unlock()
}

// toolAvailable reports whether a tool may be listed and called, and why
// not.
func (s *session) toolAvailable(t *tool) (bool, string) { return s.policy.tool(t) }

type listParams struct {
	Cursor *string `json:"cursor"`
}

func (s *session) listTools(_ context.Context, _ *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p listParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	var all []json.RawMessage
	for _, t := range s.reg.tools {
		if ok, _ := s.toolAvailable(t); ok {
			entry, err := t.listing()
			if err != nil {
				s.log.Error("tool schema is not valid", "tool", t.Name, "err", err)
				return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %s", err.Error())
			}
			all = append(all, entry)
		}
	}
	items, next, err := paginate(all, p.Cursor, "tools", s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{items, next}, nil
}

// content is one text content block.
type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// callResult is the result of tools/call.
type callResult struct {
	Content           []content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	// changes are the files a mutating call changed, for the audit log
	// alone.
	changes []Change
}

func errorResult(text string) callResult {
	return callResult{Content: []content{{Type: "text", Text: redactText(text)}}, IsError: true}
}

func (s *session) callTool(ctx context.Context, conn *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p struct {
		Name      any             `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	const shape = "Invalid params: tools/call takes an object with a string name"
	if req.Params == nil || req.Params[0] != '{' || json.Unmarshal(req.Params, &p) != nil {
		return nil, invalidParams(shape)
	}
	name, ok := p.Name.(string)
	if !ok || name == "" {
		return nil, invalidParams(shape)
	}
	t := s.reg.byName[name]
	if t == nil {
		s.audit.start(req, "tools/call", name, "", "", false).finish("unknown", nil)
		name := auditText(name, maxEchoBytes)
		e := invalidParams("Unknown tool: %s", name)
		e.Data = map[string]string{"name": name}
		return nil, e
	}
	if ok, why := s.toolAvailable(t); !ok {
		s.audit.start(req, "tools/call", name, t.Scope, t.AuditCategory, t.Mutating).finish("denied", nil)
		e := invalidParams("Tool not available: %s (%s)", name, why)
		e.Data = map[string]string{"name": name}
		return nil, e
	}

	rec := s.audit.start(req, "tools/call", name, t.Scope, t.AuditCategory, t.Mutating)
	res, outcome := s.runTool(ctx, conn, t, p.Arguments, p.Meta.ProgressToken)
	if outcome != "too_large" { // that answer is already the short replacement
		res = boundError(res, t.MaxResultBytes)
	}
	if ctx.Err() != nil && outcome != "ok" {
		// A call that succeeded all the same did its work (a write
		// happened): the audit says so, though the client gets no answer.
		outcome = "cancelled"
	}
	rec.finish(outcome, &res)
	return res, nil
}

// runTool validates the arguments, runs the handler under the tool's
// limits and shapes the result. The outcome names what happened for the
// audit log.
func (s *session) runTool(ctx context.Context, conn *jsonrpc.Conn, t *tool, args, token json.RawMessage) (callResult, string) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	if msg := s.checkArgs(t, args); msg != "" {
		return errorResult(msg), "invalid_arguments"
	}
	if len(token) > 0 && string(token) == "null" {
		token = nil
	}
	call := &Call{Tool: t.Name, sess: s, conn: conn, token: token, stopped: ctx.Done()}
	tctx, cancel := context.WithTimeout(withResultLimit(ctx, t.MaxResultBytes), t.Timeout)
	out, err := s.invoke(tctx, t, call, args)
	call.finish()
	timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()

	var verbatim *VerbatimError
	var tooLarge *ResultTooLargeError
	switch {
	case err == nil:
	case timedOut:
		return errorResult(fmt.Sprintf("%s failed: timed out after %s", t.Name, t.Timeout)), "timeout"
	case errors.As(err, &tooLarge):
		return errorResult(fmt.Sprintf("%s failed: result of at least %d bytes exceeds the %d-byte limit; narrow the request%s",
			t.Name, tooLarge.Bytes, t.MaxResultBytes, hintSuffix(tooLarge.Hint))), "too_large"
	case errors.As(err, &verbatim):
		return errorResult(verbatim.Text), "error"
	default:
		return errorResult(fmt.Sprintf("%s failed: %s", t.Name, err.Error())), "error"
	}

	text := out.Text
	if !out.Redacted {
		text = redactText(text)
	}
	res := callResult{Content: []content{{Type: "text", Text: text}}, changes: out.Changes}
	// checkArgs defined the schemas: outJSON is set.
	if t.outJSON != nil || out.Structured != nil {
		sc, msg := s.structured(t, out)
		if msg != "" {
			s.log.Error("tool result breaks its output schema", "tool", t.Name, "problem", msg)
			return errorResult(fmt.Sprintf("%s failed: internal error: %s", t.Name, msg)), "error"
		}
		res.StructuredContent = sc
	}
	// The text block and structuredContent carry the same result twice
	// (the specification asks for both): the limit bounds the result, so
	// it applies to the larger of the two, not to their sum.
	if size := resultSize(res); size > t.MaxResultBytes {
		return errorResult(fmt.Sprintf("%s failed: result of %d bytes exceeds the %d-byte limit; narrow the request",
			t.Name, size, t.MaxResultBytes)), "too_large"
	}
	return res, "ok"
}

// resultLimitKey carries a call's or read's result limit in its context.
type resultLimitKey struct{}

func withResultLimit(ctx context.Context, limit int) context.Context {
	return context.WithValue(ctx, resultLimitKey{}, limit)
}

// ResultLimit returns the result limit, in bytes, of the tool call or
// resource read whose handler ctx was given to, or 0 outside one. A handler
// that can tell an answer's size before building it (from file sizes)
// refuses one over the limit with a [*ResultTooLargeError] instead of
// building it to be refused.
func ResultLimit(ctx context.Context) int {
	n, _ := ctx.Value(resultLimitKey{}).(int)
	return n
}

func hintSuffix(hint string) string {
	if hint == "" {
		return ""
	}
	return ": " + hint
}

// invoke runs a tool's handler. A panic is a failure of the core like any
// other: it becomes the call's error (and so an isError result and an
// audit line), not a JSON-RPC error that would bypass the audit log.
func (s *session) invoke(ctx context.Context, t *tool, call *Call, args json.RawMessage) (out Output, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("tool panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			out, err = Output{}, fmt.Errorf("internal error: %v", p)
		}
	}()
	return t.handle(ctx, call, args)
}

// checkArgs validates arguments against the tool's input schema and
// returns the model-facing message when they fail. A tool whose output is
// checked on every call (not OutputProven) fails here, before its handler
// runs, when its output schema does not compile either.
func (s *session) checkArgs(t *tool, args json.RawMessage) string {
	err := t.schemas()
	if err == nil && !t.OutputProven {
		_, err = t.outSchema()
	}
	if err != nil {
		s.log.Error("tool schema does not compile", "tool", t.Name, "err", err)
		return fmt.Sprintf("%s failed: internal error: %v", t.Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("%s failed: invalid arguments:\n- #: %v", t.Name, err)
	}
	vs := t.in.Validate(v)
	if len(vs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed: invalid arguments:", t.Name)
	for _, v := range vs {
		b.WriteString("\n- ")
		b.WriteString(v.String())
	}
	return b.String()
}

// validate checks doc against schema; nothing without one.
func validate(schema *contracts.Schema, doc any) []contracts.Violation {
	if schema == nil {
		return nil
	}
	return schema.Validate(doc)
}

// structured encodes a handler's structured value, checks it against the
// output schema (unless the tool's output is proven in tests) and redacts
// it (unless the handler did). msg describes a broken value.
func (s *session) structured(t *tool, out Output) (json.RawMessage, string) {
	v := out.Structured
	if v == nil {
		return nil, "no structured content for a tool with an output schema"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "encode structured content: " + err.Error()
	}
	if t.OutputProven && out.Redacted {
		if len(b) == 0 || b[0] != '{' {
			return nil, "structured content is not a JSON object"
		}
		return b, ""
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, "decode structured content: " + err.Error()
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, "structured content is not a JSON object"
	}
	if !t.OutputProven {
		schema, err := t.outSchema()
		if err != nil {
			return nil, err.Error()
		}
		if vs := validate(schema, doc); len(vs) > 0 {
			parts := make([]string, len(vs))
			for i, v := range vs {
				parts[i] = v.String()
			}
			return nil, "result does not match the output schema: " + strings.Join(parts, "; ")
		}
	}
	b, err = json.Marshal(redactValue(doc))
	if err != nil {
		return nil, "encode structured content: " + err.Error()
	}
	return b, ""
}

// boundError cuts the text of an error result that would encode to more
// than limit bytes, so that no answer is unbounded: a rejection or an
// argument check can list a violation per property of a large input. The
// text keeps its first lines verbatim (the model can act on them) and ends
// with a line saying how much was cut.
func boundError(res callResult, limit int) callResult {
	if !res.IsError || len(res.Content) != 1 || encodedSize(res) <= limit {
		return res
	}
	text := res.Content[0].Text
	cut := func(n int) callResult {
		return callResult{IsError: true, Content: []content{{Type: "text", Text: fmt.Sprintf(
			"%s\n… %d more bytes cut: the text exceeds the %d-byte result limit", text[:n], len(text)-n, limit)}}}
	}
	// The encoded size grows with the bytes kept: find the most that fit,
	// then end the kept text at a line break when there is one.
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if encodedSize(cut(mid)) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if i := strings.LastIndexByte(text[:lo], '\n'); i > 0 {
		lo = i
	}
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo--
	}
	return cut(lo)
}

// resultSize is the size a result limit applies to: the larger of its
// text, JSON-encoded, and its structuredContent.
func resultSize(res callResult) int {
	size := len(res.StructuredContent)
	for _, c := range res.Content {
		b, err := json.Marshal(c.Text)
		if err != nil {
			return math.MaxInt
		}
		size = max(size, len(b))
	}
	return size
}

func encodedSize(res callResult) int {
	b, err := json.Marshal(res)
	if err != nil {
		return 0
	}
	return len(b)
}
