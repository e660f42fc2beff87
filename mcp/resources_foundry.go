// This file defines Foundry's resources: the memory index, the contract
// list, one resource per runbook, and the templates for a runbook, a
// contract's schema, a fact and a blackboard artifact.

package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/runbooks"
)

// URIs and templates of Foundry's resources.
const (
	MemoryIndexURI     = "foundry://memory/index"
	ContractsURI       = "foundry://contracts"
	RunbookTemplate    = "foundry://runbooks/{slug}"
	ContractTemplate   = "foundry://contracts/{id}"
	FactTemplate       = "foundry://memory/facts/{id}"
	BlackboardTemplate = "foundry://blackboard/{wave}/{agent}"
)

const (
	mimeMarkdown = "text/markdown"
	mimeJSON     = "application/json"
)

func unknown(uri string) error { return fmt.Errorf("read %s: %w", uri, ErrUnknownResource) }

func (f *foundry) addResources(r *Registry) error {
	steps := []func() error{
		func() error {
			return r.AddResource(Resource{
				URI: MemoryIndexURI, Name: "Memory index", MIMEType: mimeMarkdown, Scope: ScopeReadMemory,
				Governance:  Governance{AuditCategory: "memory.read"},
				Description: "INDEX.md: the token-budgeted list of active facts, most important first. Search a fact's body with memory_search.",
			}, f.readMemoryIndex)
		},
		func() error {
			return r.AddResource(Resource{
				URI: ContractsURI, Name: "I/O contracts", MIMEType: mimeMarkdown, Scope: ScopeReadContracts,
				Governance:  Governance{AuditCategory: "contracts.read"},
				Description: "A markdown list of every available contract id.",
			}, f.readContractList)
		},
		func() error {
			return r.AddResourceTemplate(ResourceTemplate{
				URITemplate: RunbookTemplate, Name: "Runbook", MIMEType: mimeMarkdown, Scope: ScopeReadRunbooks,
				Governance:  Governance{AuditCategory: "runbooks.read"},
				Description: "A runbook's markdown, by slug.",
			}, f.listRunbooks, f.readRunbook)
		},
		func() error {
			return r.AddResourceTemplate(ResourceTemplate{
				URITemplate: ContractTemplate, Name: "Contract schema", MIMEType: mimeJSON, Scope: ScopeReadContracts,
				Governance:  Governance{AuditCategory: "contracts.read"},
				Description: "A contract's JSON Schema (2020-12), by id, e.g. finding.v1.",
			}, nil, f.readContract)
		},
		func() error {
			return r.AddResourceTemplate(ResourceTemplate{
				URITemplate: FactTemplate, Name: "Fact", MIMEType: mimeMarkdown, Scope: ScopeReadMemory,
				Governance:  Governance{AuditCategory: "memory.read"},
				Description: "One fact file, front matter and body, by id, e.g. fact-0004.",
			}, nil, f.readFact)
		},
		func() error {
			return r.AddResourceTemplate(ResourceTemplate{
				URITemplate: BlackboardTemplate, Name: "Blackboard artifact", MIMEType: mimeJSON, Scope: ScopeReadBlackboard,
				Governance:  Governance{AuditCategory: "blackboard.read"},
				Description: "One artifact verbatim, by wave and producing agent. Prefer blackboard_read for summaries.",
			}, nil, f.readArtifact)
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// readMemoryIndex serves INDEX.md, built on demand when it is missing:
// rendered from the facts, not written, since a read changes no content
// (memory_index and every memory_write write it).
func (f *foundry) readMemoryIndex(ctx context.Context, _ string, _ map[string]string) (string, error) {
	data, err := fs.ReadFile(f.p.FS, facts.IndexPath)
	switch {
	case err == nil:
		return string(data), nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read memory index: %w", err)
	}
	res, err := f.store.Index(ctx)
	if err != nil {
		return "", err
	}
	return string(res.Content), nil
}

func (f *foundry) readContractList(context.Context, string, map[string]string) (string, error) {
	reg, err := f.contracts()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# I/O contracts\n\n")
	b.WriteString("Validate an artifact with contract_validate; read a schema at foundry://contracts/<id>.\n\n")
	for _, id := range reg.IDs() {
		if reg.Embedded(id) {
			fmt.Fprintf(&b, "- %s\n", id)
		} else {
			fmt.Fprintf(&b, "- %s (project-local, %s)\n", id, contracts.LocalDir)
		}
	}
	return b.String(), nil
}

// listRunbooks lists one resource per runbook whose file name is a valid
// slug: name "Runbook: <title>" (its slug when it has no title, or cannot
// be read), description its trigger. The runbooks are named from their
// folder's listing; resources/list reads those of its page alone.
func (f *foundry) listRunbooks(ctx context.Context) ([]Resource, error) {
	book := f.book()
	l, err := book.Names(ctx)
	if err != nil {
		return nil, err
	}
	var out []Resource
	for _, rb := range l.Runbooks {
		if !runbooks.ValidSlug(rb.Slug) {
			continue // runbook_get cannot read it either; doctor reports it
		}
		out = append(out, Resource{
			URI: "foundry://runbooks/" + rb.Slug, MIMEType: mimeMarkdown,
			describe: func(ctx context.Context, r *Resource) error {
				rbs := []runbooks.Runbook{rb}
				if err := book.Describe(ctx, rbs); err != nil {
					return err
				}
				title := rbs[0].Title
				if title == "" {
					title = rbs[0].Slug
				}
				r.Name, r.Description = "Runbook: "+title, rbs[0].Trigger
				return nil
			},
		})
	}
	return out, nil
}

func (f *foundry) readRunbook(ctx context.Context, uri string, vars map[string]string) (string, error) {
	doc, err := f.book().Get(ctx, vars["slug"])
	if errors.Is(err, runbooks.ErrUnknownRunbook) || errors.Is(err, runbooks.ErrInvalidSlug) {
		return "", unknown(uri)
	}
	if err != nil {
		return "", err
	}
	return doc.Content, nil
}

func (f *foundry) readContract(_ context.Context, uri string, vars map[string]string) (string, error) {
	reg, err := f.contracts()
	if err != nil {
		return "", err
	}
	b, err := reg.Schema(vars["id"])
	if errors.Is(err, contracts.ErrUnknownContract) {
		return "", unknown(uri)
	}
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func (f *foundry) readFact(ctx context.Context, uri string, vars map[string]string) (string, error) {
	if !facts.ValidID(vars["id"]) {
		return "", unknown(uri)
	}
	fact, err := f.store.Get(ctx, vars["id"])
	if errors.Is(err, facts.ErrNotFound) {
		return "", unknown(uri)
	}
	if err != nil {
		return "", err
	}
	return string(facts.Format(fact)), nil
}

func (f *foundry) readArtifact(ctx context.Context, uri string, vars map[string]string) (string, error) {
	res, err := f.board().Read(ctx, blackboard.ReadRequest{Wave: vars["wave"], Agent: vars["agent"], Full: true, MaxBytes: int64(ResultLimit(ctx))})
	var tooLarge *blackboard.FullTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return "", &ResultTooLargeError{Bytes: tooLarge.Bytes}
	case errors.Is(err, blackboard.ErrUnknownWave), errors.Is(err, blackboard.ErrNoArtifact), errors.Is(err, blackboard.ErrInvalidName):
		return "", unknown(uri)
	case err != nil:
		return "", err
	case len(res.Artifacts) != 1:
		return "", unknown(uri)
	}
	a := res.Artifacts[0]
	if a.Problem != "" {
		return "", fmt.Errorf("read %s: %s", a.Path, a.Problem)
	}
	return string(a.Data), nil
}
