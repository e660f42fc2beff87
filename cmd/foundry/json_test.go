package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/testenv"
)

// jsonCases run every command that prints --json, each checked against the
// schema of its shape in docs/json/ (documented in docs/json.md).
var jsonCases = []struct {
	schema string
	args   []string
	stdin  string
	fresh  bool // run in an empty folder, not in the demo project
	// setup, when set, makes the project of a fresh case.
	setup func(t *testing.T, dir string)
	code  int // the exit status; 0 also accepts 3, a check that found problems
}{
	{schema: "init", args: []string{"init"}, fresh: true},
	{schema: "doctor", args: []string{"doctor", "--no-history"}},
	{schema: "doctor", args: []string{"doctor", "--no-history", "--format", "json"}},
	// The history pass run, and findings with a position, a pointer, a
	// note and a fix.
	{schema: "doctor", args: []string{"doctor"}, fresh: true, setup: tightenedContract, code: 3},
	{schema: "doctor", args: []string{"doctor", "--fix"}, fresh: true, setup: duplicateFacts},
	{schema: "memory-search", args: []string{"memory", "search", "outbox"}},
	{schema: "memory-search", args: []string{"memory", "search", "outbox", "--type", "glossary"}},
	// A fact that expires.
	{schema: "memory-search", args: []string{"memory", "search", "ci", "time"}},
	// An active fact whose file, edited by hand, states a retiredReason.
	{schema: "memory-search", args: []string{"memory", "search", "linux"}, fresh: true, setup: activeWithRetiredReason},
	{schema: "memory-write", args: []string{"memory", "write", "--title", "Release notes are written by the on-call engineer", "--type", "convention", "--body", "Every release."}},
	// The same fact again: unchanged, nothing written, no index.
	{schema: "memory-write", args: []string{"memory", "write", "--title", "Release notes are written by the on-call engineer", "--type", "convention", "--body", "Every release."}},
	{schema: "memory-index", args: []string{"memory", "index"}},
	{schema: "memory-retire", args: []string{"memory", "retire", "fact-0002", "--reason", "the team moved to another tool"}},
	{schema: "memory-show", args: []string{"memory", "show", "fact-0002"}},
	{schema: "memory-show", args: []string{"memory", "show", "fact-0001"}},
	{schema: "memory-show", args: []string{"memory", "show", "fact-0004"}}, // superseded
	{schema: "memory-show", args: []string{"memory", "show", "fact-0013"}}, // its successor
	{schema: "memory-show", args: []string{"memory", "show", "fact-0008"}}, // it expires
	{schema: "memory-list", args: []string{"memory", "list", "--all"}},
	{schema: "memory-list", args: []string{"memory", "list", "--type", "metric"}},
	{schema: "runbook-list", args: []string{"runbook", "list"}},
	{schema: "runbook-get", args: []string{"runbook", "get", "deploy-production"}},
	{schema: "runbook-new", args: []string{"runbook", "new", "rotate-certs", "--title", "Rotate the TLS certificates", "--trigger", "a certificate expires"}},
	{schema: "blackboard-write", args: []string{"blackboard", "write", "--wave", "w", "--agent", "a", "--schema", "finding.v1"},
		stdin: `{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`},
	{schema: "blackboard-read", args: []string{"blackboard", "read", "audit"}},
	{schema: "blackboard-list", args: []string{"blackboard", "list"}},
	{schema: "blackboard-archive", args: []string{"blackboard", "archive", "ops"}},
	{schema: "contracts-new", args: []string{"contracts", "new", "incident-report"}},
	{schema: "contracts-list", args: []string{"contracts", "list"}},
	{schema: "tokens", args: []string{"tokens"}},
	{schema: "config", args: []string{"config"}},
	{schema: "version", args: []string{"version"}},
	{schema: "mcp-capabilities", args: []string{"mcp", "capabilities"}},
	// A read-only server: the mutating tools say why they are not exposed.
	{schema: "mcp-capabilities", args: []string{"mcp", "capabilities"}, fresh: true, setup: readOnlyServer},
	{schema: "mcp-token-new", args: []string{"mcp", "token", "new", "reviewer", "--scope", "read:memory,read:runbooks"}},
	{schema: "mcp-token-new", args: []string{"mcp", "token", "new", "ci"}},
	{schema: "mcp-token-list", args: []string{"mcp", "token", "list"}},
	{schema: "mcp-token-revoke", args: []string{"mcp", "token", "revoke", "ci"}},
	{schema: "validate", args: []string{"validate", "--auto", "--format", "json"}},
	{schema: "validate", args: []string{"validate", "--as-input", "--format", "json", "finding.v1", "-"},
		stdin: `{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`},
	// Files that cannot be validated: not parseable JSON (with the
	// fault's line and column), a missing file, and an invalid one.
	{schema: "validate", args: []string{"validate", "--format", "json", "finding.v1", "-", "nope.json", ".foundry/blackboard/audit/appsec-reviewer.json"},
		stdin: "{\n", code: 1},
	{schema: "hook-install", args: []string{"hook", "install"}},
	{schema: "hook-install", args: []string{"hook", "uninstall"}},
	{schema: "hook-pre-commit", args: []string{"hook", "pre-commit"}},
	{schema: "hook-pre-commit", args: []string{"hook", "pre-commit", "--all-projects"}},
	// Findings with a position, a pointer, a note and a fix: the commit
	// is blocked.
	{schema: "hook-pre-commit", args: []string{"hook", "pre-commit"}, fresh: true, setup: stagedBreakage, code: 1},
	{schema: "plugin-build", args: []string{"plugin", "build", "plugin-out"}},
}

// noJSONShape are the commands without a documented --json answer, and why:
// every other command must have a case in jsonCases, so a new command (or a
// new --json answer) cannot go unchecked.
var noJSONShape = map[string]string{
	"contracts show":    "prints the contract's schema document itself",
	"contracts example": "prints an artifact of the contract",
	"mcp serve":         "stdout is the MCP protocol",
	"hook claude":       "Claude Code's hook protocol",
	"hook merge-index":  "a git merge driver: writes the merged file",
	"completion":        "prints a shell script",
	"help":              "prints help text",
}

// TestJSONShapes checks every --json answer against its documented schema,
// closed (see [closed]): named arrays, [] never null, project-relative
// paths, and no field the schema leaves out. It also checks that every
// schema of docs/json/ is exercised and listed in docs/json.md.
func TestJSONShapes(t *testing.T) {
	demo := t.TempDir()
	if err := os.CopyFS(demo, os.DirFS("../../examples/demo")); err != nil {
		t.Fatal(err)
	}
	gittest.Init(t, demo)
	doc, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, tc := range jsonCases {
		used[tc.schema] = true
		// Not parallel: urfave/cli v2 keeps its help flag in a package
		// variable, so two apps may not run at once in one process.
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := demo
			if tc.fresh {
				dir = t.TempDir()
			}
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			raw, err := os.ReadFile(filepath.Join("../../docs/json", tc.schema+".schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := contracts.Compile(raw); err != nil {
				t.Fatalf("schema %s: %v", tc.schema, err)
			}
			// The answer is checked against the schema closed: a field
			// the schema does not declare is drift too, though most
			// schemas are open to the reader.
			schema, err := contracts.Compile(closed(t, raw))
			if err != nil {
				t.Fatalf("schema %s closed: %v", tc.schema, err)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"foundry", "-C", dir, "--json"}, tc.args...)
			if code := run(context.Background(), args, strings.NewReader(tc.stdin), &stdout, &stderr); code != tc.code && (tc.code != 0 || code != 3) {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tc.code, stderr.String())
			}
			if bytes.Contains(stdout.Bytes(), []byte(": null")) {
				t.Errorf("null in the answer; empty lists are []:\n%s", stdout.String())
			}
			vs, err := schema.ValidateJSON(stdout.Bytes())
			if err != nil {
				t.Fatalf("answer is not JSON: %v\n%s", err, stdout.String())
			}
			for _, v := range vs {
				t.Errorf("does not match docs/json/%s.schema.json: %s: %s", tc.schema, v.Pointer, v.Message)
			}
		})
	}
	for _, l := range leafCommands() {
		if _, ok := noJSONShape[l.name]; ok || l.cmd.Hidden {
			continue
		}
		covered := false
		for _, tc := range jsonCases {
			covered = covered || strings.HasPrefix(strings.Join(tc.args, " ")+" ", l.name+" ")
		}
		if !covered {
			t.Errorf("%s --json has no case in jsonCases (or a reason in noJSONShape)", l.name)
		}
	}
	files, err := filepath.Glob("../../docs/json/*.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".schema.json")
		if !used[name] {
			t.Errorf("docs/json/%s.schema.json is checked by no case of jsonCases", name)
		}
		if !bytes.Contains(doc, []byte("json/"+name+".schema.json")) {
			t.Errorf("docs/json.md does not list json/%s.schema.json", name)
		}
		// Open to the reader, as docs/json.md promises: an answer that
		// gains a field still matches the schema of the version before.
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if at := closedAt(t, raw); len(at) > 0 {
			t.Errorf("docs/json/%s.schema.json closes objects to fields they do not declare (at %s); the schemas are open (docs/json.md)", name, strings.Join(at, ", "))
		}
	}
}

// closedAt returns the JSON pointers (#/properties/files/items), in raw, of the object schemas that
// declare properties and admit no other ("additionalProperties": false).
func closedAt(t *testing.T, raw []byte) []string {
	t.Helper()
	var at []string
	objectSchemas(t, raw, func(v map[string]any, ptr string) {
		if v["additionalProperties"] == false {
			at = append(at, ptr)
		}
	})
	slices.Sort(at)
	return at
}

// objectSchemas decodes the schema raw and calls fn with each object schema
// in it that declares properties, and its JSON pointer; it returns the
// document, as fn left it.
func objectSchemas(t *testing.T, raw []byte, fn func(v map[string]any, ptr string)) any {
	t.Helper()
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["properties"].(map[string]any); ok {
				fn(v, ptr)
			}
			for k, c := range v {
				walk(c, ptr+"/"+k)
			}
		case []any:
			for i, c := range v {
				walk(c, fmt.Sprintf("%s/%d", ptr, i))
			}
		}
	}
	walk(doc, "#")
	return doc
}

// TestHookPreCommitJSONFindings checks hook pre-commit --json answers that
// hold findings, staged files and, with --all-projects, several projects
// and one the commit removes, against their schema closed: the cases of
// TestJSONShapes stage nothing.
//
//nolint:paralleltest // urfave/cli v2 keeps its help flag in a package variable
func TestHookPreCommitJSONFindings(t *testing.T) {
	r := gittest.New(t)
	mustRun(t, r.Dir, nil, "init")
	for _, sub := range []string{"services/api", "services/web"} {
		if err := os.MkdirAll(filepath.Join(r.Dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		mustRun(t, filepath.Join(r.Dir, sub), nil, "init", "--force")
	}
	r.CommitAll("init")
	r.Write("services/api/.foundry/blackboard/w/a.json", `{"schema": "finding.v1"}`)
	r.Write(".foundry/memory/INDEX.md", "<<<<<<< ours\n")
	r.Git("add", "-A")
	r.Git("rm", "-rq", "services/web/.foundry")
	raw, err := os.ReadFile("../../docs/json/hook-pre-commit.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := contracts.Compile(closed(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		args []string
		want string // a fragment of the answer, so it is not an empty one
	}{
		{"one project", "services/api", nil, `"blocked": true`},
		{"every project", "", []string{"--all-projects"}, `"removed": true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--json", "hook", "pre-commit"}, tt.args...)
			code, stdout, stderr := runIn(t, filepath.Join(r.Dir, tt.dir), "", args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr)
			}
			if !strings.Contains(stdout, tt.want) || !strings.Contains(stdout, `"findings": [`+"\n") {
				t.Fatalf("answer lacks %s or findings:\n%s", tt.want, stdout)
			}
			vs, err := schema.ValidateJSON([]byte(stdout))
			if err != nil {
				t.Fatalf("answer is not JSON: %v\n%s", err, stdout)
			}
			for _, v := range vs {
				t.Errorf("does not match docs/json/hook-pre-commit.schema.json: %s: %s\n%s", v.Pointer, v.Message, stdout)
			}
		})
	}
}

// closed returns the schema raw with every object schema that declares
// properties closed to others ("additionalProperties": false in place of
// true or nothing); one that bounds its other properties by a schema (a
// map) is left as it is.
func closed(t *testing.T, raw []byte) []byte {
	t.Helper()
	doc := objectSchemas(t, raw, func(v map[string]any, _ string) {
		if ap, set := v["additionalProperties"]; !set || ap == true {
			v["additionalProperties"] = false
		}
	})
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tightenedContract makes a project whose note.v1, published with a note
// valid against it, gained a required property in a later commit: doctor
// flags the breaking edit and explains the note's failure from history. Its
// one fact has no INDEX.md, a finding with a fix.
func tightenedContract(t *testing.T, dir string) {
	t.Helper()
	r := gittest.Init(t, dir)
	r.Write(".foundry/schemas/note.v1.schema.json", noteContract(""))
	r.Write(".foundry/blackboard/docs/scribe.json", `{"schema": "note.v1", "producedBy": "scribe", "title": "Release notes drafted"}`)
	r.Write(".foundry/memory/fact-0001-ci-runs-on-linux.md", factFile("fact-0001", "CI runs on Linux"))
	r.CommitAll("publish note.v1 and the scribe note")
	r.Write(".foundry/schemas/note.v1.schema.json", noteContract(`, "owner"`))
	r.CommitAll("note.v1 requires an owner")
}

// noteContract returns a local contract note.v1 whose required properties
// are schema, producedBy and title, and then more: `, "owner"`.
func noteContract(more string) string {
	return `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "note.v1.schema.json",
"type": "object", "additionalProperties": false, "required": ["schema", "producedBy", "title"` + more + `],
"properties": {"schema": {"const": "note.v1"}, "producedBy": {"type": "string"}, "title": {"type": "string"}, "owner": {"type": "string"}}}`
}

// stagedBreakage makes a project whose index holds a breaking edit of the
// published note.v1, a note that fails it, and a fact without the INDEX.md
// the working tree has for it.
func stagedBreakage(t *testing.T, dir string) {
	t.Helper()
	r := gittest.Init(t, dir)
	r.Write(".foundry/schemas/note.v1.schema.json", noteContract(""))
	r.CommitAll("publish note.v1")
	r.Write(".foundry/schemas/note.v1.schema.json", noteContract(`, "owner"`))
	r.Write(".foundry/blackboard/docs/scribe.json", `{"schema": "note.v1", "producedBy": "scribe", "title": "Release notes drafted"}`)
	r.Write(".foundry/memory/fact-0001-ci-runs-on-linux.md", factFile("fact-0001", "CI runs on Linux"))
	r.Git("add", "-A")
	r.Write(".foundry/memory/INDEX.md", "# Memory index\n")
}

// duplicateFacts makes a project of two facts with one id, which doctor
// --fix renumbers, and no INDEX.md, which it writes.
func duplicateFacts(t *testing.T, dir string) {
	t.Helper()
	r := gittest.Init(t, dir)
	r.Write(".foundry/memory/fact-0001-ci-runs-on-linux.md", factFile("fact-0001", "CI runs on Linux"))
	r.Write(".foundry/memory/fact-0001-builds-use-gradle.md", factFile("fact-0001", "Builds use Gradle"))
}

// activeWithRetiredReason makes a project of one active fact whose file
// states a retiredReason too, as a hand edit can leave it.
func activeWithRetiredReason(t *testing.T, dir string) {
	t.Helper()
	fact := strings.Replace(factFile("fact-0001", "CI runs on Linux"), "status: active\n", "status: active\nretiredReason: the runners moved\n", 1)
	testenv.WriteFile(t, dir, ".foundry/memory/fact-0001-ci-runs-on-linux.md", fact)
}

// readOnlyServer makes a project whose MCP server is enabled with the
// defaults: read-only, so the mutating tools are not exposed.
func readOnlyServer(t *testing.T, dir string) {
	t.Helper()
	testenv.WriteFile(t, dir, ".foundry/config.yaml", "mcp:\n  enabled: true\n")
}

// factFile returns a valid fact file of the given id and title.
func factFile(id, title string) string {
	return "---\nid: " + id + "\ntype: convention\ntitle: " + title +
		"\nscope: project\ntags: []\nconfidence: high\nsource: conversation\ncreated: 2026-01-01\nstatus: active\n---\n" + title + ".\n"
}

// TestContractsShowNestedDeep: a local contract of 100 KB whose const
// holds 50,000 numbers 200 arrays deep would print 20 MB indented (each
// line carries its depth in spaces); contracts show prints it compact, on
// one line.
//
//nolint:paralleltest // urfave/cli v2 keeps its help flag in a package variable
func TestContractsShowNestedDeep(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, nil, "init")
	deep := strings.Repeat("[", 200) + strings.Repeat("0,", 50000) + "0" + strings.Repeat("]", 200)
	testenv.WriteFile(t, dir, ".foundry/schemas/deep.v1.schema.json",
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "deep.v1.schema.json", "const": `+deep+`}`)
	code, stdout, stderr := runIn(t, dir, "", "contracts", "show", "deep.v1")
	if code != 0 {
		t.Fatalf("contracts show: exit %d\n%s", code, stderr)
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"deep.v1.schema.json","const":` + deep + "}\n"
	if stdout != want {
		t.Errorf("contracts show printed %d bytes in %d lines, want the schema compact on one line", len(stdout), strings.Count(stdout, "\n"))
	}
}
