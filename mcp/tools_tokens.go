// This file defines token_report, over package tokens.

package mcp

import (
	"context"
	"encoding/json"

	"github.com/foundryhq/foundry/internal/confined"
)

func (f *foundry) addTokenReport(r *Registry) error {
	count := `{"type": "object", "properties": {"count": {"type": "integer"}, "bytes": {"type": "integer"}, "tokens": {"type": "integer"}}, "required": ["count", "bytes", "tokens"]}`
	return addDeferred(r, Tool{
		Name:  "token_report",
		Title: "Report token costs",
		Description: "Reports Foundry's token accounting for the project: the memory index against its budget, the facts and blackboard artifacts " +
			"(retrieved on demand only), the recorded events (memory_search, memory_write, gate_blocked, blackboard_write, runbook_get) " +
			"and what loading all memory eagerly would cost against the index-first path. Call it when answering \"what is this costing\".",
		Scope:      ScopeReadOps,
		Governance: Governance{AuditCategory: "ops.tokens"},
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		in = noArguments
		out = schema(`{
			"type": "object",
			"properties": {
				"index": {"type": "object", "properties": {
					"built": {"type": "boolean"}, "bytes": {"type": "integer"}, "tokens": {"type": "integer"}, "budgetTokens": {"type": "integer"}
				}, "required": ["built", "bytes", "tokens", "budgetTokens"]},
				"facts": ` + count + `,
				"blackboard": {"type": "object", "properties": {
					"waves": {"type": "integer"}, "artifacts": {"type": "integer"}, "bytes": {"type": "integer"}, "tokens": {"type": "integer"}
				}, "required": ["waves", "artifacts", "bytes", "tokens"]},
				"events": {"type": "object", "properties": {
					"counts": {"type": "array", "items": {"type": "object", "properties": {"kind": {"type": "string"}, "count": {"type": "integer"}}, "required": ["kind", "count"]}},
					"total": {"type": "integer"},
					"malformed": {"type": "integer"}
				}, "required": ["counts", "total", "malformed"]},
				"eagerTokens": {"type": "integer", "description": "loading every fact and artifact into a session"},
				"indexFirstTokens": {"type": "integer", "description": "the index-first path"},
				"refused": {"type": "array", "description": "files left out: symbolic links out of the project", "items": {"type": "object", "properties": {
					"path": {"type": "string"}, "reason": {"type": "string"}
				}, "required": ["path", "reason"]}}
			},
			"required": ["index", "facts", "blackboard", "events", "eagerTokens", "indexFirstTokens"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, _ struct{}) (Output, error) {
		// The event log is gitignored, so it is always the working tree's.
		rep, err := f.reports.Report(ctx, f.p.FS, confined.OpenFS(f.p.Root), f.p.Config.Memory.IndexBudgetTokens)
		if err != nil {
			return Output{}, err
		}
		return Output{Text: rep.Text(), Structured: rep}, nil
	})
}
