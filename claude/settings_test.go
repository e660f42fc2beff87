package claude_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/claude"
	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

func TestSetupFresh(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	res, err := claude.Setup(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []claude.FileResult{{Path: ".mcp.json", Action: claude.Created}, {Path: ".claude/settings.json", Action: claude.Created}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	wantMCP := `{
  "mcpServers": {
    "foundry": {
      "command": "foundry",
      "args": [
        "mcp",
        "serve"
      ]
    }
  }
}
`
	wantSettings := `{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Write|Edit|MultiEdit",
        "hooks": [
          {
            "type": "command",
            "command": "foundry hook claude"
          }
        ]
      }
    ]
  }
}
`
	if diff := cmp.Diff(wantMCP, readFile(t, filepath.Join(root, ".mcp.json"))); diff != "" {
		t.Errorf(".mcp.json (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSettings, readFile(t, filepath.Join(root, ".claude", "settings.json"))); diff != "" {
		t.Errorf("settings.json (-want +got):\n%s", diff)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSetupMergesTwice runs Setup twice over files with other entries: the
// entries survive in their order, and nothing is added twice.
func TestSetupMergesTwice(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testenv.WriteFile(t, root, ".mcp.json", `{"mcpServers": {"github": {"command": "gh-mcp", "args": ["--read-only"], "env": {"GH_HOST": "github.com"}}}, "x-note": "a <b> & c"}`)
	testenv.WriteFile(t, root, ".claude/settings.json", `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "gofmt -l . && go vet ./..."}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "model": "opus"
}`)
	// Edited in place: every line foundry did not add stays as written,
	// objects on one line included.
	wantMCP := `{"mcpServers": {"github": {"command": "gh-mcp", "args": ["--read-only"], "env": {"GH_HOST": "github.com"}}, "foundry": {"command": "foundry", "args": ["mcp", "serve"]}}, "x-note": "a <b> & c"}`
	wantSettings := `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "gofmt -l . && go vet ./..."}]}, {"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "foundry hook claude"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "model": "opus"
}`
	for run, want := range [][]claude.FileResult{
		{{Path: ".mcp.json", Action: claude.Merged}, {Path: ".claude/settings.json", Action: claude.Merged}},
		{{Path: ".mcp.json", Action: claude.Unchanged}, {Path: ".claude/settings.json", Action: claude.Unchanged}},
	} {
		res, err := claude.Setup(root)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("run %d results (-want +got):\n%s", run+1, diff)
		}
		if diff := cmp.Diff(wantMCP, readFile(t, filepath.Join(root, ".mcp.json"))); diff != "" {
			t.Errorf("run %d .mcp.json (-want +got):\n%s", run+1, diff)
		}
		if diff := cmp.Diff(wantSettings, readFile(t, filepath.Join(root, ".claude", "settings.json"))); diff != "" {
			t.Errorf("run %d settings.json (-want +got):\n%s", run+1, diff)
		}
	}
}

func TestSetupKeepsUserEntries(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mcp := `{"mcpServers": {"foundry": {"command": "/opt/foundry/bin/foundry", "args": ["mcp", "serve", "--log-file", "/tmp/f.log"]}}}`
	testenv.WriteFile(t, root, ".mcp.json", mcp)
	// The hook already runs under another matcher: it is not added again.
	settings := `{"hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "foundry hook claude"}]}]}}`
	testenv.WriteFile(t, root, ".claude/settings.json", settings)
	res, err := claude.Setup(root)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != claude.Kept || !strings.Contains(res[0].Note, "mcpServers.foundry already exists and differs") {
		t.Errorf(".mcp.json result = %+v, want kept with a note", res[0])
	}
	if res[1].Action != claude.Unchanged {
		t.Errorf("settings.json result = %+v, want unchanged", res[1])
	}
	if got := readFile(t, filepath.Join(root, ".mcp.json")); got != mcp {
		t.Errorf(".mcp.json rewritten: %s", got)
	}
	if got := readFile(t, filepath.Join(root, ".claude", "settings.json")); got != settings {
		t.Errorf("settings.json rewritten: %s", got)
	}
}

// TestSetupKnowsTheHookByAnyName: a hook that runs foundry by its path,
// or with global flags first, is foundry's hook, not added again; another
// command is not.
func TestSetupKnowsTheHookByAnyName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command string
		want    claude.FileAction
	}{
		{"foundry hook claude", claude.Unchanged},
		{"/usr/local/bin/foundry hook claude", claude.Unchanged},
		{`"C:\Program Files\foundry.exe" hook claude`, claude.Unchanged},
		{"foundry -C app hook claude", claude.Unchanged},
		{"foundry hook claude --verbose-thing", claude.Merged},
		{"my-foundry hook claude", claude.Merged},
		{"foundry hook pre-commit", claude.Merged},
	} {
		root := t.TempDir()
		cmd, err := json.Marshal(tc.command)
		if err != nil {
			t.Fatal(err)
		}
		testenv.WriteFile(t, root, ".claude/settings.json", `{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": `+string(cmd)+`}]}]}}`)
		res, err := claude.Setup(root)
		if err != nil {
			t.Fatal(err)
		}
		if res[1].Action != tc.want {
			t.Errorf("%s: settings.json %s, want %s", tc.command, res[1].Action, tc.want)
		}
	}
}

// TestSetupKeepsTheFilesStyle: a merge writes a file with its own
// indentation and line ends, so the lines it did not add stay as they
// were: a four-space CRLF .mcp.json gains the server's lines alone.
func TestSetupKeepsTheFilesStyle(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	was := "{\r\n    \"mcpServers\": {\r\n        \"db\": {\r\n            \"command\": \"pg\"\r\n        }\r\n    }\r\n}\r\n"
	testenv.WriteFile(t, root, ".mcp.json", was)
	testenv.WriteFile(t, root, ".claude/settings.json", "{\n\t\"model\": \"x\"\n}\n")
	if _, err := claude.Setup(root); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(root, ".mcp.json"))
	if strings.Count(got, "\n") != strings.Count(got, "\r\n") {
		t.Errorf(".mcp.json has lines that do not end in CRLF:\n%q", got)
	}
	for line := range strings.Lines(was) {
		if line != "        }\r\n" && !strings.Contains(got, line) {
			t.Errorf(".mcp.json lost the line %q:\n%s", line, got)
		}
	}
	if settings := readFile(t, filepath.Join(root, ".claude", "settings.json")); !strings.Contains(settings, "\n\t\"model\": \"x\",\n\t\"hooks\": {\n\t\t") {
		t.Errorf("settings.json not indented with tabs as it was:\n%s", settings)
	}
}

func TestSetupRefusesBadFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rel, content, wantErr string
	}{
		{"mcp not JSON", ".mcp.json", `{"mcpServers": `, "set up .mcp.json: unexpected end of JSON input; fix or move the file, nothing was changed"},
		{"mcp array", ".mcp.json", `[]`, "set up .mcp.json: not a JSON object; fix or move the file, nothing was changed"},
		{"servers not an object", ".mcp.json", `{"mcpServers": []}`, `set up .mcp.json: "mcpServers": must be an object; nothing was changed`},
		{"hooks not an object", ".claude/settings.json", `{"hooks": "none"}`, `set up .claude/settings.json: "hooks": must be an object; nothing was changed`},
		{"PostToolUse not an array", ".claude/settings.json", `{"hooks": {"PostToolUse": {}}}`, `set up .claude/settings.json: "hooks"."PostToolUse": must be an array; nothing was changed`},
		{"trailing data", ".claude/settings.json", `{} {}`, "set up .claude/settings.json: data after the top-level object; fix or move the file, nothing was changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			testenv.WriteFile(t, root, tt.rel, tt.content)
			_, err := claude.Setup(root)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if got := readFile(t, filepath.Join(root, filepath.FromSlash(tt.rel))); got != tt.content {
				t.Fatalf("%s changed to %q", tt.rel, got)
			}
			// Neither is the other file written.
			for _, rel := range []string{".mcp.json", ".claude/settings.json"} {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); rel != tt.rel && !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s written although %s was refused", rel, tt.rel)
				}
			}
		})
	}
}

func TestSetupEmptyFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testenv.WriteFile(t, root, ".mcp.json", "\n")
	res, err := claude.Setup(root)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != claude.Merged {
		t.Fatalf("empty .mcp.json: %+v, want merged", res[0])
	}
	if _, err := os.Stat(filepath.Join(root, ".claude", "settings.json")); errors.Is(err, os.ErrNotExist) {
		t.Fatal("settings.json not written")
	}
}

func TestSetupHTTP(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	plan, err := claude.PlanSetupHTTP(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Write(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "mcpServers": {
    "foundry": {
      "type": "http",
      "url": "http://127.0.0.1:7391/mcp",
      "headers": {
        "Authorization": "Bearer ${FOUNDRY_MCP_TOKEN}"
      }
    }
  }
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf(".mcp.json (-want +got):\n%s", diff)
	}
}

// TestSetupRefusesLinks: Setup writes nothing through a symbolic link out
// of the project (.claude/, or either file itself), names the link, and
// changes neither file when one is refused.
func TestSetupRefusesLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, link, target, want string
	}{
		{"claude folder", ".claude", "", "set up .claude/settings.json: refuse to write through .claude: is a symbolic link; nothing was changed"},
		{"settings file", ".claude/settings.json", "settings.json", "set up .claude/settings.json: open .claude/settings.json: leads outside the project; nothing was changed"},
		{"mcp file", ".mcp.json", "settings.json", "set up .mcp.json: open .mcp.json: leads outside the project; nothing was changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			outside, root := t.TempDir(), t.TempDir()
			testenv.WriteFile(t, outside, "settings.json", "{}\n")
			if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(root, filepath.FromSlash(tt.link))
			_ = os.Remove(link)
			if err := os.Symlink(filepath.Join(outside, tt.target), link); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			_, err := claude.Setup(root)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Setup error = %v, want %q", err, tt.want)
			}
			if data, err := os.ReadFile(filepath.Join(outside, "settings.json")); err != nil || string(data) != "{}\n" {
				t.Errorf("outside file = %q, %v; want it untouched", data, err)
			}
			if es, _ := os.ReadDir(outside); len(es) != 1 {
				t.Errorf("outside folder holds %d files, want 1", len(es))
			}
			if tt.link != ".mcp.json" {
				if _, err := os.Lstat(filepath.Join(root, ".mcp.json")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf(".mcp.json written although settings.json was refused (%v)", err)
				}
			}
		})
	}
}

// TestWriteMergesUnderTheLock checks that a plan is written under the
// project's settings lock, merged again from what the files hold then: a
// change made between the plan and the write (another foundry's merge) is
// kept, and while another process holds the lock nothing is written.
func TestWriteMergesUnderTheLock(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	plan, err := claude.PlanSetup(root)
	if err != nil {
		t.Fatal(err)
	}
	// Meanwhile another process registers its own server.
	testenv.WriteFile(t, root, ".mcp.json", `{"mcpServers": {"other": {"command": "other"}}}`)

	files, err := confined.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	if err := files.MkdirAll(".foundry"); err != nil {
		t.Fatal(err)
	}
	unlock, err := files.Lock(context.Background(), config.LockPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := plan.Write(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Write while the lock is held: %v, want it to wait for the lock", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude", "settings.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("settings.json written while the lock was held (%v)", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}

	if _, err := plan.Write(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(root, ".mcp.json"))
	for _, want := range []string{`"other"`, `"foundry"`} {
		if !strings.Contains(got, want) {
			t.Errorf(".mcp.json lacks %s:\n%s", want, got)
		}
	}
}
