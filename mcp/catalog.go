// This file defines the policy that decides which capabilities a server
// exposes, and the catalog of `foundry mcp capabilities`.

package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// policy decides which capabilities a server exposes: a capability is
// exposed when it is switched on (explicitly, or by default), its scope is
// enabled and, when it is mutating, the server is not read-only. Switching
// a capability on never grants beyond the scopes and read-only mode.
type policy struct {
	readOnly bool
	scopes   map[string]bool
	switched map[string]bool // mcp.capabilities: name → on
}

func newPolicy(opts Options) (policy, error) {
	r := opts.Registry
	known := r.scopes()
	p := policy{readOnly: opts.ReadOnly, scopes: known, switched: opts.Capabilities}
	if opts.Scopes != nil {
		p.scopes = map[string]bool{}
		for _, sc := range opts.Scopes {
			if !known[sc] {
				return policy{}, fmt.Errorf("serve mcp: unknown scope %q (known: %s)", sc, strings.Join(sortedKeys(known), ", "))
			}
			p.scopes[sc] = true
		}
	}
	names := r.capabilityNames()
	for name := range opts.Capabilities {
		if !slices.Contains(names, name) {
			return policy{}, fmt.Errorf("serve mcp: unknown capability %q in mcp.capabilities (known: %s)", name, strings.Join(names, ", "))
		}
	}
	return p, nil
}

// allows reports whether a capability is exposed, and why not.
func (p policy) allows(name, scope string, mutating bool, g Governance) (bool, string) {
	on, set := p.switched[name]
	switch {
	case set && !on:
		return false, fmt.Sprintf("capability %s is disabled in mcp.capabilities", name)
	case !set && g.DefaultOff:
		return false, fmt.Sprintf("capability %s is off by default; enable it in mcp.capabilities", name)
	case p.readOnly && mutating:
		return false, "the server is read-only"
	case !p.scopes[scope]:
		return false, fmt.Sprintf("scope %s is not enabled", scope)
	}
	return true, ""
}

func (p policy) tool(t *tool) (bool, string) {
	return p.allows(t.Name, t.Scope, t.Mutating, t.Governance)
}

func (p policy) resource(r *resource) (bool, string) {
	return p.allows(r.URI, r.Scope, false, r.Governance)
}

func (p policy) template(t *template) (bool, string) {
	return p.allows(t.URITemplate, t.Scope, false, t.Governance)
}

// capabilityNames lists the names mcp.capabilities knows: tool names,
// resource URIs and URI templates, in registration order.
func (r *Registry) capabilityNames() []string {
	var names []string
	for _, t := range r.tools {
		names = append(names, t.Name)
	}
	for _, res := range r.resources {
		names = append(names, res.URI)
	}
	for _, t := range r.templates {
		names = append(names, t.URITemplate)
	}
	return names
}

// Capability is one entry of the catalog: a registered tool, resource or
// resource template with everything seed 003 registers for it, and whether
// a server with given options exposes it. Its JSON form is the public
// catalog (foundry mcp capabilities --json): renaming or removing a field
// is a breaking change.
type Capability struct {
	// Name is the tool's name, the resource's URI or the template's URI
	// template: the key of mcp.capabilities.
	Name           string          `json:"name"`
	Kind           string          `json:"kind"` // tool, resource or resource template
	Title          string          `json:"title,omitempty"`
	Description    string          `json:"description"`
	Version        int             `json:"version"`
	Scope          string          `json:"scope"`
	Classification string          `json:"classification"` // read-only or mutating
	AuditCategory  string          `json:"auditCategory"`
	TimeoutMS      int64           `json:"timeoutMs"`
	MaxResultBytes int             `json:"maxResultBytes"`
	DefaultEnabled bool            `json:"defaultEnabled"`
	Plugin         string          `json:"plugin,omitempty"`
	InputSchema    json.RawMessage `json:"inputSchema"`
	OutputSchema   json.RawMessage `json:"outputSchema,omitempty"`
	Annotations    *annotations    `json:"annotations,omitempty"`
	MIMEType       string          `json:"mimeType,omitempty"`
	// Enabled says the server with the given options exposes it; Why
	// says why not.
	Enabled bool   `json:"enabled"`
	Why     string `json:"why,omitempty"`
}

// The kinds of [Capability].
const (
	KindTool     = "tool"
	KindResource = "resource"
	KindTemplate = "resource template"
)

// Catalog returns every capability of the registry (tools, then
// resources, then resource templates, each in registration order) and
// whether a server serving opts would expose it. opts.Registry is ignored.
func (r *Registry) Catalog(opts Options) ([]Capability, error) {
	opts.Registry = r
	p, err := newPolicy(opts)
	if err != nil {
		return nil, err
	}
	var out []Capability
	entry := func(name, kind, title, desc, scope string, mutating bool, g Governance, on bool, why string) Capability {
		class := "read-only"
		if mutating {
			class = "mutating"
		}
		return Capability{Name: name, Kind: kind, Title: title, Description: desc, Version: g.Version, Scope: scope,
			Classification: class, AuditCategory: g.AuditCategory, TimeoutMS: g.Timeout.Milliseconds(),
			MaxResultBytes: g.MaxResultBytes, DefaultEnabled: !g.DefaultOff, Plugin: g.Plugin, Enabled: on, Why: why}
	}
	for _, t := range r.tools {
		on, why := p.tool(t)
		c := entry(t.Name, KindTool, t.Title, t.Description, t.Scope, t.Mutating, t.Governance, on, why)
		if c.InputSchema, c.OutputSchema, err = t.define(); err != nil {
			return nil, err
		}
		c.Annotations = &annotations{ReadOnly: !t.Mutating, Destructive: t.Mutating && t.Destructive, Idempotent: t.Idempotent}
		out = append(out, c)
	}
	for _, res := range r.resources {
		on, why := p.resource(res)
		c := entry(res.URI, KindResource, res.Title, res.Description, res.Scope, false, res.Governance, on, why)
		c.InputSchema, c.OutputSchema, c.MIMEType = resourceInput(nil), resourceOutput(res.MIMEType), res.MIMEType
		out = append(out, c)
	}
	for _, t := range r.templates {
		on, why := p.template(t)
		c := entry(t.URITemplate, KindTemplate, t.Title, t.Description, t.Scope, false, t.Governance, on, why)
		c.InputSchema, c.OutputSchema, c.MIMEType = resourceInput(t.vars), resourceOutput(t.MIMEType), t.MIMEType
		out = append(out, c)
	}
	return out, nil
}

// resourceInput is the input schema of a resource: its template variables,
// each one non-empty string.
func resourceInput(vars []string) json.RawMessage {
	props := map[string]any{}
	for _, v := range vars {
		props[v] = map[string]any{"type": "string", "minLength": 1}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(vars) > 0 {
		s["required"] = vars
	}
	b, _ := json.Marshal(s)
	return b
}

// resourceOutput is the output schema of a resource: one text content of
// resources/read.
func resourceOutput(mime string) json.RawMessage {
	props := map[string]any{"uri": map[string]any{"type": "string"}, "text": map[string]any{"type": "string"}}
	if mime != "" {
		props["mimeType"] = map[string]any{"const": mime}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": []string{"uri", "text"}})
	return b
}
