// This file defines the runbook tools: runbook_list and runbook_get, over
// package runbooks.

package mcp

import (
	"context"
	"encoding/json"

	"github.com/foundryhq/foundry/runbooks"
)

// book returns the project's runbooks; a read through it records a
// runbook_get event.
func (f *foundry) book() *runbooks.Book {
	return runbooks.Open(f.p.FS, runbooks.Options{Events: f.events})
}

type runbookEntry struct {
	Slug    string `json:"slug"`
	Title   string `json:"title"`
	Trigger string `json:"trigger,omitempty"`
	Path    string `json:"path"`
	Warning string `json:"warning,omitempty"`
}

func entryOf(r runbooks.Runbook) runbookEntry {
	return runbookEntry{Slug: r.Slug, Title: r.Title, Trigger: r.Trigger, Path: r.Path, Warning: r.Warning}
}

const runbookEntryProps = `
	"slug": {"type": "string"},
	"title": {"type": "string"},
	"trigger": {"type": "string", "description": "when the runbook applies"},
	"path": {"type": "string"},
	"warning": {"type": "string", "description": "why the runbook's front matter or file name is unusable"}`

type runbookListArgs struct {
	Limit  int    `json:"limit"`
	Cursor string `json:"cursor"`
}

func (f *foundry) addRunbookList(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "runbook_list",
		Title: "List runbooks",
		Description: "Lists the project's runbooks with their trigger conditions. Call it before any recurring or error-prone task " +
			"(deploys, releases, migrations, key rotation…): a runbook that exists must be followed rather than improvised. " +
			"Read one with runbook_get. When more runbooks remain, call again with the cursor the result names.",
		Scope:      ScopeReadRunbooks,
		Governance: Governance{AuditCategory: "runbooks.read"},
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		in = schema(`{
			"type": "object",
			"properties": {
				"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many runbooks per page. Defaults to 20"},
				"cursor": {"type": "string", "description": "The nextCursor of a previous runbook_list"}
			},
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {
				"runbooks": {"type": "array", "items": {
					"type": "object",
					"properties": {` + runbookEntryProps + `},
					"required": ["slug", "title", "path"]
				}},
				"total": {"type": "integer", "description": "runbooks in the project"},
				"nextCursor": {"type": "string"}
			},
			"required": ["runbooks", "total"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, in runbookListArgs) (Output, error) {
		page, err := f.book().Page(ctx, in.Limit, in.Cursor)
		if err != nil {
			return Output{}, err
		}
		out := struct {
			Runbooks   []runbookEntry `json:"runbooks"`
			Total      int            `json:"total"`
			NextCursor string         `json:"nextCursor,omitempty"`
		}{[]runbookEntry{}, page.Total, page.NextCursor}
		for _, rb := range page.Runbooks {
			out.Runbooks = append(out.Runbooks, entryOf(rb))
		}
		return Output{Text: page.Text(), Structured: out}, nil
	})
}

type runbookGetArgs struct {
	Slug string `json:"slug"`
}

type runbookDoc struct {
	runbookEntry
	Content string `json:"content"`
}

func (f *foundry) addRunbookGet(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "runbook_get",
		Title: "Read a runbook",
		Description: "Returns the full markdown of one runbook (.foundry/runbooks/<slug>.md). " +
			"Call it when a runbook from runbook_list applies and you need its full text. " +
			"An unknown slug returns an error listing the available slugs.",
		Scope:      ScopeReadRunbooks,
		Governance: Governance{AuditCategory: "runbooks.read"},
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		in = schema(`{
			"type": "object",
			"properties": {
				"slug": {"type": "string", "minLength": 1, "description": "The runbook's slug, as runbook_list shows it, e.g. deploy-production"}
			},
			"required": ["slug"],
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {` + runbookEntryProps + `,
				"content": {"type": "string", "description": "the runbook's markdown, verbatim"}
			},
			"required": ["slug", "title", "path", "content"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, in runbookGetArgs) (Output, error) {
		doc, err := f.book().Get(ctx, in.Slug)
		if err != nil {
			return Output{}, err
		}
		return Output{Text: doc.Text(), Structured: runbookDoc{entryOf(doc.Runbook), doc.Content}}, nil
	})
}
