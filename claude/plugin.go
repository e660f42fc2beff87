package claude

// This file defines `foundry plugin build`: the layout of the Claude Code
// plugin foundry-core.

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/lazyre"
	"github.com/foundryhq/foundry/schemas"
)

// PluginName is the plugin's name, which Claude Code puts in tool names:
// mcp__plugin_foundry-core_foundry__<tool>.
const PluginName = "foundry-core"

// ContractsGeneration is the contract family the plugin ships, recorded as
// metadata.foundry.contracts in plugin.json so that a vertical can tell which
// generation the installed kernel provides.
const ContractsGeneration = "v1"

// PluginOptions tunes [BuildPlugin].
type PluginOptions struct {
	// Version is the foundry version; a Go module version ("v1.2.3") loses
	// its "v", and anything that is not semantic versioning becomes
	// "0.0.0-dev".
	Version string
}

// pluginManifest is .claude-plugin/plugin.json.
type pluginManifest struct {
	Name        string         `json:"name"`
	Version     string         `json:"version"`
	Description string         `json:"description"`
	Author      pluginAuthor   `json:"author"`
	Keywords    []string       `json:"keywords"`
	Metadata    pluginMetadata `json:"metadata"`
}

type pluginAuthor struct {
	Name string `json:"name"`
}

type pluginMetadata struct {
	Foundry struct {
		Contracts string `json:"contracts"`
	} `json:"foundry"`
}

// hooksFile is hooks/hooks.json.
type hooksFile struct {
	Description string                 `json:"description"`
	Hooks       map[string][]hookGroup `json:"hooks"`
}

// mcpFile is the plugin's .mcp.json.
type mcpFile struct {
	MCPServers map[string]MCPServer `json:"mcpServers"`
}

var semver = lazyre.New(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// pluginVersion turns a foundry version into the plugin's semantic version.
func pluginVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if !semver().MatchString(v) {
		return "0.0.0-dev"
	}
	return v
}

// BuildPlugin lays out the foundry-core plugin in dir (created when needed):
//
//	.claude-plugin/plugin.json     manifest, metadata.foundry.contracts "v1"
//	.mcp.json                      the foundry MCP server (foundry mcp serve)
//	hooks/hooks.json               the PostToolUse validate-contract hook
//	schemas/*.json                 the embedded contracts and shared pieces
//	skills/runbook-author/SKILL.md turn a finished task into a runbook
//
// It returns the written files, slash paths relative to dir, sorted. Files
// already there are overwritten; nothing else in dir is touched. No
// symbolic link below dir is followed: a write through one is refused.
func BuildPlugin(dir string, opts PluginOptions) ([]string, error) {
	files := map[string][]byte{}
	add := func(rel string, v any) error {
		b, err := render(v, nil)
		if err != nil {
			return fmt.Errorf("build plugin: %s: %w", rel, err)
		}
		files[rel] = b
		return nil
	}
	m := pluginManifest{
		Name:    PluginName,
		Version: pluginVersion(opts.Version),
		Description: "Foundry project memory, runbooks and JSON Schema contracts for agent hand-offs: " +
			"the foundry MCP server, and a hook that validates every blackboard artifact an agent writes.",
		Author:   pluginAuthor{Name: "Foundry"},
		Keywords: []string{"memory", "runbooks", "contracts", "json-schema", "mcp"},
	}
	m.Metadata.Foundry.Contracts = ContractsGeneration
	if err := add(".claude-plugin/plugin.json", m); err != nil {
		return nil, err
	}
	if err := add(".mcp.json", mcpFile{MCPServers: map[string]MCPServer{ServerName: Server}}); err != nil {
		return nil, err
	}
	if err := add("hooks/hooks.json", hooksFile{
		Description: "Validate .foundry/blackboard/ artifacts against their contracts after every write.",
		Hooks:       map[string][]hookGroup{"PostToolUse": {foundryHookGroup}},
	}); err != nil {
		return nil, err
	}
	names, err := fs.Glob(schemas.FS, "*.json")
	if err != nil {
		return nil, fmt.Errorf("build plugin: %w", err)
	}
	for _, name := range names {
		b, err := fs.ReadFile(schemas.FS, name)
		if err != nil {
			return nil, fmt.Errorf("build plugin: %w", err)
		}
		files["schemas/"+name] = b
	}
	files["skills/runbook-author/SKILL.md"] = []byte(runbookAuthorSkill)

	written := make([]string, 0, len(files))
	for rel := range files {
		written = append(written, rel)
	}
	slices.Sort(written)
	// dir itself is where the caller asked; below it, as every write of
	// Foundry's, no symbolic link is followed.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("build plugin: %w", err)
	}
	root, err := confined.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("build plugin: %w", err)
	}
	defer root.Close()
	// Every path is checked before the first file is written, so that a
	// refused link leaves no half-built plugin behind.
	for _, rel := range written {
		if err := root.NoFollow(rel); err != nil {
			return nil, fmt.Errorf("build plugin: %w", err)
		}
	}
	for _, rel := range written {
		if err := root.MkdirAll(path.Dir(rel)); err != nil {
			return nil, fmt.Errorf("build plugin: %w", err)
		}
		if err := root.WriteFile(rel, files[rel], 0o644); err != nil {
			return nil, fmt.Errorf("build plugin: %w", err)
		}
	}
	return written, nil
}
