package main

import (
	"context"
	"errors"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/runbooks"
)

type runbookOptions struct {
	slug    string
	title   string // new
	trigger string // new
	json    bool
	stdout  io.Writer
}

func newRunbookCommand(env *cliEnv) *cli.Command {
	opts := &runbookOptions{}
	return &cli.Command{
		Name:  "runbook",
		Usage: "list, read and create runbooks (.foundry/runbooks/<slug>.md)",
		Description: `A runbook is a markdown procedure with YAML front matter: a title and an
optional trigger saying when it applies. Agents consult runbook_list
before recurring or error-prone tasks. list and get read the working
tree, or --staged / --rev REV.

EXIT STATUS:
   0  ok
   1  unknown runbook, an existing runbook (new), or a file error
   2  malformed command line, including an invalid slug`,
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list the runbooks with their triggers",
				ArgsUsage: " ",
				Description: `Prints one entry per runbook, "- **<slug>** — <title>", with an indented
"trigger:" line when it has one. A runbook whose front matter cannot be
read is listed with a "warning:" line. With --json, {runbooks: [...]}.

EXIT STATUS:
   0  ok
   1  the runbooks cannot be read
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("runbook list takes no arguments")
					}
					opts.json, opts.stdout = env.json, env.stdout
					return runRunbookList(c.Context, env, opts)
				},
			},
			{
				Name:      "get",
				Usage:     "print a runbook's whole markdown",
				ArgsUsage: "<slug>",
				Description: `Prints .foundry/runbooks/<slug>.md verbatim. A slug is [a-z0-9][a-z0-9-]*;
anything else is refused before any file is read. An unknown slug is an
error listing the available ones. A read from the command line records no
event: foundry tokens counts the runbook_get calls agents make over MCP.

EXIT STATUS:
   0  ok
   1  unknown runbook
   2  malformed command line, including an invalid slug`,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("runbook get takes one slug")
					}
					opts.slug, opts.json, opts.stdout = c.Args().First(), env.json, env.stdout
					return runRunbookGet(c.Context, env, opts)
				},
			},
			{
				Name:      "new",
				Usage:     "write a new runbook from the template",
				ArgsUsage: "<slug>",
				Description: `Writes .foundry/runbooks/<slug>.md with the given title and trigger and
a short template of steps to fill in; foundry doctor warns about a runbook
that still holds the template's blanks. Both --title and --trigger are
required: agents must follow a runbook when its trigger matches. The slug
is lowercase letters, digits and dashes, starting with a letter or digit,
and the slug and the title are at most 80 characters each. Never
overwrites a runbook; never writes with --rev or --staged.

EXIT STATUS:
   0  written
   1  the runbook exists, or the file cannot be written
   2  malformed command line, including an invalid slug, title or
      trigger`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "title", Usage: "the runbook's `TITLE` (required, one line)", Destination: &opts.title},
					&cli.StringFlag{Name: "trigger", Usage: "when the runbook applies, as `TEXT` such as \"deploy, release to prod\" (required)", Destination: &opts.trigger},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("runbook new takes one slug")
					}
					for _, f := range []string{"title", "trigger"} {
						if !c.IsSet(f) {
							return usageErrorf("runbook new needs --%s: agents choose a runbook by its title and trigger", f)
						}
					}
					opts.slug, opts.json, opts.stdout = c.Args().First(), env.json, env.stdout
					return runRunbookNew(c.Context, env, opts)
				},
			},
		},
	}
}

func runRunbookList(ctx context.Context, env *cliEnv, opts *runbookOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	l, err := runbooks.Open(p.FS, runbooks.Options{}).List(ctx)
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(l)
	}
	_, err = io.WriteString(opts.stdout, l.Text())
	return err
}

func runRunbookGet(ctx context.Context, env *cliEnv, opts *runbookOptions) error {
	if err := runbooks.CheckSlug(opts.slug); err != nil {
		return &usageError{err}
	}
	p, err := env.open()
	if err != nil {
		return err
	}
	// A read from the CLI records no usage event: foundry tokens reports
	// what agents used over MCP.
	book := runbooks.Open(p.FS, runbooks.Options{})
	doc, err := book.Get(ctx, opts.slug)
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(doc)
	}
	_, err = io.WriteString(opts.stdout, doc.Text())
	return err
}

func runRunbookNew(ctx context.Context, env *cliEnv, opts *runbookOptions) error {
	p, err := env.openWritable()
	if err != nil {
		return err
	}
	book := runbooks.Open(p.FS, runbooks.Options{Root: p.Root})
	res, err := book.Create(ctx, runbooks.NewRunbook{Slug: opts.slug, Title: opts.title, Trigger: opts.trigger})
	if errors.Is(err, runbooks.ErrInvalidSlug) || errors.Is(err, runbooks.ErrInvalidRunbook) {
		return &usageError{err}
	}
	if errors.Is(err, runbooks.ErrExists) {
		return withHint(err, "pick another slug, or edit the existing runbook")
	}
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(res)
	}
	_, err = io.WriteString(opts.stdout, res.Text())
	return err
}
