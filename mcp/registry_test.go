package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/mcp"
)

func TestAddToolRules(t *testing.T) {
	t.Parallel()
	valid := mcp.Tool{
		Name:        "memory_search",
		Description: "Searches memory.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Scope:       mcp.ScopeReadMemory,
		Governance:  mcp.Governance{AuditCategory: "memory.search"},
	}
	with := func(f func(*mcp.Tool)) mcp.Tool {
		t := valid
		f(&t)
		return t
	}
	tests := []struct {
		name    string
		tool    mcp.Tool
		wantErr string // "" for success
		// atCompile: the error comes from Registry.Compile, not AddTool.
		atCompile bool
	}{
		{name: "valid", tool: valid},
		{name: "dots and dashes", tool: with(func(t *mcp.Tool) { t.Name = "a.b-c_d" })},
		{name: "empty name", tool: with(func(t *mcp.Tool) { t.Name = "" }), wantErr: "name must be 1-128 characters"},
		{name: "space in name", tool: with(func(t *mcp.Tool) { t.Name = "memory search" }), wantErr: "name must be 1-128 characters"},
		{name: "name too long", tool: with(func(t *mcp.Tool) { t.Name = strings.Repeat("x", 129) }), wantErr: "name must be 1-128 characters"},
		{name: "no description", tool: with(func(t *mcp.Tool) { t.Description = "  " }), wantErr: "description is required"},
		{name: "no scope", tool: with(func(t *mcp.Tool) { t.Scope = "" }), wantErr: "scope is required"},
		{name: "negative timeout", tool: with(func(t *mcp.Tool) { t.Timeout = -1 }), wantErr: "must not be negative"},
		{name: "no input schema", tool: with(func(t *mcp.Tool) { t.InputSchema = nil }), wantErr: "input schema: parse"},
		{name: "input schema not an object type", tool: with(func(t *mcp.Tool) { t.InputSchema = json.RawMessage(`{"type":"string"}`) }), wantErr: `input schema: top level must have "type": "object"`},
		{name: "input schema that does not compile", tool: with(func(t *mcp.Tool) {
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"strin"}}}`)
		}), wantErr: "input schema: compile schema", atCompile: true},
		{name: "output schema that does not compile", tool: with(func(t *mcp.Tool) {
			t.OutputSchema = json.RawMessage(`{"type":"object","required":"a"}`)
		}), wantErr: "output schema: compile schema", atCompile: true},
		{name: "no audit category", tool: with(func(t *mcp.Tool) { t.AuditCategory = " " }), wantErr: "audit category is required"},
		{name: "negative version", tool: with(func(t *mcp.Tool) { t.Version = -1 }), wantErr: "version must not be negative"},
		{name: "plugin tool named after its plugin", tool: with(func(t *mcp.Tool) { t.Plugin = "reports"; t.Name = "reports_weekly" })},
		{name: "plugin tool without the prefix", tool: with(func(t *mcp.Tool) { t.Plugin = "reports"; t.Name = "weekly" }),
			wantErr: "a tool of plugin reports must be named reports_<name>"},
		{name: "plugin tool with another plugin's prefix", tool: with(func(t *mcp.Tool) { t.Plugin = "reports"; t.Name = "report_weekly" }),
			wantErr: "a tool of plugin reports must be named reports_<name>"},
		{name: "bad plugin name", tool: with(func(t *mcp.Tool) { t.Plugin = "Reports"; t.Name = "Reports_x" }), wantErr: `plugin name "Reports"`},
		{name: "output schema array", tool: with(func(t *mcp.Tool) { t.OutputSchema = json.RawMessage(`{"type":"array"}`) }), wantErr: "output schema: top level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcp.NewRegistry()
			err := mcp.AddTool(r, tt.tool, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
				return mcp.Output{Text: "x"}, nil
			})
			if tt.atCompile {
				// Schemas compile on first use; Compile finds the broken
				// one at once.
				if err != nil {
					t.Fatalf("AddTool: %v", err)
				}
				err = r.Compile()
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("AddTool: %v", err)
				}
				if err := r.Compile(); err != nil {
					t.Fatalf("Compile: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, mcp.ErrInvalidTool) {
				t.Errorf("AddTool error = %v, want ErrInvalidTool containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestAddToolDuplicate(t *testing.T) {
	t.Parallel()
	r := mcp.NewRegistry()
	tool := mcp.Tool{Name: "x", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`), Scope: "s", Governance: mcp.Governance{AuditCategory: "c"}}
	h := func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) { return mcp.Output{}, nil }
	if err := mcp.AddTool(r, tool, h); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(r, tool, h); !errors.Is(err, mcp.ErrInvalidTool) {
		t.Errorf("second AddTool = %v, want ErrInvalidTool", err)
	}
}

func TestAddResourceTemplateRules(t *testing.T) {
	t.Parallel()
	read := func(context.Context, string, map[string]string) (string, error) { return "", nil }
	tests := []struct {
		template string
		wantErr  bool
	}{
		{template: "foundry://runbooks/{slug}"},
		{template: "foundry://blackboard/{wave}/{agent}"},
		{template: "foundry://contracts", wantErr: true}, // a fixed URI belongs to AddResource
		{template: "foundry://files/{+path}", wantErr: true},
		{template: "foundry://x/{a}}", wantErr: true},
		{template: "foundry://x/{a", wantErr: true},
		{template: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			r := mcp.NewRegistry()
			err := r.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: tt.template, Name: "n", Scope: "s", Governance: mcp.Governance{AuditCategory: "c"}}, nil, read)
			if (err != nil) != tt.wantErr {
				t.Errorf("AddResourceTemplate(%q) = %v, wantErr %v", tt.template, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, mcp.ErrInvalidResource) {
				t.Errorf("error %v is not ErrInvalidResource", err)
			}
		})
	}
}

func TestAddResourceRules(t *testing.T) {
	t.Parallel()
	read := func(context.Context, string, map[string]string) (string, error) { return "", nil }
	r := mcp.NewRegistry()
	res := mcp.Resource{URI: "foundry://memory/index", Name: "Memory index", Scope: mcp.ScopeReadMemory, Governance: mcp.Governance{AuditCategory: "memory.read"}}
	if err := r.AddResource(res, read); err != nil {
		t.Fatal(err)
	}
	if err := r.AddResource(res, read); !errors.Is(err, mcp.ErrInvalidResource) {
		t.Errorf("duplicate AddResource = %v, want ErrInvalidResource", err)
	}
	if err := r.AddResource(mcp.Resource{URI: "foundry://x", Name: "x"}, read); !errors.Is(err, mcp.ErrInvalidResource) {
		t.Errorf("AddResource without scope = %v, want ErrInvalidResource", err)
	}
}

func TestServeOptions(t *testing.T) {
	t.Parallel()
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    mcp.Options
		wantErr string
	}{
		{name: "no registry", opts: mcp.Options{}, wantErr: "serve mcp: no registry"},
		{name: "unknown scope", opts: mcp.Options{Registry: reg, Scopes: []string{"read:test", "write:everything"}},
			wantErr: `serve mcp: unknown scope "write:everything" (known: read:test, write:test)`},
		{name: "empty input", opts: mcp.Options{Registry: reg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			err := mcp.Serve(context.Background(), strings.NewReader(""), &out, tt.opts)
			if got := errText(err); got != tt.wantErr {
				t.Errorf("Serve error = %q, want %q", got, tt.wantErr)
			}
			if out.Len() != 0 {
				t.Errorf("Serve wrote %q", out.String())
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestPluginCapabilityRules registers, in the test only, the capabilities
// of a plugin "reports": seed 003 reserves the namespace (tools named
// reports_<name>) and the foundry-plugin:// scheme for them, and no core
// capability may use that scheme.
func TestPluginCapabilityRules(t *testing.T) {
	t.Parallel()
	read := func(context.Context, string, map[string]string) (string, error) { return "weekly", nil }
	gov := func(plugin string) mcp.Governance {
		return mcp.Governance{AuditCategory: "reports.read", Plugin: plugin}
	}
	r := mcp.NewRegistry()
	if err := mcp.AddTool(r, mcp.Tool{Name: "reports_weekly", Description: "Weekly report.", Scope: "read:reports",
		InputSchema: json.RawMessage(`{"type":"object"}`), Governance: gov("reports")},
		func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) { return mcp.Output{Text: "ok"}, nil }); err != nil {
		t.Fatalf("plugin tool: %v", err)
	}
	if err := r.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "foundry-plugin://reports/weeks/{week}", Name: "Week", Scope: "read:reports",
		Governance: gov("reports")}, nil, read); err != nil {
		t.Fatalf("plugin template: %v", err)
	}
	if err := r.AddResource(mcp.Resource{URI: "foundry-plugin://reports/latest", Name: "Latest", Scope: "read:reports", Governance: gov("reports")}, read); err != nil {
		t.Fatalf("plugin resource: %v", err)
	}
	for name, err := range map[string]error{
		"plugin resource on the core scheme": r.AddResource(mcp.Resource{URI: "foundry://reports/x", Name: "x", Scope: "read:reports", Governance: gov("reports")}, read),
		"plugin resource of another plugin":  r.AddResource(mcp.Resource{URI: "foundry-plugin://other/x", Name: "x", Scope: "read:reports", Governance: gov("reports")}, read),
		"core resource on the plugin scheme": r.AddResource(mcp.Resource{URI: "foundry-plugin://reports/y", Name: "y", Scope: "read:reports", Governance: gov("")}, read),
		"core template on the plugin scheme": r.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "foundry-plugin://reports/{z}", Name: "z", Scope: "read:reports", Governance: gov("")}, nil, read),
		"plugin template on the core scheme": r.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "foundry://reports/{z}", Name: "z", Scope: "read:reports", Governance: gov("reports")}, nil, read),
	} {
		if !errors.Is(err, mcp.ErrInvalidResource) {
			t.Errorf("%s: %v, want ErrInvalidResource", name, err)
		}
	}
	// The plugin's capabilities are listed with their plugin.
	var plugins []string
	cat, err := r.Catalog(mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cat {
		plugins = append(plugins, c.Name+"="+c.Plugin)
	}
	if got := strings.Join(plugins, " "); got != "reports_weekly=reports foundry-plugin://reports/latest=reports foundry-plugin://reports/weeks/{week}=reports" {
		t.Errorf("catalog: %s", got)
	}
}

// TestDefaultOffCapability: a capability registered off by default is
// exposed only when mcp.capabilities switches it on, and then only within
// the scopes.
func TestDefaultOffCapability(t *testing.T) {
	t.Parallel()
	r := mcp.NewRegistry()
	if err := mcp.AddTool(r, mcp.Tool{Name: "heavy_report", Description: "A costly report.", Scope: "read:ops",
		InputSchema: json.RawMessage(`{"type":"object"}`), Governance: mcp.Governance{AuditCategory: "ops.report", DefaultOff: true}},
		func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) { return mcp.Output{Text: "ok"}, nil }); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts mcp.Options
		on   bool
		why  string
	}{
		{"off by default", mcp.Options{}, false, "capability heavy_report is off by default; enable it in mcp.capabilities"},
		{"switched on", mcp.Options{Capabilities: map[string]bool{"heavy_report": true}}, true, ""},
		{"switched on, scope not enabled", mcp.Options{Capabilities: map[string]bool{"heavy_report": true}, Scopes: []string{}}, false, "scope read:ops is not enabled"},
	} {
		cat, err := r.Catalog(tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if c := cat[0]; c.Enabled != tt.on || c.Why != tt.why || c.DefaultEnabled {
			t.Errorf("%s: enabled %v (%q), defaultEnabled %v", tt.name, c.Enabled, c.Why, c.DefaultEnabled)
		}
	}
}
