package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/project"
	"github.com/foundryhq/foundry/tokens"
)

type memoryOptions struct {
	// search
	query string
	limit int
	// search, list
	typ string
	all bool
	// show, retire
	id     string
	reason string
	// write
	req      facts.WriteRequest
	body     string
	bodyFile string
	tags     *cli.StringSlice

	json           bool
	stdin          io.Reader
	stdout, stderr io.Writer
}

func newMemoryCommand(env *cliEnv) *cli.Command {
	opts := &memoryOptions{tags: cli.NewStringSlice()}
	bind := func() { opts.json, opts.stdin, opts.stdout, opts.stderr = env.json, env.stdin, env.stdout, env.stderr }
	return &cli.Command{
		Name:  "memory",
		Usage: "search, write and index project facts (.foundry/memory/)",
		Description: `Project memory is one fact a file under .foundry/memory/, summarised in a
token-budgeted INDEX.md. Agents search it instead of loading memory files.
search, index, show and list read the working tree, or --staged / --rev REV;
write, retire and the index rebuild only ever write to the working tree.

EXIT STATUS:
   0  ok
   1  a fact breaks a memory rule or holds a secret (nothing written), an
      unknown fact, or a file error
   2  malformed command line`,
		Subcommands: []*cli.Command{
			{
				Name:      "search",
				Usage:     "rank the active facts against keywords",
				ArgsUsage: "<query...>",
				Description: `Ranks active facts (not superseded, not expired) with BM25 over title,
tags and body, case-folded and stemmed, and prints one block per hit:

   ### fact-0004 · decision · confidence high
   **Persistence layer uses Flyway, not Liquibase**
   Chosen for the plain-SQL migration format the team already reads.
   _source: adr-0007 · scope: project_

or 'No stored fact matches "<query>". Memory holds N active facts.'
--limit defaults to memoryRetrieval.maxFacts (8). With --json, the hits
as data.

EXIT STATUS:
   0  ok, with or without hits
   1  the facts cannot be read
   2  malformed command line: no query, a limit outside 1–25, an unknown or
      empty type`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "type", Usage: "only facts of this `TYPE` (decision, constraint, convention, domain, risk, metric, glossary)", Destination: &opts.typ},
					&cli.IntFlag{Name: "limit", Usage: "at most `N` hits, 1–25 (default: memoryRetrieval.maxFacts)", Destination: &opts.limit},
				},
				Action: func(c *cli.Context) error {
					bind()
					opts.query = strings.Join(c.Args().Slice(), " ")
					if strings.TrimSpace(opts.query) == "" {
						return usageErrorf("memory search needs a query")
					}
					if err := checkTypeFilter(c, opts.typ); err != nil {
						return err
					}
					if !c.IsSet("limit") {
						opts.limit = 0
					} else if opts.limit < 1 || opts.limit > facts.MaxLimit {
						return usageErrorf("--limit %d is out of range; use 1 to %d", opts.limit, facts.MaxLimit)
					}
					return runMemorySearch(c.Context, env, opts)
				},
			},
			{
				Name:      "write",
				Usage:     "store one durable fact",
				ArgsUsage: " ",
				Description: `Stores one atomic durable fact as .foundry/memory/fact-NNNN-<slug>.md and
rebuilds INDEX.md, under a lock shared with every other writer. Prints

   created: fact-0016 (supersedes fact-0009)
   Index: 13/16 facts listed, ~1980 tokens, 3 omitted over budget.

or "unchanged: fact-0009 already states this" when an active fact of the
same type and scope already says the same. The same title with a new body,
or with another --confidence, --source, --tag set or --expires than the
fact holds, supersedes the old fact; a similar title adds a warning on
stderr naming the similar fact: writing the same fact again with
--supersedes fact-NNNN then links the two.

Rules: the title states the fact, not a topic, in at least 3 words and at
most 80 characters; the body has at most 120 words and 900 characters, and
for decision and risk a "Why:" and a "How to apply:" line; scope is project,
module:<name> or vertical:<name>; confidence high, medium or low; source
adr-NNNN, conversation, code or external:<url>; expires a real YYYY-MM-DD
date. A fact that holds a secret (private key, access token, API key,
password, credentials in a URL) is refused. Every broken rule is reported at
once, and a broken rule writes nothing. Never with --rev or --staged.

EXIT STATUS:
   0  created or unchanged
   1  a content rule is broken (title, body, a past expiry) or a secret
      was found (nothing written), or a file error
   2  malformed command line: a flag value empty or of the wrong form (type,
      scope, confidence, source, tag, expires, supersedes), or --rev/--staged`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "title", Usage: "the fact itself as one `TEXT` line, at most 80 characters (required)", Destination: &opts.req.Title},
					&cli.StringFlag{Name: "type", Usage: "one `TYPE` of decision, constraint, convention, domain, risk, metric or glossary (required)", Destination: (*string)(&opts.req.Type)},
					&cli.StringFlag{Name: "body", Usage: "the fact's `TEXT`, at most 120 words (required, or --body-file)", Destination: &opts.body},
					&cli.StringFlag{Name: "body-file", Usage: "read the body from `FILE` (- for stdin)", Destination: &opts.bodyFile},
					&cli.StringFlag{Name: "scope", Usage: "the `SCOPE`: project, module:<name> or vertical:<name> (default: project)", Destination: &opts.req.Scope},
					&cli.StringSliceFlag{Name: "tag", Usage: "a `TAG`; repeat or separate with commas", Destination: opts.tags},
					&cli.StringFlag{Name: "confidence", Usage: "the `LEVEL`: high, medium or low (default: medium)", Destination: (*string)(&opts.req.Confidence)},
					&cli.StringFlag{Name: "source", Usage: "the `SOURCE`: adr-NNNN, conversation, code or external:<url> (default: conversation)", Destination: &opts.req.Source},
					&cli.StringFlag{Name: "expires", Usage: "stop loading the fact after `YYYY-MM-DD`", Destination: &opts.req.Expires},
					&cli.StringFlag{Name: "supersedes", Usage: "the fact this one replaces, as `fact-NNNN`", Destination: &opts.req.Supersedes},
				},
				Action: func(c *cli.Context) error {
					bind()
					if c.NArg() > 0 {
						return usageErrorf("memory write takes no arguments; pass the fact with --title, --type and --body")
					}
					for _, name := range []string{"title", "type"} {
						if !c.IsSet(name) {
							return usageErrorf("memory write needs --%s", name)
						}
					}
					switch {
					case c.IsSet("body") && c.IsSet("body-file"):
						return usageErrorf("memory write takes --body or --body-file, not both")
					case !c.IsSet("body") && !c.IsSet("body-file"):
						return usageErrorf("memory write needs --body or --body-file")
					case c.IsSet("body-file") && opts.bodyFile == "":
						return usageErrorf("--body-file needs a FILE, or - for stdin")
					}
					// An empty value is an unset variable, not a choice:
					// taken as the flag left out, --supersedes "$PREV"
					// would write a fact that replaces nothing.
					for _, name := range []string{"scope", "confidence", "source", "expires", "supersedes"} {
						if c.IsSet(name) && c.String(name) == "" {
							return usageErrorf("--%s is empty; give it a value, or leave the flag out", name)
						}
					}
					opts.req.Tags = opts.tags.Value()
					if err := facts.CheckForm(opts.req); err != nil {
						// A value its flag's syntax rejects: a malformed line.
						return &usageError{err}
					}
					return runMemoryWrite(c.Context, env, opts)
				},
			},
			{
				Name:      "retire",
				Usage:     "mark a fact that no longer holds as retired",
				ArgsUsage: "<fact-NNNN>",
				Description: `Marks the fact as retired, with the reason: it no longer holds and nothing
replaces it (when something does, write the new fact with --supersedes).
The file stays in .foundry/memory/ with status retired and retiredReason,
so git keeps its history; search and INDEX.md leave it out, and memory list
--all shows it. Rebuilds INDEX.md under the memory lock. Prints

   retired: fact-0009 (the billing service was decommissioned)
   Index: 12/15 facts listed, ~1900 tokens.

Never with --rev or --staged.

EXIT STATUS:
   0  retired
   1  no fact has this id, it is already superseded or retired, or a
      file error
   2  malformed command line: an id not of the form fact-NNNN, no
      --reason, or --rev/--staged`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "reason", Usage: "why the fact no longer holds, as one `TEXT` line (required)", Destination: &opts.reason},
				},
				Action: func(c *cli.Context) error {
					bind()
					if c.NArg() != 1 {
						return usageErrorf("memory retire takes one fact id")
					}
					opts.id = c.Args().First()
					if !facts.ValidID(opts.id) {
						return usageErrorf("%q is not a fact id like fact-0004", opts.id)
					}
					if strings.TrimSpace(opts.reason) == "" {
						return usageErrorf("memory retire needs --reason: say why the fact no longer holds")
					}
					return runMemoryRetire(c.Context, env, opts)
				},
			},
			{
				Name:      "index",
				Usage:     "rebuild .foundry/memory/INDEX.md",
				ArgsUsage: " ",
				Description: `Rebuilds INDEX.md from the facts: one line per active fact, constraints
and decisions first, glossary last, higher confidence and newer first,
stopping at memory.indexBudgetTokens (4000) with a line saying how many
facts were omitted. The same facts always give the same bytes. Prints

   Rebuilt <path>
   13/16 facts listed, ~1980 tokens, 3 omitted.

With --rev or --staged nothing is written: the index those facts give is
printed instead.

EXIT STATUS:
   0  ok
   1  the facts cannot be read or the index cannot be written
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					bind()
					if c.NArg() > 0 {
						return usageErrorf("memory index takes no arguments")
					}
					return runMemoryIndex(c.Context, env, opts)
				},
			},
			{
				Name:      "show",
				Usage:     "print one fact",
				ArgsUsage: "<fact-NNNN>",
				Description: `Prints the fact file of the given id: front matter and body. With --json,
the fact as data, its status derived from both ends of a supersedes link.
When two fact files hold the id (a merge of branches that each wrote it),
the first by file name is printed and a warning on stderr names the others;
foundry doctor --fix renumbers them.

EXIT STATUS:
   0  ok
   1  no fact has this id
   2  malformed command line, including an id not of the form fact-NNNN`,
				Action: func(c *cli.Context) error {
					bind()
					if c.NArg() != 1 {
						return usageErrorf("memory show takes one fact id")
					}
					opts.id = c.Args().First()
					if !facts.ValidID(opts.id) {
						return usageErrorf("%q is not a fact id like fact-0004", opts.id)
					}
					return runMemoryShow(c.Context, env, opts)
				},
			},
			{
				Name:      "list",
				Usage:     "list facts, one line each",
				ArgsUsage: " ",
				Description: `Prints "fact-0004 · decision · high · 2025-03-14 · <title>" per active fact,
by id. --all adds superseded, retired and expired facts, marked as such.

EXIT STATUS:
   0  ok
   1  the facts cannot be read
   2  malformed command line, including an unknown or empty type`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "type", Usage: "only facts of this `TYPE`", Destination: &opts.typ},
					&cli.BoolFlag{Name: "all", Usage: "include superseded, retired and expired facts", Destination: &opts.all},
				},
				Action: func(c *cli.Context) error {
					bind()
					if c.NArg() > 0 {
						return usageErrorf("memory list takes no arguments")
					}
					if err := checkTypeFilter(c, opts.typ); err != nil {
						return err
					}
					return runMemoryList(c.Context, env, opts)
				},
			},
		},
	}
}

// checkTypeFilter checks the --type of memory search and list. An empty
// value is an unset variable, not a choice: taken as the flag left out,
// --type "$KIND" would list every fact and say nothing.
func checkTypeFilter(c *cli.Context, typ string) error {
	switch {
	case !c.IsSet("type"):
		return nil
	case typ == "":
		return usageErrorf("--type is empty; give it a value, or leave the flag out")
	case !facts.Type(typ).Valid():
		return usageErrorf("unknown type %q; use one of decision, constraint, convention, domain, risk, metric, glossary", typ)
	}
	return nil
}

func runMemorySearch(ctx context.Context, env *cliEnv, opts *memoryOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	res, err := memoryStore(env, p, false).Search(ctx, facts.Query{Text: opts.query, Type: facts.Type(opts.typ), Limit: opts.limit})
	if errors.Is(err, facts.ErrInvalid) {
		return &usageError{err}
	}
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(res)
	}
	_, err = io.WriteString(opts.stdout, res.Render())
	return err
}

func runMemoryWrite(ctx context.Context, env *cliEnv, opts *memoryOptions) error {
	p, err := env.openWritable()
	if err != nil {
		return err
	}
	body := opts.body
	if opts.bodyFile != "" {
		b, err := readBody(ctx, opts.bodyFile, env.path(opts.bodyFile), opts.stdin, opts.stderr)
		if err != nil {
			return err
		}
		body = string(b)
	}
	req := opts.req
	req.Body = body
	res, err := memoryStore(env, p, true).Write(ctx, req)
	if err != nil {
		return err
	}
	// The library's warnings speak to agents; a person gets the flag.
	res.Warnings = nil
	for _, f := range res.Similar {
		res.Warnings = append(res.Warnings, fmt.Sprintf("warning: similar to %s %q; if %s replaces it, run the same write again with --supersedes %s", f.ID, f.Title, res.ID, f.ID))
	}
	if res.MoreSimilar > 0 {
		res.Warnings = append(res.Warnings, facts.MoreSimilarWarning(res.MoreSimilar))
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(opts.stderr, w)
	}
	if opts.json {
		return env.printJSON(res)
	}
	_, err = fmt.Fprintln(opts.stdout, res.String())
	return err
}

func runMemoryRetire(ctx context.Context, env *cliEnv, opts *memoryOptions) error {
	p, err := env.openWritable()
	if err != nil {
		return err
	}
	res, err := memoryStore(env, p, true).Retire(ctx, opts.id, opts.reason)
	if errors.Is(err, facts.ErrNotFound) {
		return withHint(err, "list the facts with `foundry memory list --all`")
	}
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(res)
	}
	_, err = fmt.Fprintf(opts.stdout, "retired: %s (%s)\n%s\n", res.ID, res.Reason, res.Index.WriteSummary())
	return err
}

// memoryIndexJSON is the --json answer of memory index.
type memoryIndexJSON struct {
	Path    string `json:"path"`
	Written bool   `json:"written"`
	facts.IndexResult
	Summary string `json:"summary"`
	Content string `json:"content,omitempty"`
}

func runMemoryIndex(ctx context.Context, env *cliEnv, opts *memoryOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	store := memoryStore(env, p, false)
	if !store.Writable() {
		res, err := store.Index(ctx)
		if err != nil {
			return err
		}
		if opts.json {
			return env.printJSON(memoryIndexJSON{Path: facts.IndexPath, IndexResult: res, Summary: res.Summary(), Content: string(res.Content)})
		}
		_, err = opts.stdout.Write(res.Content)
		return err
	}
	res, err := store.RebuildIndex(ctx)
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(memoryIndexJSON{Path: facts.IndexPath, Written: true, IndexResult: res, Summary: res.Summary()})
	}
	_, err = fmt.Fprintf(opts.stdout, "Rebuilt %s\n%s\n", store.IndexFile(), res.Summary())
	return err
}

func runMemoryShow(ctx context.Context, env *cliEnv, opts *memoryOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	all, err := memoryStore(env, p, false).GetAll(ctx, opts.id)
	if errors.Is(err, facts.ErrNotFound) {
		return withHint(err, "list the facts with `foundry memory list --all`")
	}
	if err != nil {
		return err
	}
	f := all[0]
	if len(all) > 1 {
		paths := make([]string, len(all))
		for i, g := range all {
			paths[i] = g.Path
		}
		fmt.Fprintf(opts.stderr, "warning: %d fact files hold %s (%s); this is the first. `foundry doctor --fix` renumbers the others\n", len(all), f.ID, strings.Join(paths, ", "))
	}
	if opts.json {
		return env.printJSON(f)
	}
	_, err = opts.stdout.Write(facts.Format(f))
	return err
}

func runMemoryList(ctx context.Context, env *cliEnv, opts *memoryOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	store := memoryStore(env, p, false)
	list, err := store.List(ctx, facts.ListOptions{Type: facts.Type(opts.typ), All: opts.all})
	if err != nil {
		return err
	}
	if opts.json {
		if list == nil {
			list = []facts.Fact{}
		}
		return env.printJSON(struct {
			Facts []facts.Fact `json:"facts"`
		}{list})
	}
	if len(list) == 0 {
		_, err = fmt.Fprintln(opts.stdout, "No facts.")
		return err
	}
	today := store.Today()
	var b strings.Builder
	for _, f := range list {
		b.WriteString(facts.ListLine(f, today) + "\n")
	}
	_, err = io.WriteString(opts.stdout, b.String())
	return err
}

// memoryStore is the fact store of p, warning on stderr. Only a write
// records its event in the project's event log: a read from the CLI records
// none, so foundry tokens reports what agents used over MCP, and a read
// writes nothing but the search cache, when it finds it stale.
func memoryStore(env *cliEnv, p *project.Project, write bool) *facts.Store {
	opts := facts.Options{Warn: env.stderr}
	if write {
		opts.Events = tokens.NewLog(p.Root, env.logger)
	}
	return facts.Open(p, opts)
}

// maxBodyBytes bounds what --body-file reads: far above the 900-character
// rule, so the rule's own message reports an over-long body.
const maxBodyBytes = 1 << 20

// readBody reads a fact body from the file name, osPath once resolved
// against -C, or stdin for "-".
func readBody(ctx context.Context, name, osPath string, stdin io.Reader, stderr io.Writer) ([]byte, error) {
	r, label := stdin, "stdin"
	if name == "-" {
		promptTerminal(stdin, stderr, "the fact's body", "or pass --body TEXT")
	} else {
		f, err := openFlagFile(name, osPath)
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
		defer f.Close()
		r, label = f, name
	}
	b, err := readAll(ctx, r, maxBodyBytes+1)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read body from %s: %w", label, err)
	case len(b) > maxBodyBytes:
		return nil, fmt.Errorf("read body from %s: more than %d bytes", label, maxBodyBytes)
	}
	return b, nil
}
