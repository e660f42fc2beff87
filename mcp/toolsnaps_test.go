package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/mcp"
)

// listedTools serves reg for one tools/list and returns the listed tools,
// each as decoded JSON.
func listedTools(t *testing.T, reg *mcp.Registry) []map[string]any {
	t.Helper()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}` + "\n")
	var out bytes.Buffer
	if err := mcp.Serve(context.Background(), in, &out, mcp.Options{Registry: reg, PageSize: mcp.MaxPageSize}); err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Tools      []map[string]any `json:"tools"`
			NextCursor string           `json:"nextCursor"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
		t.Fatalf("decode tools/list: %v\n%s", err, out.Bytes())
	}
	if resp.Result.NextCursor != "" {
		t.Fatal("tools/list needs more than one page")
	}
	return resp.Result.Tools
}

// TestToolSnapshots compares each tool's tools/list entry with its
// key-sorted snapshot in testdata/tools/<name>.json, so that a change to a
// name, a description, a schema or an annotation shows up as a reviewed
// diff. A missing snapshot fails the test: snapshots are written only by
// -update, which rewrites them all. It also
// holds every tool to the rules clients enforce: a description, a
// top-level object input schema closed with additionalProperties false,
// an object output schema, annotations.
func TestToolSnapshots(t *testing.T) {
	t.Parallel()
	s := fixtureSession{root: copyFixture(t)}
	tools := listedTools(t, s.registry(t))
	want := []string{
		"memory_search", "memory_write", "memory_index", "runbook_list", "runbook_get",
		"contract_validate", "blackboard_write", "blackboard_read", "token_report", "doctor",
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool["name"].(string))
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools/list order (-want +got):\n%s", diff)
	}

	dir := filepath.Join("testdata", "tools")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range tools {
		name := tool["name"].(string)
		t.Run(name, func(t *testing.T) {
			checkToolShape(t, tool)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf) // maps encode with sorted keys
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tool); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			file := filepath.Join(dir, name+".json")
			snap, err := os.ReadFile(file)
			switch {
			case *update:
			case os.IsNotExist(err):
				t.Fatalf("no snapshot %s (run go test ./mcp -run TestToolSnapshots -update and review it)", file)
			case err != nil:
				t.Fatal(err)
			default:
				if diff := cmp.Diff(string(snap), string(got)); diff != "" {
					t.Errorf("%s changed (-snapshot +got); review, then run with -update:\n%s", file, diff)
				}
				return
			}
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}

	// A snapshot without a tool is a removed or renamed tool.
	snaps, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range snaps {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !slices.Contains(names, name) {
			t.Errorf("snapshot %s has no tool; delete it if the tool is gone", f)
		}
	}
}

func checkToolShape(t *testing.T, tool map[string]any) {
	t.Helper()
	if d, _ := tool["description"].(string); len(d) < 40 {
		t.Errorf("description %q is too short to tell a model when to call the tool", d)
	}
	in, _ := tool["inputSchema"].(map[string]any)
	if in["type"] != "object" || in["additionalProperties"] != false {
		t.Errorf("inputSchema must be a closed object: %v", in)
	}
	out, _ := tool["outputSchema"].(map[string]any)
	if out["type"] != "object" {
		t.Errorf("outputSchema must be an object schema: %v", out)
	}
	ann, _ := tool["annotations"].(map[string]any)
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint"} {
		if _, ok := ann[k].(bool); !ok {
			t.Errorf("annotation %s missing: %v", k, ann)
		}
	}
}
