// This file defines the blackboard tools: blackboard_write and
// blackboard_read, over package blackboard.

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"path"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
)

// board returns the project's blackboard. Writes record blackboard_write
// and gate_blocked events; only a working tree can be written. Its
// contracts are the server's kept ones, and so is its note of when its
// writes last cleared each folder of stale temp files.
func (f *foundry) board() *blackboard.Board {
	o := blackboard.Options{Events: f.events, LoadContracts: f.warm.boardContracts(), Clearings: f.clearings}
	if f.p.Writable() {
		o.Root = f.p.Root
	}
	return blackboard.Open(f.p.FS, o)
}

type blackboardWriteArgs struct {
	Wave   string          `json:"wave"`
	Agent  string          `json:"agent"`
	Schema string          `json:"schema"`
	Data   json.RawMessage `json:"data"`
}

type blackboardWriteResult struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
	Wave   string `json:"wave"`
	Agent  string `json:"agent"`
	Schema string `json:"schema"`
	Digest string `json:"digest"`
	// Replaced: an artifact was at path before, now gone: the agent's own
	// earlier one, or another agent's whose name sanitises the same.
	Replaced bool `json:"replaced"`
}

func (f *foundry) addBlackboardWrite(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "blackboard_write",
		Title: "Hand an artifact to the next wave",
		Description: "Writes a wave artifact to .foundry/blackboard/<wave>/<agent>.json and validates it against its contract in one step. " +
			"Call it when handing work to the next wave. The server sets the artifact's schema and producedBy fields itself from schema and agent, " +
			"then validates; on failure nothing is written and the violations are listed. On success, return to your caller ONLY the path and a short summary. " +
			"wave and agent are sanitised: anything outside [A-Za-z0-9._-] becomes -, and both are cut to 80 characters.",
		Scope:       ScopeWriteBlackboard,
		Governance:  Governance{AuditCategory: "blackboard.write"},
		Mutating:    true,
		Destructive: true, // replaces the agent's previous artifact of the wave
		Idempotent:  true,
	}, func() (in, out json.RawMessage) {
		in = schema(`{
			"type": "object",
			"properties": {
				"wave": {"type": "string", "minLength": 1, "description": "Wave id, e.g. analysis"},
				"agent": {"type": "string", "minLength": 1, "description": "Producing agent name"},
				"schema": {"type": "string", "minLength": 1, "description": "Contract id the artifact conforms to, e.g. finding.v1"},
				"data": {"type": "object", "description": "The artifact"}
			},
			"required": ["wave", "agent", "schema", "data"],
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {
				"path": {"type": "string", "description": "the artifact, relative to the project root"},
				"bytes": {"type": "integer"},
				"tokens": {"type": "integer", "description": "estimated tokens of the artifact"},
				"wave": {"type": "string", "description": "sanitised"},
				"agent": {"type": "string", "description": "sanitised"},
				"schema": {"type": "string"},
				"digest": {"type": "string", "description": "sha256 of the contract the artifact was accepted under"},
				"replaced": {"type": "boolean", "description": "an artifact was at path before and this one replaced it: the agent's earlier one, or another agent's whose name sanitises the same"}
			},
			"required": ["path", "bytes", "tokens", "wave", "agent", "schema", "digest", "replaced"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, in blackboardWriteArgs) (Output, error) {
		var watch []string
		wave, werr := blackboard.Sanitize(in.Wave)
		agent, aerr := blackboard.Sanitize(in.Agent)
		if werr == nil && aerr == nil {
			watch = append(watch, path.Join(blackboard.Dir, wave, agent+".json"))
		}
		// Only a contract id names a lock entry a write may create;
		// anything else is refused by the write itself.
		if contracts.ValidID(in.Schema) {
			watch = append(watch, blackboard.LockDir+"/"+in.Schema)
		}
		snap := f.snapshot(watch...)
		res, err := f.board().Write(ctx, blackboard.WriteRequest{Wave: in.Wave, Agent: in.Agent, Schema: in.Schema, Data: in.Data})
		if err != nil {
			return Output{}, err
		}
		if !res.Written {
			return Output{}, Verbatim(res.Text())
		}
		return Output{Text: res.Text(), Structured: blackboardWriteResult{
			Path: res.Path, Bytes: res.Bytes, Tokens: res.Tokens, Wave: res.Wave, Agent: res.Agent, Schema: res.Schema, Digest: res.ContractDigest,
			Replaced: res.Replaced,
		}, Changes: snap.changes(res.Path)}, nil
	})
}

type blackboardReadArgs struct {
	Wave   string `json:"wave"`
	Agent  string `json:"agent"`
	Full   bool   `json:"full"`
	Limit  int    `json:"limit"`
	Cursor string `json:"cursor"`
}

func (f *foundry) addBlackboardRead(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "blackboard_read",
		Title: "Read a wave's artifacts",
		Description: "Reads the artifacts of a wave: by default one entry per artifact with its contract, producer, token cost and a one-line summary. " +
			"Call it when picking up what a previous wave produced. " +
			"full: true returns each artifact verbatim, which is exactly the file dump the context firewall exists to prevent: pass it only when you genuinely need the whole artifact, " +
			"preferably with agent. When more artifacts remain, call again with the cursor the result names.",
		Scope:      ScopeReadBlackboard,
		Governance: Governance{AuditCategory: "blackboard.read"},
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		in = schema(`{
			"type": "object",
			"properties": {
				"wave": {"type": "string", "minLength": 1, "description": "Wave id, e.g. analysis"},
				"agent": {"type": "string", "minLength": 1, "description": "Restrict to one producer"},
				"full": {"type": "boolean", "description": "Return the whole artifact. Use only when you genuinely need it"},
				"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many artifacts per page. Defaults to 20"},
				"cursor": {"type": "string", "description": "The nextCursor of a previous read of this wave"}
			},
			"required": ["wave"],
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {
				"wave": {"type": "string"},
				"full": {"type": "boolean"},
				"total": {"type": "integer", "description": "artifacts in the wave (of the agent, with agent)"},
				"artifacts": {"type": "array", "items": {
					"type": "object",
					"properties": {
						"name": {"type": "string"},
						"agent": {"type": "string"},
						"path": {"type": "string"},
						"schema": {"type": "string"},
						"producedBy": {"type": "string"},
						"bytes": {"type": "integer"},
						"tokens": {"type": "integer"},
						"summary": {"type": "string"},
						"problem": {"type": "string", "description": "why the file is not a JSON object"},
						"data": {"type": "object", "description": "the artifact, with full"}
					},
					"required": ["name", "agent", "path", "bytes", "tokens"]
				}},
				"nextCursor": {"type": "string"}
			},
			"required": ["wave", "full", "total", "artifacts"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, in blackboardReadArgs) (Output, error) {
		res, err := f.board().Read(ctx, blackboard.ReadRequest{Wave: in.Wave, Agent: in.Agent, Full: in.Full, Limit: in.Limit, Cursor: in.Cursor,
			MaxBytes: int64(ResultLimit(ctx))})
		var tooLarge *blackboard.FullTooLargeError
		if errors.As(err, &tooLarge) {
			return Output{}, &ResultTooLargeError{Bytes: tooLarge.Bytes, Hint: "pass agent, a smaller limit, or leave out full"}
		}
		if err != nil {
			return Output{}, err
		}
		if res.Artifacts == nil {
			res.Artifacts = []blackboard.Artifact{} // the output schema wants an array
		}
		return Output{Text: res.Text(), Structured: res}, nil
	})
}
