package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/tokens"
)

type tokensOptions struct {
	json   bool
	stdout io.Writer
}

func newTokensCommand(env *cliEnv) *cli.Command {
	opts := &tokensOptions{}
	return &cli.Command{
		Name:      "tokens",
		Usage:     "report what memory and the blackboard cost in tokens",
		ArgsUsage: " ",
		Description: `Measures, from the files: the memory index (.foundry/memory/INDEX.md)
against memory.indexBudgetTokens, the fact files, the blackboard artifacts,
and the events recorded in .foundry/metrics/events.jsonl (gitignored, so
always the working tree's). Ends with what loading all facts and artifacts
eagerly would cost per session against the index-first path. A file's
tokens are estimated as its bytes divided by 4, rounded up. With --rev or
--staged the files are measured there. A file or folder that is a symbolic
link out of the project, one that cannot be followed (a loop, a path
through a file, a target too long), or a fact or artifact name that leads
to a folder, is not read: it is left out of the figures and named on a
"Not measured" line (in --json, "refused").

EXIT STATUS:
   0  ok
   1  the project cannot be read
   2  malformed command line`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("tokens takes no arguments")
			}
			opts.json, opts.stdout = env.json, env.stdout
			return runTokens(c.Context, env, opts)
		},
	}
}

func runTokens(ctx context.Context, env *cliEnv, opts *tokensOptions) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	r, err := tokens.BuildReport(ctx, p.FS, confined.OpenFS(p.Root), p.Config.Memory.IndexBudgetTokens)
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(r)
	}
	_, err = io.WriteString(opts.stdout, r.Text())
	return err
}
