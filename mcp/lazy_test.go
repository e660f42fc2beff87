package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/project"
)

// serveLines serves reg for the request lines given and returns the
// answer lines.
func serveLines(t *testing.T, reg *Registry, lines ...string) []string {
	t.Helper()
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := Serve(context.Background(), in, &out, Options{Registry: reg, PageSize: MaxPageSize}); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestProjectRegistryDefersSchemas: building Foundry's registry and
// answering initialize checks, compacts and compiles no tool schema and
// compiles no template pattern; the first tools/list defines the schemas,
// the first resources/read of a template compiles the patterns, the first
// call of a tool its input schema only.
func TestProjectRegistryDefersSchemas(t *testing.T) {
	t.Parallel()
	p, err := project.OpenRoot(t.TempDir(), project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ProjectRegistry(p, ProjectOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	undefined := func() (n int) {
		for _, tl := range reg.tools {
			if tl.rawSchemas == nil || tl.InputSchema != nil {
				t.Errorf("tool %s was not registered deferred", tl.Name)
			}
			if tl.inJSON == nil && tl.in == nil {
				n++
			}
		}
		return n
	}
	uncompiled := func() (n int) {
		for _, tp := range reg.templates {
			if tp.re == nil {
				n++
			}
		}
		return n
	}
	if len(reg.tools) < 10 || len(reg.templates) < 4 {
		t.Fatalf("%d tools, %d templates", len(reg.tools), len(reg.templates))
	}

	serveLines(t, reg, initializeLine)
	if n := undefined(); n != len(reg.tools) {
		t.Errorf("after initialize %d of %d tools have undefined schemas, want all", n, len(reg.tools))
	}
	if n := uncompiled(); n != len(reg.templates) {
		t.Errorf("after initialize %d of %d templates are uncompiled, want all", n, len(reg.templates))
	}

	serveLines(t, reg, initializeLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"foundry://blackboard/w/a"}}`)
	if n := undefined(); n != 0 {
		t.Errorf("after tools/list %d tools have undefined schemas", n)
	}
	if n := uncompiled(); n != 0 {
		t.Errorf("after resources/read of a template %d templates are uncompiled", n)
	}

	// A call compiles the tool's input schema, to check the arguments;
	// its output is proven in tests, so its output schema is not compiled.
	serveLines(t, reg, initializeLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"deploy"}}}`)
	search := reg.byName["memory_search"]
	if search.in == nil || search.out != nil || !search.OutputProven {
		t.Errorf("after a memory_search call: input compiled %t, output compiled %t (proven %t), want true, false",
			search.in != nil, search.out != nil, search.OutputProven)
	}
}

// TestDeferredToolsMatchEager: every Foundry tool, registered with its
// schemas deferred, lists and catalogs byte for byte as the same tool
// registered by AddTool.
func TestDeferredToolsMatchEager(t *testing.T) {
	t.Parallel()
	p, err := project.OpenRoot(t.TempDir(), project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := ProjectRegistry(p, ProjectOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	eager := NewRegistry()
	for _, tl := range lazy.tools {
		tool := tl.Tool
		tool.InputSchema, tool.OutputSchema = tl.rawSchemas()
		if err := eager.add(tool, nil, tl.handle); err != nil {
			t.Fatal(err)
		}
	}
	for i, tl := range lazy.tools {
		got, err := tl.listing()
		if err != nil {
			t.Fatal(err)
		}
		want, err := eager.tools[i].listing()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("tools/list entry of %s:\ndeferred %s\neager    %s", tl.Name, got, want)
		}
		if !bytes.Equal(lazy.OutputSchema(tl.Name), eager.OutputSchema(tl.Name)) {
			t.Errorf("output schema of %s differs", tl.Name)
		}
	}
	gotCat, err := lazy.Catalog(Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantCat, err := eager.Catalog(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range wantCat {
		g, _ := json.Marshal(gotCat[i])
		w, _ := json.Marshal(wantCat[i])
		if !bytes.Equal(g, w) {
			t.Errorf("catalog entry %d:\ndeferred %s\neager    %s", i, g, w)
		}
	}
}

// TestDeferredSchemaErrors: a deferred tool whose schema is not an object
// schema registers, and every use says why it is invalid instead of
// serving it.
func TestDeferredSchemaErrors(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	err := addDeferred(r, Tool{
		Name: "broken", Description: "d", Scope: ScopeReadMemory, Governance: Governance{AuditCategory: "c"},
	}, func() (in, out json.RawMessage) { return json.RawMessage(`{"type":"string"}`), nil },
		func(context.Context, *Call, struct{}) (Output, error) { return Output{Text: "ran"}, nil })
	if err != nil {
		t.Fatalf("addDeferred: %v", err)
	}
	twice := addDeferred(r, Tool{
		Name: "twice", Description: "d", Scope: ScopeReadMemory, Governance: Governance{AuditCategory: "c"},
		InputSchema: noArguments,
	}, func() (in, out json.RawMessage) { return noArguments, nil },
		func(context.Context, *Call, struct{}) (Output, error) { return Output{}, nil })
	if !errors.Is(twice, ErrInvalidTool) || !strings.Contains(twice.Error(), "schemas are given twice") {
		t.Errorf("addDeferred with InputSchema set = %v, want ErrInvalidTool: schemas are given twice", twice)
	}
	const why = `tool "broken": invalid tool: input schema: top level must have "type": "object"`
	if err := r.Compile(); !errors.Is(err, ErrInvalidTool) || err.Error() != why {
		t.Errorf("Compile = %v, want %s", err, why)
	}
	if _, err := r.Catalog(Options{}); !errors.Is(err, ErrInvalidTool) {
		t.Errorf("Catalog = %v, want ErrInvalidTool", err)
	}
	if out := r.OutputSchema("broken"); out != nil {
		t.Errorf("OutputSchema = %s, want nil", out)
	}
	answers := serveLines(t, r, initializeLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"broken","arguments":{}}}`)
	byID := map[string]string{}
	for _, a := range answers {
		var head struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(a), &head); err != nil {
			t.Fatalf("answer %s: %v", a, err)
		}
		byID[string(head.ID)] = a
	}
	if want := `"error":{"code":-32603,"message":"Internal error: ` + strings.ReplaceAll(why, `"`, `\"`); !strings.Contains(byID["2"], want) {
		t.Errorf("tools/list answered %s, want %s", byID["2"], want)
	}
	if a := byID["3"]; !strings.Contains(a, `"isError":true`) || !strings.Contains(a, `broken failed: internal error: `+strings.ReplaceAll(why, `"`, `\"`)) || strings.Contains(a, "ran") {
		t.Errorf("tools/call answered %s, want an internal error without running the tool", a)
	}
}

// templatePatternRegexp is what templatePattern replaced: the variables
// found by a regular expression, every brace outside them refused.
func templatePatternRegexp(uriTemplate string) (string, []string, bool) {
	var pattern strings.Builder
	var vars []string
	last := 0
	literal := func(lit string) bool {
		pattern.WriteString(regexp.QuoteMeta(lit))
		return !strings.ContainsAny(lit, "{}")
	}
	pattern.WriteString("^")
	for _, m := range regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`).FindAllStringSubmatchIndex(uriTemplate, -1) {
		if !literal(uriTemplate[last:m[0]]) {
			return "", nil, false
		}
		pattern.WriteString(`([^/?#]+)`)
		vars = append(vars, uriTemplate[m[2]:m[3]])
		last = m[1]
	}
	if !literal(uriTemplate[last:]) {
		return "", nil, false
	}
	pattern.WriteString("$")
	return pattern.String(), vars, true
}

func checkTemplatePattern(t *testing.T, tmpl string) {
	t.Helper()
	pattern, vars, ok := templatePattern(tmpl)
	wantPattern, wantVars, wantOK := templatePatternRegexp(tmpl)
	if ok != wantOK || pattern != wantPattern || strings.Join(vars, "\x00") != strings.Join(wantVars, "\x00") {
		t.Fatalf("templatePattern(%q) = %q, %q, %v; want %q, %q, %v", tmpl, pattern, vars, ok, wantPattern, wantVars, wantOK)
	}
}

func TestTemplatePattern(t *testing.T) {
	t.Parallel()
	for _, tmpl := range []string{
		"foundry://runbooks/{slug}", "foundry://blackboard/{wave}/{agent}", "foundry://contracts",
		"foundry://files/{+path}", "foundry://x/{a}}", "foundry://x/{a", "foundry://x/{}", "{a}{b}", "{{a}}",
		"}", "{", "x/{a_B9}.json", "a.b*c/{v}?q", "",
	} {
		checkTemplatePattern(t, tmpl)
	}
}

func FuzzTemplatePattern(f *testing.F) {
	for _, s := range []string{"foundry://runbooks/{slug}", "foundry://x/{a}}", "{{a}}", "x/{a_B9}.json", "{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		checkTemplatePattern(t, tmpl)
	})
}

// TestBrokenOutputSchemaStopsBeforeHandler: a tool whose output is checked
// on every call and whose output schema does not compile fails its calls
// before its handler runs, as one with a broken input schema does, and
// says why.
func TestBrokenOutputSchemaStopsBeforeHandler(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	ran := false
	if err := AddTool(r, Tool{
		Name: "sideeffect", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`), Scope: ScopeReadMemory,
		Governance:   Governance{AuditCategory: "test.read"},
		OutputSchema: json.RawMessage(`{"type":"object","required":"a"}`),
	}, func(context.Context, *Call, struct{}) (Output, error) {
		ran = true
		return Output{Text: "x", Structured: map[string]any{"a": 1}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	answers := serveLines(t, r, initializeLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sideeffect","arguments":{}}}`)
	if ran {
		t.Error("the handler ran for a tool whose output schema does not compile")
	}
	for _, a := range answers {
		if strings.HasPrefix(a, `{"id":2,`) {
			if !strings.Contains(a, `"isError":true`) || !strings.Contains(a, "sideeffect failed: internal error: ") || !strings.Contains(a, "output schema") {
				t.Errorf("tools/call answered %s, want an internal error naming the output schema", a)
			}
			return
		}
	}
	t.Errorf("no answer to the call among %q", answers)
}
