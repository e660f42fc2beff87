package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/gcpace"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
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
	listen    string
	rpcTrace  bool
}

func newMCPCommand(env *cliEnv) *cli.Command {
	opts := &mcpOptions{}
	tokenScopes := cli.NewStringSlice()
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
				Usage:     "serve MCP over stdio (newline-delimited JSON-RPC 2.0) or, as a daemon, over HTTP",
				ArgsUsage: " ",
				Description: `Reads JSON-RPC 2.0 requests, one per line, on stdin and writes the
responses and notifications, one per line, on stdout; stdout carries the
protocol alone. Logs go to stderr, or to --log-file; --rpc-trace logs every
message read and written. The server exits 0 once stdin ends and the
requests in flight are answered.

Both eras of MCP are served on one connection: a request whose _meta
names protocol revision 2026-07-28 (and carries the client's capabilities,
an object, as that revision asks of every request) is answered statelessly
by that revision (server/discover, resultType and serverInfo on every
result, cache hints on lists and reads); initialize negotiates 2025-11-25
or 2025-06-18 for the clients of the handshake era.

Tools: memory_search, memory_write, memory_index, runbook_list,
runbook_get, contract_validate, blackboard_write, blackboard_read,
token_report and doctor. Resources: foundry://memory/index,
foundry://contracts, foundry://runbooks/<slug>, and the templates
foundry://runbooks/{slug}, foundry://contracts/{id},
foundry://memory/facts/{id} and foundry://blackboard/{wave}/{agent}.

With --rev REV (or --staged) the server serves a read-only view of that
revision, resolved when it starts (or of the index as staged then): the
tools that write are not listed.

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
--rev and --staged, when the server starts: restart it (the daemon too)
to apply a change. The daemon's tokens are the exception: it follows them
as the config and the token file change, so a token made (foundry mcp
token new) or revoked (foundry mcp token revoke) applies from the next
request, and a revoked token's sessions end.

With --transport http the server runs as a daemon that several agents
share: MCP's Streamable HTTP transport (revision 2025-11-25, and
2026-07-28 without sessions) on http://ADDR/mcp, ADDR from --listen, else
mcp.http.listen, else 127.0.0.1:7391; GET /healthz answers supervisors.
All sessions share one warm project state. Requests need a bearer token
(Authorization: Bearer TOKEN): the tokens are those of mcp.http.tokens
(made by foundry mcp token new), of the file mcp.http.token_file (outside
the worktree, mode 0600: a YAML or JSON list of the same {name, scopes,
sha256} entries, sha256 the hex SHA-256 of the token, which foundry never
writes) and FOUNDRY_MCP_TOKEN for one run. A token's scopes narrow the
server's. A read-only daemon on loopback may run without tokens. Beyond
loopback the daemon needs tokens and TLS (mcp.http.tls {cert, key}), else
it refuses to start. Host and Origin are checked (403;
mcp.http.allowed_origins lists the Origins accepted besides the daemon's
own loopback ones), bodies over 8 MiB refused (413); max_concurrency and
rate_limit apply per token, mcp.http {max_concurrency, rate_limit} to all
clients together. One daemon serves a project: a second start says where
the first listens (.foundry/run/mcp-http.json). SIGINT or SIGTERM stops
it gracefully: requests in flight are answered, then it exits 0.

EXIT STATUS:
   0  stdin ended and every request was answered, or the client closed
      its end of stdout, which ends the session as stdin's end does (the
      answers it would not read are dropped, logged on stderr); HTTP:
      stopped by a signal after answering the requests in flight
   1  the server is not enabled in the config, the project or its config
      cannot be read, or the audit log cannot be opened; over HTTP also:
      a daemon already serves the project, the address cannot be bound,
      or the security rules refuse the configuration
   2  malformed command line
   130  interrupted`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "transport", Value: "stdio", Usage: "the `TRANSPORT` to serve on: stdio or http", Destination: &opts.transport},
					&cli.StringFlag{Name: "listen", Usage: "with --transport http, the `ADDR` (host:port) to listen on", Destination: &opts.listen},
					&cli.BoolFlag{Name: "rpc-trace", Usage: "log every JSON-RPC message read and written", Destination: &opts.rpcTrace},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("mcp serve takes no arguments")
					}
					if opts.transport != "stdio" && opts.transport != "http" {
						return usageErrorf("--transport %q: want stdio or http", opts.transport)
					}
					if opts.listen != "" {
						_, port, err := net.SplitHostPort(opts.listen)
						if err != nil {
							return usageErrorf("--listen %q: want HOST:PORT, e.g. 127.0.0.1:7391", opts.listen)
						}
						// A port out of range or no service name is as malformed
						// as a missing one: refused here, not by the bind.
						if _, err := net.LookupPort("tcp", port); err != nil {
							return usageErrorf("--listen %q: port %q is not a port number from 0 to 65535", opts.listen, port)
						}
						if opts.transport != "http" {
							return usageErrorf("--listen needs --transport http")
						}
					}
					return runMCPServe(c.Context, env, opts)
				},
			},
			{
				Name:      "capabilities",
				Usage:     "list every tool, resource and resource template, and whether this project's server exposes it",
				ArgsUsage: " ",
				Description: `Prints the capability catalog of foundry mcp serve: for each tool, fixed
resource and resource template its stable name, version, scope,
classification (read-only or mutating) and whether the server configured
by the mcp block of .foundry/config.yaml exposes it here, and why not
(the server is not enabled, read-only mode, a scope not listed, a
capability switched off in mcp.capabilities). --json adds every registry
field: the input and output schemas, audit category, timeout, result-size
limit, default-enabled state, owning plugin and the tool annotations.

EXIT STATUS:
   0  ok
   1  no project, or the config cannot be read
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("mcp capabilities takes no arguments")
					}
					return runMCPCapabilities(env)
				},
			},
			{
				Name:  "token",
				Usage: "manage the bearer tokens of the HTTP daemon",
				Subcommands: []*cli.Command{
					{
						Name:      "new",
						Usage:     "make a bearer token, print it once and store its hash",
						ArgsUsage: "NAME",
						Description: `Makes a random bearer token for foundry mcp serve --transport http,
prints it on stdout (this is the only time it is shown: keep it in the
client's secret store, or pass it in FOUNDRY_MCP_TOKEN) and stores its
name, its scopes and its SHA-256 in mcp.http.tokens of ` + config.Path + `.
The token itself is never written to the project. A daemon already
running accepts it from its next request.

--scope (repeatable, or comma-separated) narrows what the token's
sessions may use to those scopes, within the server's own: a read-only
token for a reviewer agent beside a read-write one. Without --scope the
token may use every scope the server enables.

EXIT STATUS:
   0  the token was made and its hash stored
   1  a token of that name exists, or the config cannot be read or written
   2  malformed command line, including a NAME or --scope of the wrong form`,
						Flags: []cli.Flag{
							&cli.StringSliceFlag{Name: "scope", Usage: "a `SCOPE` the token may use; repeat or separate with commas", Destination: tokenScopes},
						},
						Action: func(c *cli.Context) error {
							if c.NArg() != 1 {
								return usageErrorf("mcp token new takes one NAME")
							}
							if name := c.Args().First(); !config.ValidTokenName(name) {
								return usageErrorf("token name %q: a name is 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit", name)
							}
							for _, sc := range tokenScopes.Value() {
								if !slices.Contains(mcp.Scopes, sc) {
									return usageErrorf("--scope %q: want one of %s", sc, strings.Join(mcp.Scopes, ", "))
								}
							}
							if err := env.refuseSource("mcp token new"); err != nil {
								return err
							}
							return runMCPTokenNew(c.Context, env, c.Args().First(), tokenScopes.Value())
						},
					},
					{
						Name:      "list",
						Usage:     "list the HTTP daemon's bearer tokens by name",
						ArgsUsage: " ",
						Description: `Prints one token a line: its name, its scopes ("all" for a token that
may use every scope the server enables, "none" for one written with an
empty list) and the file that holds it,
` + config.Path + ` (mcp.http.tokens) or the token file that
mcp.http.token_file names. Only hashes are stored, so no token is shown;
a FOUNDRY_MCP_TOKEN given to a daemon is not listed. --json prints
{"tokens": [{name, scopes, source}]}, scopes left out for "all", [] for
"none".

EXIT STATUS:
   0  ok, also when no token is configured
   1  no project, or the config or the token file cannot be read
   2  malformed command line`,
						Action: func(c *cli.Context) error {
							if c.NArg() > 0 {
								return usageErrorf("mcp token list takes no arguments")
							}
							if err := env.refuseSource("mcp token list"); err != nil {
								return err
							}
							return runMCPTokenList(env)
						},
					},
					{
						Name:      "revoke",
						Usage:     "remove a bearer token: the daemon refuses it from its next request",
						ArgsUsage: "NAME",
						Description: `Removes the token NAME from mcp.http.tokens of ` + config.Path + `,
keeping the rest of the file as it is. A daemon serving the project
follows its tokens as the config and the token file change: from its next
request on it refuses the token, and it ends the token's sessions. A
token of the token file (mcp.http.token_file) is not removed, as foundry
never writes that file: the error says so, and removing its entry there
revokes it the same way.

EXIT STATUS:
   0  the token was removed
   1  no token of that name, a token of the token file, or the config
      cannot be read or written
   2  malformed command line`,
						Action: func(c *cli.Context) error {
							if c.NArg() != 1 {
								return usageErrorf("mcp token revoke takes one NAME")
							}
							if err := env.refuseSource("mcp token revoke"); err != nil {
								return err
							}
							return runMCPTokenRevoke(c.Context, env, c.Args().First())
						},
					},
				},
			},
		},
	}
}

// serverConfig returns the mcp block that governs a server of p: the
// working tree's, even when the project is served at a revision.
// Its scope and capability names are held to the ones this build serves.
func serverConfig(p *project.Project) (config.MCP, error) {
	fsys := p.FS
	switch {
	case p.Writable() && !p.Config.MCP.UnknownNames():
		return p.Config.MCP, nil // read already; read again only to locate a name
	case !p.Writable():
		fsys = confined.OpenFS(p.Root)
	}
	wt, err := config.LoadChecked(fsys)
	if err != nil {
		return config.MCP{}, err
	}
	return wt.MCP, nil
}

func runMCPCapabilities(env *cliEnv) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	cfg, err := serverConfig(p)
	if err != nil {
		return err
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: env.logger, ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = reg.Close() }()
	cat, err := mcp.ConfigCatalog(cfg, reg, p.Writable())
	if err != nil {
		return err
	}
	if env.json {
		return env.printJSON(struct {
			Capabilities []mcp.Capability `json:"capabilities"`
		}{cat})
	}
	_, err = io.WriteString(env.stdout, capabilityTables(cat))
	return err
}

// capabilityTables renders the catalog as seed 003's tables: the tools,
// the resources and the resource templates.
func capabilityTables(cat []mcp.Capability) string {
	var b strings.Builder
	for _, kind := range []struct{ kind, title, head string }{
		{mcp.KindTool, "Tools", "| Tool | Version | Scope | Classification | Enabled here |\n|---|---|---|---|---|\n"},
		{mcp.KindResource, "Resources", "| URI | Version | Scope | Classification | Enabled here |\n|---|---|---|---|---|\n"},
		{mcp.KindTemplate, "Resource templates", "| URI template | Version | Scope | Classification | Enabled here |\n|---|---|---|---|---|\n"},
	} {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(kind.title + "\n\n" + kind.head)
		for _, c := range cat {
			if c.Kind != kind.kind {
				continue
			}
			on := "yes"
			if !c.Enabled {
				on = "no: " + c.Why
			}
			name := c.Name
			if c.Plugin != "" {
				name += " (plugin " + c.Plugin + ")"
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", name, c.Version, c.Scope, c.Classification, on)
		}
	}
	return b.String()
}

func runMCPServe(ctx context.Context, env *cliEnv, opts *mcpOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	cfg, err := serverConfig(p)
	if err != nil {
		return err
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
		defer func() { _ = closeAudit() }()
		o.Audit = w
		o.AuditWritesOnly = !cfg.Audit
	}
	// A server runs until its client signals it: the signal must find
	// the subscription in place, which the set-up above has overlapped.
	awaitSignals(ctx)
	// A lock held by a stuck process would hold a call without a word.
	// The holder may be another call of this server, too.
	ctx = confined.WithLockWait(ctx, func(path string) {
		env.logger.Warn("waiting for a held lock", "path", path)
	})
	if opts.transport == "http" {
		listen := opts.listen
		if listen == "" {
			listen = effectiveHTTP(cfg.HTTP).Listen // as foundry config prints it
		}
		worktree, err := projectWorktree(p)
		if err != nil {
			return err
		}
		// With --rev or --staged the project has no confined root of its
		// own; the daemon's runtime files still go to the working tree.
		files := p.Files
		if files == nil {
			if files, err = confined.Open(p.Root); err != nil {
				return err
			}
			defer files.Close()
		}
		defer gcpace.Bound(gcpace.ServerPercent)()
		return mcp.RunDaemon(ctx, mcp.DaemonOptions{
			Root: files, Worktree: worktree, Listen: listen, Server: o, HTTP: cfg.HTTP,
			EnvToken: os.Getenv(mcp.EnvTokenName), Logger: env.logger,
		})
	}
	env.logger.Info("serving MCP on stdio", "root", p.Root, "source", p.Label(), "read_only", o.ReadOnly)
	// A client that closes its end of stdout ends the session like one
	// that closes stdin: writes then fail with EPIPE instead of the
	// process dying of SIGPIPE, in-flight writes finish, and the exit is
	// clean.
	signal.Ignore(syscall.SIGPIPE)
	out := &afterFirstWrite{w: env.stdout, endHold: gcpace.Hold()}
	defer out.end()
	err = mcp.Serve(ctx, env.stdin, out, o)
	if errors.Is(err, syscall.EPIPE) {
		env.logger.Info("client closed the output stream; shutting down")
		return nil
	}
	return err
}

// afterFirstWrite is the server's output: it bounds the GC percent
// (gcpace.ServerPercent) once the first message is written. The server
// lives as long as its client's session, its memory index with it: its
// memory then follows the live heap instead of doubling it. Bounding it
// from the start would run a collection before the client's first answer:
// start-up leaves about 3 MB on the heap (most of it from the JSON Schema
// library's init, which compiles metaschemas), under the default first
// goal of 4 MB but over the bounded one.
//
// It also holds the pauses of collection that a first load ends (see
// gcpace.Linger) until the next message is written: the answer to the
// request that loaded is out before a collection marks what it built.
type afterFirstWrite struct {
	w       io.Writer
	once    sync.Once
	mu      sync.Mutex
	restore func()
	endHold func()
	done    bool
}

// Write writes p, resumes collection where a load paused it, then bounds
// the GC percent if this is the first write.
func (a *afterFirstWrite) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	gcpace.Release()
	a.once.Do(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if !a.done {
			a.restore = gcpace.Bound(gcpace.ServerPercent)
		}
	})
	return n, err
}

// end ends the hold and the bound at the end of the session, and keeps a
// later first write from setting one.
func (a *afterFirstWrite) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done = true
	if a.endHold != nil {
		a.endHold()
	}
	if a.restore != nil {
		a.restore()
	}
}

// runMCPTokenNew makes a token and prints it once.
func runMCPTokenNew(ctx context.Context, env *cliEnv, name string, scopes []string) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	if len(scopes) == 0 {
		scopes = nil
	}
	token, err := mcp.NewToken(ctx, p.Files, name, scopes)
	if err != nil {
		return err
	}
	if env.json {
		// Without --scope the token has no scopes of its own (it may use
		// every scope the server enables): the key is left out, not null.
		return env.printJSON(struct {
			Name   string   `json:"name"`
			Scopes []string `json:"scopes,omitempty"`
			Token  string   `json:"token"`
		}{name, scopes, token})
	}
	fmt.Fprintln(env.stdout, token)
	fmt.Fprintf(env.stderr, "token %s stored as a hash in %s; it is shown only this once\n", name, config.Path)
	return nil
}

func runMCPTokenList(env *cliEnv) error {
	p, worktree, err := openWithWorktree(env)
	if err != nil {
		return err
	}
	tokens, err := mcp.ListTokens(p.Files, worktree)
	if err != nil {
		return err
	}
	if env.json {
		return env.printJSON(struct {
			Tokens []mcp.TokenEntry `json:"tokens"`
		}{tokens})
	}
	nameWidth, scopesWidth := 0, 0
	scopes := make([]string, len(tokens))
	for i, t := range tokens {
		switch {
		case t.Scopes == nil:
			scopes[i] = "all"
		case len(t.Scopes) == 0:
			scopes[i] = "none" // scopes: [], as written
		default:
			scopes[i] = strings.Join(t.Scopes, ",")
		}
		nameWidth, scopesWidth = max(nameWidth, len(t.Name)), max(scopesWidth, len(scopes[i]))
	}
	var b strings.Builder
	for i, t := range tokens {
		fmt.Fprintf(&b, "%-*s  %-*s  %s\n", nameWidth, t.Name, scopesWidth, scopes[i], t.Source)
	}
	if len(tokens) == 0 {
		fmt.Fprintln(env.stderr, "no tokens; make one with foundry mcp token new NAME")
	}
	_, err = io.WriteString(env.stdout, b.String())
	return err
}

func runMCPTokenRevoke(ctx context.Context, env *cliEnv, name string) error {
	p, worktree, err := openWithWorktree(env)
	if err != nil {
		return err
	}
	if err := mcp.RevokeToken(ctx, p.Files, worktree, name); err != nil {
		return err
	}
	url := mcp.RunningDaemon(p.Files)
	if env.json {
		return env.printJSON(struct {
			Name   string `json:"name"`
			Daemon string `json:"daemon,omitempty"`
		}{name, url})
	}
	fmt.Fprintf(env.stderr, "token %s removed from %s\n", name, config.Path)
	if url != "" {
		fmt.Fprintf(env.stderr, "the daemon at %s refuses it from its next request and ends its sessions\n", url)
	}
	return nil
}

// openWithWorktree opens the project and finds its worktree (see
// projectWorktree), for the token commands, which read the token file
// only from outside it.
func openWithWorktree(env *cliEnv) (*project.Project, string, error) {
	p, err := env.open()
	if err != nil {
		return nil, "", err
	}
	worktree, err := projectWorktree(p)
	return p, worktree, err
}

// projectWorktree returns the top of the git working tree that holds p,
// or p's root outside git: the place a secret file must not lie in.
func projectWorktree(p *project.Project) (string, error) {
	repo, _, err := p.Git()
	if err != nil && !errors.Is(err, git.ErrUnsupportedFormat) {
		return "", err
	}
	if repo != nil {
		return repo.Root(), nil
	}
	return p.Root, nil
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
