package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/tokens"
)

// auditPath is the audit log of `foundry mcp serve` (config mcp.audit),
// relative to the project root; it lives in the gitignored metrics folder.
const auditPath = tokens.MetricsDir + "/audit.jsonl"

// optInHint tells how to enable the MCP server: the migration of `foundry
// init` or the block itself.
const optInHint = "run foundry init to add the commented opt-in to " + config.Path + ` (it changes no other key), or add:
mcp:
  enabled: true
  read_only: false   # with the write scopes below: agents may write
  scopes: [read:memory, write:memory, read:runbooks, read:contracts, read:blackboard, write:blackboard, read:ops]`

// mcpRefusal adds the hint that enables the server to a refusal of
// [mcp.ConfigOptions].
func mcpRefusal(err error) error {
	switch {
	case errors.Is(err, mcp.ErrNotDeclared):
		return withHint(err, optInHint)
	case errors.Is(err, mcp.ErrDisabled):
		return withHint(err, "set mcp.enabled: true in "+config.Path+" to serve")
	}
	return err
}

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

The mcp block of .foundry/config.yaml governs the server, secure by
default (seed 003): without the block, or without enabled: true, the
server refuses to start (foundry init adds the opt-in). read_only defaults
to true; scopes omitted means every read scope and no write scope, so a
tool that writes is exposed only with read_only: false and its scope
listed (write:memory: memory_write, memory_index; write:blackboard:
blackboard_write). audit: true writes one JSON line per tool call and
resource read to .foundry/metrics/audit.jsonl; with writes enabled the
calls that write are audited even when it is false. max_concurrency and
rate_limit {requests_per_minute, burst} bound the requests (over the
limits: rejected, not queued). The scopes are read:memory, write:memory,
read:runbooks, read:contracts, read:blackboard, write:blackboard and
read:ops. The mcp block is read from the working tree's config, also with
--rev and --staged.

EXIT STATUS:
   0  stdin ended and every request was answered
   1  the server is not enabled in the config, the project or its config
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
		wt, err := config.Load(confined.OpenFS(p.Root))
		if err != nil {
			return err
		}
		cfg = wt.MCP
	}
	if err := mcp.CheckEnabled(cfg); err != nil {
		return mcpRefusal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: env.logger, ReadOnly: !mcp.WritesMemory(cfg, p.Writable()), WatchMemory: true})
	if err != nil {
		return err
	}
	defer func() { _ = reg.Close() }()
	o, err := mcp.ConfigOptions(cfg, reg, p.Writable())
	if err != nil {
		return mcpRefusal(err)
	}
	o.Version = currentVersion().Version
	o.Logger = env.logger
	if opts.rpcTrace {
		o.Trace = env.logger
	}
	// Calls that write are audited whatever mcp.audit says.
	if cfg.Audit || o.WritesEnabled() {
		w, closeAudit, err := openAudit(p.Root)
		if err != nil {
			return err
		}
		defer closeAudit()
		o.Audit = w
		o.AuditWritesOnly = !cfg.Audit
	}
	env.logger.Info("serving MCP on stdio", "root", p.Root, "source", p.Label(), "read_only", o.ReadOnly)
	return mcp.Serve(ctx, env.stdin, env.stdout, o)
}

// openAudit returns the audit log: every write one capped append (see
// [confined.Root.Append]) to .foundry/metrics/audit.jsonl, following no
// symbolic link and creating the metrics folder (never .foundry/ itself)
// when needed.
func openAudit(root string) (io.Writer, func() error, error) {
	r, err := confined.Open(root)
	if err != nil {
		return nil, nil, fmt.Errorf("open audit log: %w", err)
	}
	if err := r.NoFollow(auditPath); err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("open audit log: %w", err)
	}
	return r.LogWriter(auditPath, confined.LogMax), r.Close, nil
}
