package claude_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/claude"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/schemas"
)

func TestBuildPlugin(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "plugins", "foundry-core")
	files, err := claude.BuildPlugin(dir, claude.PluginOptions{Version: "v1.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := fs.Glob(schemas.FS, "*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".claude-plugin/plugin.json", ".mcp.json", "hooks/hooks.json"}
	for _, name := range embedded {
		want = append(want, "schemas/"+name)
	}
	want = append(want, "skills/runbook-author/SKILL.md")
	if diff := cmp.Diff(want, files); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	for _, name := range embedded {
		emb, _ := fs.ReadFile(schemas.FS, name)
		if got := readFile(t, filepath.Join(dir, "schemas", name)); got != string(emb) {
			t.Errorf("schemas/%s differs from the embedded contract", name)
		}
	}

	var manifest struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Metadata struct {
			Foundry struct {
				Contracts string `json:"contracts"`
			} `json:"foundry"`
		} `json:"metadata"`
	}
	decode(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Name != "foundry-core" || manifest.Version != "1.4.0" || manifest.Metadata.Foundry.Contracts != "v1" {
		t.Errorf("plugin.json = %+v", manifest)
	}

	var mcp struct {
		MCPServers map[string]claude.MCPServer `json:"mcpServers"`
	}
	decode(t, filepath.Join(dir, ".mcp.json"), &mcp)
	if diff := cmp.Diff(map[string]claude.MCPServer{"foundry": {Command: "foundry", Args: []string{"mcp", "serve"}}}, mcp.MCPServers); diff != "" {
		t.Errorf(".mcp.json servers (-want +got):\n%s", diff)
	}

	var hooks struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	decode(t, filepath.Join(dir, "hooks", "hooks.json"), &hooks)
	post := hooks.Hooks["PostToolUse"]
	if len(hooks.Hooks) != 1 || len(post) != 1 || post[0].Matcher != "Write|Edit|MultiEdit" ||
		len(post[0].Hooks) != 1 || post[0].Hooks[0].Type != "command" || post[0].Hooks[0].Command != "foundry hook claude" {
		t.Errorf("hooks.json = %+v", hooks)
	}

	skill := readFile(t, filepath.Join(dir, "skills", "runbook-author", "SKILL.md"))
	for _, s := range []string{"---\nname: runbook-author\ndescription: ", "foundry runbook new <slug> --title", "mcp__plugin_foundry-core_foundry__runbook_list"} {
		if !strings.Contains(skill, s) {
			t.Errorf("SKILL.md lacks %q", s)
		}
	}

	// A second build over the first rewrites the same files and keeps others.
	testenv.WriteFile(t, dir, "README.md", "mine\n")
	if _, err := claude.BuildPlugin(dir, claude.PluginOptions{Version: "(devel)"}); err != nil {
		t.Fatal(err)
	}
	decode(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Version != "0.0.0-dev" || readFile(t, filepath.Join(dir, "README.md")) != "mine\n" {
		t.Errorf("rebuild: version %q, README %q", manifest.Version, readFile(t, filepath.Join(dir, "README.md")))
	}
}

func decode(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestBuildPluginVersions(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"v0.3.1", "0.3.1"},
		{"1.2.3-rc.1+build.5", "1.2.3-rc.1+build.5"},
		{"v0.0.0-20260102100000-abcdef123456", "0.0.0-20260102100000-abcdef123456"},
		{"(devel)", "0.0.0-dev"},
		{"", "0.0.0-dev"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if _, err := claude.BuildPlugin(dir, claude.PluginOptions{Version: tt.in}); err != nil {
				t.Fatal(err)
			}
			var m struct{ Version string }
			decode(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), &m)
			if m.Version != tt.want {
				t.Fatalf("version %q -> %q, want %q", tt.in, m.Version, tt.want)
			}
		})
	}
}

// TestBuildPluginFollowsNoLink checks that a symbolic link below the plugin
// folder, to a folder or a file elsewhere, is refused as a write through a
// link, and what it leads to is left untouched.
func TestBuildPluginFollowsNoLink(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ link, target string }{
		{"hooks", "dir"},
		{".mcp.json", "file"},
		{"skills/runbook-author", "dir"},
	} {
		t.Run(tt.link, func(t *testing.T) {
			t.Parallel()
			dir, outside := t.TempDir(), t.TempDir()
			target := outside
			if tt.target == "file" {
				target = filepath.Join(outside, "f.json")
				testenv.WriteFile(t, outside, "f.json", "mine\n")
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, tt.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, tt.link)); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			_, err := claude.BuildPlugin(dir, claude.PluginOptions{Version: "(devel)"})
			if err == nil || !strings.Contains(err.Error(), "refuse to write through "+tt.link+": is a symbolic link") {
				t.Errorf("BuildPlugin over a link at %s: %v", tt.link, err)
			}
			es, _ := os.ReadDir(outside)
			if tt.target == "dir" && len(es) != 0 || tt.target == "file" && readFile(t, target) != "mine\n" {
				t.Errorf("the link's target changed: %v", es)
			}
			if _, err := os.Stat(filepath.Join(dir, ".claude-plugin")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused build wrote part of the plugin: %v", err)
			}
		})
	}
}
