package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/mcp"
)

// modernResultDefs names the schema definition of each modern method's
// result.
var modernResultDefs = map[string]string{
	"server/discover":          "DiscoverResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
}

// TestModernWireSchema checks the expected server lines of the transcripts
// that speak 2026-07-28 against that revision's own JSON Schema
// (testdata/schema-2026-07-28.json, schema/2026-07-28/schema.json of
// modelcontextprotocol/modelcontextprotocol at 271ecc9): every line is a
// JSONRPCMessage (results of legacy requests aside), and the result of every
// modern request is its method's result type, with the resultType and
// cache hints that type requires.
func TestModernWireSchema(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("testdata", "schema-2026-07-28.json"))
	if err != nil {
		t.Fatal(err)
	}
	compile := func(def string) *contracts.Schema {
		var root map[string]any
		if err := json.Unmarshal(doc, &root); err != nil {
			t.Fatal(err)
		}
		root["$ref"] = "#/$defs/" + def
		b, err := json.Marshal(root)
		if err != nil {
			t.Fatal(err)
		}
		s, err := contracts.Compile(b)
		if err != nil {
			t.Fatalf("compile %s: %v", def, err)
		}
		return s
	}
	message := compile("JSONRPCMessage")
	results := map[string]*contracts.Schema{}
	for m, def := range modernResultDefs {
		results[m] = compile(def)
	}

	checked := 0
	for _, name := range []string{"modern.txtar", "dualera.txtar"} {
		ar, err := txtar.ParseFile(filepath.Join("testdata", "conformance", name))
		if err != nil {
			t.Fatal(err)
		}
		modern := map[string]string{} // JSON id of a modern request → method
		sections := map[string][]string{}
		for _, f := range ar.Files {
			sections[f.Name] = splitLines(f.Data)
		}
		for _, line := range sections["client"] {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(line), &req) != nil || req.ID == nil {
				continue
			}
			if req.Params.Meta[mcp.MetaProtocolVersion] == mcp.ModernProtocolVersion {
				modern[string(req.ID)] = req.Method
			}
		}
		for _, line := range sections["server"] {
			var resp struct {
				ID     json.RawMessage `json:"id"`
				Result map[string]any  `json:"result"`
			}
			_ = json.Unmarshal([]byte(line), &resp)
			method, ok := modern[string(resp.ID)]
			if resp.Result != nil && !ok {
				continue // a legacy result, shaped by its own revision
			}
			var v any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if vs := message.Validate(v); len(vs) > 0 {
				t.Errorf("%s: %s is not a JSONRPCMessage: %v", name, line, vs)
			}
			if resp.Result == nil {
				continue
			}
			checked++
			if vs := results[method].Validate(resp.Result); len(vs) > 0 {
				t.Errorf("%s: result of %s breaks %s: %v\n%s", name, method, modernResultDefs[method], vs, line)
			}
		}
	}
	if checked < len(modernResultDefs) {
		t.Errorf("checked %d modern results, want at least one per method (%d)", checked, len(modernResultDefs))
	}
}
