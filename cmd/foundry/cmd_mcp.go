package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/tokens"
)

// auditPath is the audit log of `foundry mcp serve` (config mcp.audit),
// relative to the project root; it lives in the gitignored metrics folder.
const auditPath = tokens.MetricsDir + "/audit.jsonl"

// errMCPDisabled means the project's config turns the MCP server off.
var errMCPDisabled = errors.New("the MCP server is disabled (mcp.enabled: false in " + config.Path + ")")

type mcpOptions struct {
	transport string
	rpcTrace  bool
}

func newMCPCommand(env *cliEnv) *cli.Command {
	opts := &mcpOptions{}
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve Foundry's tools and resources to agents over MCP",
		Description: `Foundry speaks the Model Context Protocol so that agents reach project
memory, runbooks, contracts and the blackboard through tools instead of
reading files.

EXIT STATUS:
   0  the client closed the session
   1  the server is disabled or cannot start
   2  malformed command line`,
		Subcommands: []*cli.Command{
			{
				Name:      "serve",
				Usage:     "serve MCP over stdio (newline-delimited JSON-RPC 2.0)",
				ArgsUsage: " ",
				Description: `Reads JSON-RPC 2.0 requests, one per line, on stdin and writes the
responses and notifications, one per line, on stdout; stdout carries the
protocol alone. Logs go to stderr, or to --log-file; --rpc-trace logs every
message read and written. The server exits 0 once stdin ends and the
requests in flight are answered.

Tools: memory_search, memory_write, memory_index, runbook_list,
runbook_get, contract_validate, blackboard_write, blackboard_read,
token_report and doctor. Resources: foundry://memory/index,
foundry://contracts, foundry://runbooks/<slug>, and the templates
foundry://runbooks/{slug}, foundry://contracts/{id},
foundry://memory/facts/{id} and foundry://blackboard/{wave}/{agent}.

With --rev REV (or --staged) the server serves a read-only view of that
revision: the tools that write are not listed.

The mcp block of .foundry/config.yaml governs the server: enabled (false:
refuse to start), read_only (hide the tools that write), audit (one JSON
line per tool call and resource read in .foundry/metrics/audit.jsonl),
max_concurrency, rate_limit {requests_per_minute, burst} (requests over
the limits are rejected, not queued) and scopes (the capability scopes to
expose: read:memory, write:memory, read:runbooks, read:contracts,
read:blackboard, write:blackboard, read:ops). The mcp block is read from
the working tree's config, also with --rev and --staged.

EXIT STATUS:
   0  stdin ended and every request was answered
   1  the server is disabled in the config, the project or its config
      cannot be read, or the audit log cannot be opened
   2  malformed command line
   130  interrupted`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "transport", Value: "stdio", Usage: "the `TRANSPORT` to serve on; only stdio", Destination: &opts.transport},
					&cli.BoolFlag{Name: "rpc-trace", Usage: "log every JSON-RPC message read and written", Destination: &opts.rpcTrace},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("mcp serve takes no arguments")
					}
					if opts.transport != "stdio" {
						return usageErrorf("--transport %q: only stdio is supported", opts.transport)
					}
					return runMCPServe(c.Context, env, opts)
				},
			},
		},
	}
}

func runMCPServe(ctx context.Context, env *cliEnv, opts *mcpOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	// The mcp block governs this process, so it comes from the working
	// tree's config even when the project is served at a revision.
	cfg := p.Config.MCP
	if !p.Writable() {
		wt, err := config.Load(os.DirFS(p.Root))
		if err != nil {
			return err
		}
		cfg = wt.MCP
	}
	if !cfg.Enabled {
		return errMCPDisabled
	}
	readOnly := cfg.ReadOnly || !p.Writable()
	// Without the write:memory scope the server writes no memory either: the
	// memory index resource then renders a missing INDEX.md, not writes it.
	noMemoryWrites := readOnly || (cfg.Scopes != nil && !slices.Contains(cfg.Scopes, mcp.ScopeWriteMemory))
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: env.logger, ReadOnly: noMemoryWrites})
	if err != nil {
		return err
	}
	o := mcp.Options{
		Registry:          reg,
		Version:           currentVersion().Version,
		ReadOnly:          readOnly,
		Scopes:            cfg.Scopes,
		MaxConcurrency:    cfg.MaxConcurrency,
		RequestsPerMinute: cfg.RequestsPerMinute,
		Burst:             cfg.Burst,
		Logger:            env.logger,
	}
	if opts.rpcTrace {
		o.Trace = env.logger
	}
	if cfg.Audit {
		f, err := openAudit(p.Root)
		if err != nil {
			return err
		}
		defer f.Close()
		o.Audit = f
	}
	env.logger.Info("serving MCP on stdio", "root", p.Root, "source", p.Label(), "read_only", readOnly)
	return mcp.Serve(ctx, env.stdin, env.stdout, o)
}

// openAudit opens the audit log for appending, creating the metrics folder
// (never .foundry/ itself) when needed.
func openAudit(root string) (io.WriteCloser, error) {
	name := filepath.Join(root, filepath.FromSlash(auditPath))
	if err := os.Mkdir(filepath.Dir(name), 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	return f, nil
}
