package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/claude"
	"github.com/foundryhq/foundry/project"
)

type pluginOptions struct {
	dir    string
	json   bool
	stdout io.Writer
}

func newPluginCommand(env *cliEnv) *cli.Command {
	opts := &pluginOptions{}
	return &cli.Command{
		Name:  "plugin",
		Usage: "build the Claude Code plugin foundry-core",
		Description: `plugin build DIR lays out the Claude Code plugin foundry-core.

EXIT STATUS:
   0  ok
   1  a file could not be written
   2  malformed command line`,
		Subcommands: []*cli.Command{
			{
				Name:      "build",
				Usage:     "lay out the foundry-core plugin in DIR",
				ArgsUsage: "DIR",
				Description: `Writes the Claude Code plugin foundry-core into DIR (created if needed):
    .claude-plugin/plugin.json     manifest; metadata.foundry.contracts "v1"
    .mcp.json                      the MCP server "foundry" (foundry mcp serve)
    hooks/hooks.json               PostToolUse on Write|Edit|MultiEdit: foundry hook claude
    schemas/                       the contracts this binary ships
    skills/runbook-author/SKILL.md turn a finished task into a runbook
Files already in DIR are overwritten; nothing else is touched, and no
symbolic link below DIR is followed (exit 1). A DIR that holds a project
(.foundry/) is refused: the plugin's .mcp.json would replace the
project's. The plugin runs the foundry
found on PATH. Its tools are addressed as
mcp__plugin_foundry-core_foundry__<name>.

EXIT STATUS:
   0  ok
   1  a file could not be written
   2  malformed command line, a DIR that holds a project, or --rev or
      --staged was given`,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("plugin build needs exactly one DIR")
					}
					// An empty DIR is an unset variable, not the current
					// folder, whose .mcp.json the plugin's would replace.
					if c.Args().First() == "" {
						return usageErrorf("plugin build needs a DIR, not an empty name")
					}
					if env.rev != "" || env.staged {
						return fmt.Errorf("plugin build writes files: %w", project.ErrReadOnly)
					}
					opts.dir, opts.json, opts.stdout = c.Args().First(), env.json, env.stdout
					return runPluginBuild(env, opts)
				},
			},
		},
	}
}

func runPluginBuild(env *cliEnv, opts *pluginOptions) error {
	dir := opts.dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.dir, dir)
	}
	if _, err := os.Lstat(filepath.Join(dir, project.Dir)); err == nil {
		return usageErrorf("plugin build: %s holds a project (%s/), whose .mcp.json the plugin's would replace; build the plugin in a folder of its own", opts.dir, project.Dir)
	}
	files, err := claude.BuildPlugin(dir, claude.PluginOptions{Version: currentVersion().Version})
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(struct {
			Plugin string   `json:"plugin"`
			Dir    string   `json:"dir"`
			Files  []string `json:"files"`
		}{claude.PluginName, opts.dir, files})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "built plugin %s in %s (%d files):\n", claude.PluginName, opts.dir, len(files))
	for _, f := range files {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	_, err = io.WriteString(opts.stdout, b.String())
	return err
}
