package claude_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/claude"
)

const validFinding = `{
  "schema": "finding.v1",
  "producedBy": "appsec-reviewer",
  "id": "F-014",
  "severity": "high",
  "title": "No rate limit on the login endpoint",
  "summary": "POST /api/login accepts unlimited attempts per account and per source address.",
  "failureScenario": "An attacker sends 10k requests/min to /api/login with one username and a password list; no lockout, no delay, no CAPTCHA is triggered.",
  "standard": "OWASP ASVS V2.2.1",
  "confidence": "high",
  "evidence": [{"kind": "file", "ref": "src/auth/login.ts:42"}]
}
`

const available = "Available contracts: adr.v1, compliance-check.v1, estimate.v1, fact.v1, finding.v1, handoff.v1, plan.v1, requirement.v1, review.v1, risk.v1, tracker-item.v1.\n"

// project lays out a project with one artifact (none when artifact is "")
// and returns its root.
func project(t *testing.T, artifact string) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".foundry/blackboard/audit", "src"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if artifact != "" {
		p := filepath.Join(root, ".foundry", "blackboard", "audit", "appsec-reviewer.json")
		if err := os.WriteFile(p, []byte(artifact), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// payload reads a recorded hook input and points it at root.
func payload(t *testing.T, name, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "$PROJECT", filepath.ToSlash(root))
}

// gateEvents counts the gate_blocked events recorded in the project.
func gateEvents(t *testing.T, root string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".foundry", "metrics", "events.jsonl"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), `"kind":"gate_blocked"`)
}

func TestPostToolUse(t *testing.T) {
	t.Parallel()
	withoutRef := strings.Replace(validFinding, `, "ref": "src/auth/login.ts:42"`, "", 1)
	tests := []struct {
		name      string
		payload   string
		artifact  string
		wantCode  int
		wantMsg   string
		wantEvent bool
	}{
		{"write valid", "write.json", validFinding, 0, "", false},
		{"write invalid", "write.json", withoutRef, 2,
			"Foundry: appsec-reviewer.json violates finding.v1. Fix it before continuing:\n" +
				"- #/evidence/0: missing required property \"ref\"\n", true},
		{"edit invalid, two problems in document order", "edit.json",
			strings.Replace(strings.Replace(withoutRef, `"high",`, `"severe",`, 1), `"failureScenario"`, `"failure"`, 1), 2,
			"Foundry: appsec-reviewer.json violates finding.v1. Fix it before continuing:\n" +
				"- #: missing required property \"failureScenario\"\n" +
				"- #/severity: must be one of [\"critical\",\"high\",\"medium\",\"low\",\"info\"]\n" +
				"- #: unexpected property \"failure\"\n" +
				"- #/evidence/0: missing required property \"ref\"\n", true},
		{"multiedit relative to cwd, valid", "multiedit.json", validFinding, 0, "", false},
		{"multiedit not parseable", "multiedit.json", "{\n  \"schema\": \"finding.v1\",\n}\n", 2,
			"Foundry: appsec-reviewer.json is not parseable JSON. Fix it before continuing:\n" +
				"- line 3, column 1: invalid character '}' looking for beginning of object key string\n", true},
		{"no schema field", "write.json", `{"producedBy": "appsec-reviewer"}`, 2,
			"Foundry: appsec-reviewer.json has no \"schema\" field. Fix it before continuing:\n" +
				"- #: missing required property \"schema\"\n" + available, true},
		{"schema not a string", "write.json", `{"schema": 1}`, 2,
			"Foundry: appsec-reviewer.json has no \"schema\" field. Fix it before continuing:\n" +
				"- #/schema: must be a string naming a contract, got number\n" + available, true},
		{"no schema field, after a byte order mark", "write.json", "\uFEFF" + `{"producedBy": "appsec-reviewer"}`, 2,
			"Foundry: appsec-reviewer.json has no \"schema\" field. Fix it before continuing:\n" +
				"- #: missing required property \"schema\"\n" + available, true},
		{"schema not a string, after a byte order mark", "write.json", "\uFEFF" + `{"schema": {"id": "finding.v1"}}`, 2,
			"Foundry: appsec-reviewer.json has no \"schema\" field. Fix it before continuing:\n" +
				"- #/schema: must be a string naming a contract, got object\n" + available, true},
		{"schema null", "write.json", `{"schema": null}`, 2,
			"Foundry: appsec-reviewer.json has no \"schema\" field. Fix it before continuing:\n" +
				"- #/schema: must be a string naming a contract, got null\n" + available, true},
		{"not an object", "write.json", `["finding.v1"]`, 2,
			"Foundry: appsec-reviewer.json has no \"schema\" field. Fix it before continuing:\n" +
				"- #: must be an object with a \"schema\" field naming its contract\n" + available, true},
		{"unknown contract", "write.json", `{"schema": "findng.v1"}`, 2,
			"Foundry: appsec-reviewer.json names an unknown contract \"findng.v1\". Fix it before continuing:\n" +
				"- #/schema: unknown contract \"findng.v1\"\n" + available, true},
		{"not a blackboard path", "other-path.json", "{ not json", 0, "", false},
		{"not a file tool", "bash.json", "{ not json", 0, "", false},
		{"missing file", "missing.json", validFinding, 2,
			"Foundry: could not check gone.json against its contract: the file does not exist. Validate it with contract_validate before continuing.\n", false},
		{"garbage stdin", "garbage.txt", validFinding, 2,
			"Foundry: could not check the file just written against its contract: read hook input: invalid character 'W' looking for beginning of value. If it is a .foundry/blackboard/ artifact, validate it with contract_validate before continuing.\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := project(t, tt.artifact)
			in := payload(t, tt.payload, root)
			got := claude.PostToolUse(strings.NewReader(in), claude.HookOptions{})
			if got.Code != tt.wantCode {
				t.Errorf("code = %d, want %d", got.Code, tt.wantCode)
			}
			if diff := cmp.Diff(tt.wantMsg, got.Message); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if n := gateEvents(t, root); (n == 1) != tt.wantEvent || n > 1 {
				t.Errorf("gate_blocked events = %d, want event %v", n, tt.wantEvent)
			}
		})
	}
}

func TestPostToolUseLocalContract(t *testing.T) {
	t.Parallel()
	root := project(t, `{"schema": "note.v1", "producedBy": "scribe"}`)
	schema := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
"required": ["schema", "producedBy", "text"], "properties": {"schema": {"const": "note.v1"}}}`
	if err := os.MkdirAll(filepath.Join(root, ".foundry", "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".foundry", "schemas", "note.v1.schema.json"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	got := claude.PostToolUse(strings.NewReader(payload(t, "write.json", root)), claude.HookOptions{})
	want := claude.Outcome{Code: 2, Blocked: true, Message: "Foundry: appsec-reviewer.json violates note.v1. Fix it before continuing:\n" +
		"- #: missing required property \"text\"\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("outcome (-want +got):\n%s", diff)
	}
}

func TestBlackboardRoot(t *testing.T) {
	t.Parallel()
	sep := string(filepath.Separator)
	abs := func(parts ...string) string { return sep + filepath.Join(parts...) }
	tests := []struct {
		path     string
		wantRoot string
		wantOK   bool
	}{
		{abs("p", ".foundry", "blackboard", "audit", "a.json"), abs("p"), true},
		{abs("p", ".foundry", "blackboard", "a.JSON"), abs("p"), true},
		{abs("p", ".foundry", "blackboard", "audit", "a.md"), "", false},
		{abs("p", ".foundry", "memory", "a.json"), "", false},
		{abs("p", "blackboard", "a.json"), "", false},
		{abs("p", ".foundry", "blackboard", "w", ".foundry", "blackboard", "x.json"), abs("p", ".foundry", "blackboard", "w"), true},
		{abs("p", ".foundry", "blackboard", "..", "config.json"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			root, ok := claude.BlackboardRoot(tt.path)
			if root != tt.wantRoot || ok != tt.wantOK {
				t.Fatalf("BlackboardRoot(%q) = %q, %v; want %q, %v", tt.path, root, ok, tt.wantRoot, tt.wantOK)
			}
		})
	}
}

func FuzzPostToolUse(f *testing.F) {
	for _, name := range []string{"write.json", "edit.json", "multiedit.json", "other-path.json", "bash.json", "garbage.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, in string) {
		got := claude.PostToolUse(strings.NewReader(strings.ReplaceAll(in, "$PROJECT", root)), claude.HookOptions{Dir: root})
		if got.Code != claude.ExitOK && got.Code != claude.ExitBlock {
			t.Fatalf("exit code %d", got.Code)
		}
		if (got.Code == claude.ExitBlock) != (got.Message != "") {
			t.Fatalf("code %d with message %q", got.Code, got.Message)
		}
	})
}

// Odd hook inputs: a tool the hook does not check passes whatever the types
// of its other fields; unusable input for a checked tool, or input that is
// not an object, still says the check did not run (exit 2).
func TestPostToolUseOddInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		wantCode int
	}{
		{"null", `null`, 0},
		{"empty object", `{}`, 0},
		{"other tool, file_path a number", `{"tool_name":"Bash","tool_input":{"file_path":5}}`, 0},
		{"other tool, tool_input a string", `{"tool_name":"Bash","tool_input":"ls"}`, 0},
		{"tool_name a number", `{"tool_name":5,"tool_input":{"file_path":"a.json"}}`, 0},
		{"write, file_path a number", `{"tool_name":"Write","tool_input":{"file_path":5}}`, 2},
		{"write, tool_input a string", `{"tool_name":"Write","tool_input":"x"}`, 2},
		{"array", `[]`, 2},
		{"string", `"Write"`, 2},
		{"empty", ``, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := claude.PostToolUse(strings.NewReader(tt.in), claude.HookOptions{Dir: t.TempDir()})
			if got.Code != tt.wantCode {
				t.Errorf("code = %d (%q), want %d", got.Code, got.Message, tt.wantCode)
			}
			if (got.Message != "") != (tt.wantCode != 0) {
				t.Errorf("message %q with code %d", got.Message, got.Code)
			}
		})
	}
}

// An artifact path that is a symbolic link to a device is not read (a
// device such as /dev/zero never ends, and the link leaves the project):
// the check says it could not run.
func TestPostToolUseNotARegularFile(t *testing.T) {
	t.Parallel()
	root := project(t, "")
	p := filepath.Join(root, ".foundry", "blackboard", "audit", "appsec-reviewer.json")
	if err := os.Symlink(os.DevNull, p); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().IsRegular() {
		t.Skipf("%s is not a device here", os.DevNull)
	}
	got := claude.PostToolUse(strings.NewReader(payload(t, "write.json", root)), claude.HookOptions{})
	want := "Foundry: could not check appsec-reviewer.json against its contract: leads outside .foundry. Validate it with contract_validate before continuing.\n"
	if got.Code != claude.ExitBlock || got.Message != want {
		t.Errorf("got code %d, message %q; want %d, %q", got.Code, got.Message, claude.ExitBlock, want)
	}
}

// TestPostToolUseThroughLinkedFolder: a file written through a link to the
// blackboard folder is a blackboard file, checked as one; a .json file
// elsewhere reached through a link is not.
func TestPostToolUseThroughLinkedFolder(t *testing.T) {
	t.Parallel()
	root := project(t, `{"producedBy": "x"}`)
	if err := os.Symlink(filepath.Join(".foundry", "blackboard"), filepath.Join(root, "bb")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink("src", filepath.Join(root, "code")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "data.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An artifact that is itself a link out of the project is refused by
	// either path.
	outside := filepath.Join(t.TempDir(), "outside.json")
	if err := os.WriteFile(outside, []byte(`{"producedBy": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".foundry", "blackboard", "audit", "out.json")); err != nil {
		t.Fatal(err)
	}
	in := payload(t, "write.json", root)
	for _, tc := range []struct {
		path string
		code int
	}{
		{"$PROJECT/bb/audit/appsec-reviewer.json", claude.ExitBlock},
		{"$PROJECT/code/data.json", claude.ExitOK},
		{"$PROJECT/.foundry/blackboard/audit/out.json", claude.ExitBlock},
		{"$PROJECT/bb/audit/out.json", claude.ExitBlock},
	} {
		p := strings.ReplaceAll(tc.path, "$PROJECT", filepath.ToSlash(root))
		got := claude.PostToolUse(strings.NewReader(strings.ReplaceAll(in, filepath.ToSlash(root)+"/.foundry/blackboard/audit/appsec-reviewer.json", p)), claude.HookOptions{})
		if got.Code != tc.code {
			t.Errorf("%s: code %d (%q), want %d", tc.path, got.Code, got.Message, tc.code)
		}
		if strings.HasSuffix(tc.path, "appsec-reviewer.json") && !strings.Contains(got.Message, `has no "schema" field`) {
			t.Errorf("%s: message %q, want the missing schema field named", tc.path, got.Message)
		}
	}
}

// TestPostToolUseLargeInput: the input of an Edit of a file over the
// input's 64 MiB bound carries all of it; the fields that come first tell
// whether it names a blackboard file. One that does not passes; one that
// does is not checked, and says so.
func TestPostToolUseLargeInput(t *testing.T) {
	t.Parallel()
	root := project(t, "")
	big := strings.Repeat("x", 65<<20)
	for _, tc := range []struct {
		file string
		code int
	}{
		{"src/big.csv", claude.ExitOK},
		{".foundry/blackboard/audit/appsec-reviewer.json", claude.ExitBlock},
	} {
		in := `{"session_id":"s","cwd":"` + filepath.ToSlash(root) + `","hook_event_name":"PostToolUse","tool_name":"Edit",` +
			`"tool_input":{"file_path":"` + filepath.ToSlash(filepath.Join(root, tc.file)) + `","old_string":"a","new_string":"b"},` +
			`"tool_response":{"originalFile":"` + big + `"}}`
		got := claude.PostToolUse(strings.NewReader(in), claude.HookOptions{})
		if got.Code != tc.code || tc.code == claude.ExitBlock && !strings.Contains(got.Message, "larger than 64 MiB") {
			t.Errorf("%s: code %d, message %q; want %d", tc.file, got.Code, got.Message, tc.code)
		}
	}
}
