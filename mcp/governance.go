// This file turns the mcp block of .foundry/config.yaml into serve options
// with seed 003's secure defaults.

package mcp

import (
	"slices"
	"strings"

	"github.com/foundryhq/foundry/config"
)

// readScope reports whether a scope only reads: its name starts with
// "read:". Every other scope (write:…, and any later publish:… or
// manage:…) is mutating, and is enabled only when listed.
func readScope(scope string) bool { return strings.HasPrefix(scope, "read:") }

// ReadScopes returns the read scopes the registry uses, sorted: the scopes
// a config without a scopes key enables.
func (r *Registry) ReadScopes() []string {
	var out []string
	for sc := range r.scopes() {
		if readScope(sc) {
			out = append(out, sc)
		}
	}
	slices.Sort(out)
	return out
}

// ConfigOptions returns the options that the mcp block cfg asks for over
// reg, with seed 003's defaults: a block that is missing or not enabled is
// [ErrNotDeclared] or [ErrDisabled]; read_only holds unless it is false;
// scopes omitted means every read scope and no mutating one, so that a
// mutating capability is exposed only when read_only is false and its scope
// is listed. writable is false when the project cannot be written (served
// at a revision or from the index), which forces read-only. The fields the
// config does not govern (Registry, Version, Logger, Audit…) are left for
// the caller.
func ConfigOptions(cfg config.MCP, reg *Registry, writable bool) (Options, error) {
	if err := CheckEnabled(cfg); err != nil {
		return Options{}, err
	}
	scopes := cfg.Scopes
	if scopes == nil {
		scopes = reg.ReadScopes()
	}
	return Options{
		Registry:          reg,
		ReadOnly:          cfg.ReadOnly || !writable,
		Scopes:            slices.Clone(scopes),
		Capabilities:      cfg.Capabilities,
		MaxConcurrency:    cfg.MaxConcurrency,
		RequestsPerMinute: cfg.RequestsPerMinute,
		Burst:             cfg.Burst,
	}, nil
}

// CheckEnabled returns [ErrNotDeclared] when cfg comes from a config
// without an mcp block, [ErrDisabled] when the block does not say
// enabled: true, and nil when the server may start.
func CheckEnabled(cfg config.MCP) error {
	switch {
	case !cfg.Declared:
		return ErrNotDeclared
	case !cfg.Enabled:
		return ErrDisabled
	}
	return nil
}

// WritesMemory reports whether a server configured by cfg may write
// memory: enabled, not read-only and with the write:memory scope listed.
// Pass its negation as [ProjectOptions.ReadOnly], so that without it the
// memory index resource renders a missing INDEX.md instead of writing it.
func WritesMemory(cfg config.MCP, writable bool) bool {
	return writable && cfg.Declared && cfg.Enabled && !cfg.ReadOnly && slices.Contains(cfg.Scopes, ScopeWriteMemory)
}

// WritesEnabled reports whether o may expose a mutating capability: it is
// not read-only and lists a mutating scope.
func (o Options) WritesEnabled() bool {
	if o.ReadOnly {
		return false
	}
	for _, sc := range o.Scopes {
		if !readScope(sc) {
			return true
		}
	}
	return o.Scopes == nil && o.Registry != nil && len(o.Registry.scopes()) > len(o.Registry.ReadScopes())
}

// ConfigCatalog returns the catalog of reg as a server configured by cfg
// would expose it; when cfg does not let the server start, every
// capability is off and says why.
func ConfigCatalog(cfg config.MCP, reg *Registry, writable bool) ([]Capability, error) {
	opts, err := ConfigOptions(cfg, reg, writable)
	if refusal := CheckEnabled(cfg); refusal != nil {
		cat, err := reg.Catalog(Options{Scopes: []string{}})
		for i := range cat {
			cat[i].Enabled, cat[i].Why = false, refusal.Error()
		}
		return cat, err
	}
	if err != nil {
		return nil, err
	}
	return reg.Catalog(opts)
}
