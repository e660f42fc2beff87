// This file defines the read-only doctor tool, over package doctor.

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/foundryhq/foundry/doctor"
)

// doctorTimeout bounds a doctor call: the sweep and the history pass read
// every artifact and walk the history once, which takes longer than the
// other tools on a large project.
const doctorTimeout = 2 * time.Minute

// maxDoctorFindings bounds the findings in structuredContent; the text
// summary is bounded by package doctor itself.
const maxDoctorFindings = 100

type doctorArgs struct {
	History *bool `json:"history"`
}

type doctorResult struct {
	Source   string             `json:"source"`
	Files    int                `json:"files"`
	Errors   int                `json:"errors"`
	Warnings int                `json:"warnings"`
	Infos    int                `json:"infos"`
	Failed   bool               `json:"failed"`
	Findings []doctor.Finding   `json:"findings"`
	Omitted  int                `json:"omitted"`
	History  doctor.HistoryInfo `json:"history"`
}

func (f *foundry) addDoctor(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "doctor",
		Title: "Check the project",
		Description: "Checks the whole project and reports what is wrong: blackboard artifacts that do not satisfy their contract, " +
			"malformed or duplicated facts, a stale memory index, broken runbooks, an invalid config, project-local schemas that do not compile, " +
			"agent definitions whose contracts do not hold. In git, a history pass explains an artifact that was valid when written as " +
			"written before its contract was tightened. Call it before handing off a wave, or when a tool reports a broken file. Read-only: it never writes.",
		Scope:      ScopeReadOps,
		Idempotent: true,
		Governance: Governance{AuditCategory: "ops.doctor", Timeout: doctorTimeout},
	}, func() (in, out json.RawMessage) {
		in = schema(`{
			"type": "object",
			"properties": {
				"history": {"type": "boolean", "description": "Run the git history pass (default true); false is faster"}
			},
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {
				"source": {"type": "string", "description": "what was checked: working tree, index or a revision"},
				"files": {"type": "integer", "description": "files read"},
				"errors": {"type": "integer"},
				"warnings": {"type": "integer"},
				"infos": {"type": "integer"},
				"failed": {"type": "boolean", "description": "true when any finding is an error"},
				"findings": {"type": "array", "items": {
					"type": "object",
					"properties": {
						"check": {"type": "string"},
						"severity": {"type": "string", "enum": ["error", "warning", "info"]},
						"file": {"type": "string"},
						"line": {"type": "integer"},
						"column": {"type": "integer"},
						"pointer": {"type": "string", "description": "JSON pointer of a contract violation"},
						"message": {"type": "string"},
						"note": {"type": "string"},
						"fix": {"type": "string", "description": "the command that repairs the finding"}
					},
					"required": ["check", "severity", "message"]
				}},
				"omitted": {"type": "integer", "description": "findings left out of this list"},
				"history": {"type": "object", "properties": {
					"ran": {"type": "boolean"}, "skipped": {"type": "string"}, "from": {"type": "string"},
					"commits": {"type": "integer"}, "truncated": {"type": "boolean"}
				}, "required": ["ran", "commits", "truncated"]}
			},
			"required": ["source", "files", "errors", "warnings", "infos", "failed", "findings", "omitted", "history"]
		}`)
		return in, out
	}, func(ctx context.Context, call *Call, in doctorArgs) (Output, error) {
		env := doctor.Env{
			Project:   f.p,
			NoHistory: in.History != nil && !*in.History,
			Now:       f.now,
			Progress:  doctorProgress(ctx, call),
		}
		text, rep, err := doctor.Summary(ctx, env)
		if err != nil {
			return Output{}, err
		}
		out := doctorResult{
			Source: rep.Source, Files: rep.Files, Errors: rep.Errors, Warnings: rep.Warnings, Infos: rep.Infos,
			Failed: rep.Failed(), Findings: nonNil(rep.Findings), History: rep.History,
		}
		if len(out.Findings) > maxDoctorFindings {
			out.Omitted = len(out.Findings) - maxDoctorFindings
			out.Findings = out.Findings[:maxDoctorFindings]
		}
		return Output{Text: text, Structured: out}, nil
	})
}

// doctorProgress reports the sweep's progress to the client, and each
// new phase as a debug log message. Each phase counts from zero; the
// reported value adds the phases already done, so it only ever increases.
func doctorProgress(ctx context.Context, call *Call) func(doctor.Progress) {
	var base, last int
	phase := ""
	return func(p doctor.Progress) {
		if p.Phase != phase {
			base += last
			phase, last = p.Phase, 0
			call.Log(ctx, LogDebug, "doctor: "+p.Phase)
		}
		last = p.Done
		msg := fmt.Sprintf("%s: %d", p.Phase, p.Done)
		if p.Total > 0 {
			msg += fmt.Sprintf(" of %d", p.Total)
		}
		call.Progress(ctx, float64(base+p.Done), 0, msg)
	}
}
