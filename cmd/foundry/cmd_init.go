package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/claude"
	"github.com/foundryhq/foundry/project"
)

type initOptions struct {
	claude bool // also set up Claude Code
	http   bool // with claude: register the shared HTTP daemon
	force  bool // create a project inside another
}

// initReport is what init did: the project layout, and with --claude the
// Claude Code files.
type initReport struct {
	project.InitResult
	Claude []claude.FileResult `json:"claude,omitempty"`
}

func newInitCommand(env *cliEnv) *cli.Command {
	opts := &initOptions{}
	return &cli.Command{
		Name:      "init",
		Usage:     "create .foundry/ in the current folder (or -C DIR)",
		ArgsUsage: " ",
		Description: `Creates .foundry/ with memory/, runbooks/, blackboard/ and schemas/, a
.gitignore that keeps metrics/ out of git, and a commented config.yaml
showing every key with its default, and the explicit MCP opt-in agents
need (mcp: enabled: true, read_only: false, the write scopes listed), one
comment per key. In a project whose config.yaml has no mcp block (one
initialised before the opt-in existed) it adds that block, commented, and
changes no other key: without it foundry mcp serve refuses to start.
Idempotent: run it again and nothing is changed or overwritten; it lists
what it created.

Inside an existing project (a parent folder, up to the git worktree root,
holds .foundry/) it stops without writing anything: a .foundry/ here would
shadow the parent's memory for every command run below. --force creates it
anyway.

With --claude it also sets the project up for Claude Code: the MCP server
"foundry" (foundry mcp serve) in .mcp.json, and in .claude/settings.json
the PostToolUse hook (matcher Write|Edit|MultiEdit) that runs
foundry hook claude. Both files are merged: other entries stay as they
are, in the file's own indentation and line ends, nothing is added twice,
an existing "foundry" server entry is kept as written, and an empty file
is taken as {}. Its tools are then mcp__foundry__<name>. Both files are
checked before anything is written: when one cannot be merged, init
changes nothing at all. With --http the "foundry" entry is the shared
daemon instead (foundry mcp serve --transport http): type "http", url
http://127.0.0.1:7391/mcp and the header Authorization: Bearer
${FOUNDRY_MCP_TOKEN}, which Claude Code expands from the environment;
init then says on stderr what is left to do: make the token, set it, and
start the daemon.

EXIT STATUS:
   0  ok
   1  a file could not be written, .mcp.json or .claude/settings.json is
      not a JSON object, or the folder is inside an existing project
   2  malformed command line`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "claude", Usage: "also register foundry in .mcp.json and .claude/settings.json", Destination: &opts.claude},
			&cli.BoolFlag{Name: "http", Usage: "with --claude, register the shared HTTP daemon instead of a stdio server", Destination: &opts.http},
			&cli.BoolFlag{Name: "force", Usage: "create the project even inside an existing one", Destination: &opts.force},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("init takes no arguments")
			}
			if opts.http && !opts.claude {
				return usageErrorf("--http needs --claude")
			}
			if env.rev != "" || env.staged {
				return fmt.Errorf("init writes files: %w", project.ErrReadOnly)
			}
			return runInit(c.Context, env, opts)
		},
	}
}

func runInit(ctx context.Context, env *cliEnv, opts *initOptions) error {
	// The Claude Code files are checked first: one that cannot be merged
	// stops init before it has changed anything, so its error can say so.
	var plan claude.Plan
	if opts.claude {
		root, err := filepath.Abs(env.dir)
		if err != nil {
			return err
		}
		setup := claude.PlanSetup
		if opts.http {
			setup = claude.PlanSetupHTTP
		}
		if plan, err = setup(root); err != nil {
			return err
		}
	}
	res, err := project.Init(ctx, env.dir, project.InitOptions{Force: opts.force})
	var nested *project.NestedError
	if errors.As(err, &nested) {
		return withHint(err, fmt.Sprintf("run foundry in %s (or with -C %s), or pass --force to create a separate project here", nested.Parent, nested.Parent))
	}
	if err != nil {
		return err
	}
	rep := initReport{InitResult: res}
	if opts.claude {
		rep.Claude, err = plan.Write(ctx)
		if err != nil {
			// Report what was changed before the failure, then the failure.
			if perr := printInit(env, rep); perr != nil {
				return perr
			}
			return err
		}
	}
	if err := printInit(env, rep); err != nil {
		return err
	}
	if opts.http && !env.json && registered(rep.Claude) {
		// The daemon the entry names needs a token before it may serve
		// agents that write, and nothing has started it.
		_, err = fmt.Fprintf(env.stderr, "next: make the agents' token with foundry mcp token new NAME, set FOUNDRY_MCP_TOKEN to it where Claude Code runs, and start the daemon with foundry mcp serve --transport http\n")
	}
	return err
}

// registered reports whether init wrote foundry's entry into .mcp.json.
func registered(files []claude.FileResult) bool {
	for _, f := range files {
		if filepath.Base(f.Path) == ".mcp.json" && (f.Action == claude.Created || f.Action == claude.Merged) {
			return true
		}
	}
	return false
}

func printInit(env *cliEnv, rep initReport) error {
	if env.json {
		return env.printJSON(rep)
	}
	var b strings.Builder
	for _, p := range rep.Created {
		fmt.Fprintf(&b, "created %s\n", p)
	}
	if rep.OptIn != "" {
		fmt.Fprintf(&b, "added the mcp opt-in to %s (foundry mcp serve may start; agents may write)\n", rep.OptIn)
	}
	changed := len(rep.Created) > 0 || rep.OptIn != ""
	for _, f := range rep.Claude {
		switch f.Action {
		case claude.Created:
			fmt.Fprintf(&b, "created %s\n", f.Path)
		case claude.Merged:
			fmt.Fprintf(&b, "added foundry to %s\n", f.Path)
		case claude.Kept:
			if _, err := fmt.Fprintf(env.stderr, "foundry: %s: %s\n", f.Path, f.Note); err != nil {
				return err
			}
			continue
		default:
			continue
		}
		changed = true
	}
	if !changed {
		fmt.Fprintf(&b, "%s is already initialised; nothing changed\n", rep.Root)
	}
	_, err := io.WriteString(env.stdout, b.String())
	return err
}
