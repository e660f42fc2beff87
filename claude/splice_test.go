package claude

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	serverIns = insertion{path: []string{"mcpServers"}, key: "foundry", value: json.RawMessage(`{"command":"foundry"}`)}
	hookIns   = insertion{path: []string{"hooks", "PostToolUse"}, value: json.RawMessage(`{"matcher":"W"}`)}
)

// TestInsertionApply: an insertion adds its lines alone, in the style of
// their surroundings, and keeps every other byte.
func TestInsertionApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ins  insertion
		in   string
		want string
	}{
		{name: "member after members, one a line", ins: serverIns,
			in:   "{\n  \"mcpServers\": {\n    \"db\": {\"command\": \"pg\"}\n  }\n}\n",
			want: "{\n  \"mcpServers\": {\n    \"db\": {\"command\": \"pg\"},\n    \"foundry\": {\n      \"command\": \"foundry\"\n    }\n  }\n}\n"},
		{name: "tabs and CRLF", ins: serverIns,
			in:   "{\r\n\t\"mcpServers\": {\r\n\t\t\"db\": {}\r\n\t}\r\n}",
			want: "{\r\n\t\"mcpServers\": {\r\n\t\t\"db\": {},\r\n\t\t\"foundry\": {\r\n\t\t\t\"command\": \"foundry\"\r\n\t\t}\r\n\t}\r\n}"},
		{name: "the path made, after the last member", ins: serverIns,
			in:   "{\n  \"a\": 1\n}\n",
			want: "{\n  \"a\": 1,\n  \"mcpServers\": {\n    \"foundry\": {\n      \"command\": \"foundry\"\n    }\n  }\n}\n"},
		{name: "empty object of a document of lines", ins: serverIns,
			in:   "{\n  \"mcpServers\": {}\n}\n",
			want: "{\n  \"mcpServers\": {\n    \"foundry\": {\n      \"command\": \"foundry\"\n    }\n  }\n}\n"},
		{name: "empty document on one line", ins: serverIns,
			in:   "{}",
			want: `{"mcpServers":{"foundry":{"command":"foundry"}}}`},
		{name: "one line, spaced", ins: serverIns,
			in:   `{ "mcpServers": { "db": { "command": "pg" } } }`,
			want: `{ "mcpServers": { "db": { "command": "pg" }, "foundry": {"command": "foundry"} } }`},
		{name: "one line, compact", ins: serverIns,
			in:   `{"mcpServers":{"db":{"command":"pg"},"x":1}}`,
			want: `{"mcpServers":{"db":{"command":"pg"},"x":1,"foundry":{"command":"foundry"}}}`},
		{name: "strings holding brackets, quotes and escapes", ins: serverIns,
			in:   `{"a": "}\"{", "mcpServers": {"x": "]\\"}, "b": [1, "["]}`,
			want: `{"a": "}\"{", "mcpServers": {"x": "]\\", "foundry": {"command": "foundry"}}, "b": [1, "["]}`},
		{name: "the last of repeated keys", ins: serverIns,
			in:   `{"mcpServers": {"a": 1}, "mcpServers": {"b": 2}}`,
			want: `{"mcpServers": {"a": 1}, "mcpServers": {"b": 2, "foundry": {"command": "foundry"}}}`},
		{name: "element after elements, one a line", ins: hookIns,
			in:   "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\"matcher\": \"Edit\"}\n    ]\n  }\n}",
			want: "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\"matcher\": \"Edit\"},\n      {\n        \"matcher\": \"W\"\n      }\n    ]\n  }\n}"},
		{name: "element after elements opening on the bracket's line", ins: hookIns,
			in:   "{\n  \"hooks\": {\n    \"PostToolUse\": [{\n      \"matcher\": \"Edit\"\n    }]\n  }\n}",
			want: "{\n  \"hooks\": {\n    \"PostToolUse\": [{\n      \"matcher\": \"Edit\"\n    }, {\n      \"matcher\": \"W\"\n    }]\n  }\n}"},
		{name: "empty array", ins: hookIns,
			in:   "{\n  \"hooks\": {\"PostToolUse\": []}\n}",
			want: "{\n  \"hooks\": {\"PostToolUse\": [\n    {\n      \"matcher\": \"W\"\n    }\n  ]}\n}"},
		{name: "array made in an object on one line", ins: hookIns,
			in:   "{\n  \"hooks\": {\"Stop\": []},\n  \"model\": \"opus\"\n}",
			want: "{\n  \"hooks\": {\"Stop\": [], \"PostToolUse\": [{\"matcher\": \"W\"}]},\n  \"model\": \"opus\"\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.ins.apply([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("apply (-want +got):\n%s", diff)
			}
			var v any
			if err := json.Unmarshal(got, &v); err != nil {
				t.Errorf("not JSON: %v", err)
			}
		})
	}
}

// FuzzInsertion: for any object the merges accept, the edit in place
// says what the file written whole says.
func FuzzInsertion(f *testing.F) {
	for _, s := range []string{
		`{}`, "{\n  \"mcpServers\": {\"a\": 1}\n}", `{"hooks": {"PostToolUse": [{"matcher": "x"}]}}`,
		"{\r\n\t\"hooks\": {\r\n\t\t\"PostToolUse\": []\r\n\t}\r\n}", `{"a": "\"}{", "mcpServers": {}, "mcpServers": {"b": [1e3, true, null]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, merge := range []func(*object) (FileResult, *insertion, error){
			func(o *object) (FileResult, *insertion, error) { return mergeMCP(o, Server) },
			mergeSettings,
		} {
			o, err := parseObject([]byte(data))
			if err != nil {
				return
			}
			_, ins, err := merge(o)
			if err != nil || ins == nil {
				continue
			}
			whole, err := render(o, []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ins.apply([]byte(data))
			if err != nil {
				t.Fatalf("apply(%q): %v", data, err)
			}
			if !sameJSON(got, whole) {
				t.Fatalf("apply(%q) = %q, which says other than %q", data, got, whole)
			}
		}
	})
}
