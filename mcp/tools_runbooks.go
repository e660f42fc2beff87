// This file defines the runbook tools: runbook_list and runbook_get, over
// package runbooks.

package mcp

import (
	"context"

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

func (f *foundry) addRunbookList(r *Registry) error {
	return AddTool(r, Tool{
		Name:  "runbook_list",
		Title: "List runbooks",
		Description: "Lists the project's runbooks with their trigger conditions. Call it before any recurring or error-prone task " +
			"(deploys, releases, migrations, key rotation…): a runbook that exists must be followed rather than improvised. " +
			"Read one with runbook_get.",
		InputSchema: noArguments,
		OutputSchema: schema(`{
			"type": "object",
			"properties": {
				"runbooks": {"type": "array", "items": {
					"type": "object",
					"properties": {` + runbookEntryProps + `},
					"required": ["slug", "title", "path"]
				}}
			},
			"required": ["runbooks"]
		}`),
		Scope:      ScopeReadRunbooks,
		Idempotent: true,
	}, func(ctx context.Context, _ *Call, _ struct{}) (Output, error) {
		l, err := f.book().List(ctx)
		if err != nil {
			return Output{}, err
		}
		out := struct {
			Runbooks []runbookEntry `json:"runbooks"`
		}{[]runbookEntry{}}
		for _, rb := range l.Runbooks {
			out.Runbooks = append(out.Runbooks, entryOf(rb))
		}
		return Output{Text: l.Text(), Structured: out}, nil
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
	return AddTool(r, Tool{
		Name:  "runbook_get",
		Title: "Read a runbook",
		Description: "Returns the full markdown of one runbook (.foundry/runbooks/<slug>.md). " +
			"Call it when a runbook from runbook_list applies and you need its full text. " +
			"An unknown slug returns an error listing the available slugs.",
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"slug": {"type": "string", "minLength": 1, "description": "The runbook's slug, as runbook_list shows it, e.g. deploy-production"}
			},
			"required": ["slug"],
			"additionalProperties": false
		}`),
		OutputSchema: schema(`{
			"type": "object",
			"properties": {` + runbookEntryProps + `,
				"content": {"type": "string", "description": "the runbook's markdown, verbatim"}
			},
			"required": ["slug", "title", "path", "content"]
		}`),
		Scope:      ScopeReadRunbooks,
		Idempotent: true,
	}, func(ctx context.Context, _ *Call, in runbookGetArgs) (Output, error) {
		doc, err := f.book().Get(ctx, in.Slug)
		if err != nil {
			return Output{}, err
		}
		return Output{Text: doc.Text(), Structured: runbookDoc{entryOf(doc.Runbook), doc.Content}}, nil
	})
}
