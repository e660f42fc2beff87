package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/tokens"
)

type blackboardOptions struct {
	// write
	wave, agent, schema string
	dataFile            string // a path, or "-" for stdin
	dataPath            string // dataFile resolved against -C
	// read
	full   bool
	limit  int
	cursor string

	json   bool
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func newBlackboardCommand(env *cliEnv) *cli.Command {
	opts := &blackboardOptions{}
	return &cli.Command{
		Name:  "blackboard",
		Usage: "write and read the artifacts one wave of agents hands to the next",
		Description: `Artifacts live in .foundry/blackboard/<wave>/<agent>.json, each valid
against a contract. Wave and agent names are sanitised: every character
outside [A-Za-z0-9._-] becomes "-", and both are cut to 80 characters, so
a name never leaves the blackboard.

EXIT STATUS:
   0  ok
   1  a rejected artifact, unusable data, an unknown contract or wave
   2  malformed command line, including a name that sanitises to nothing`,
		Subcommands: []*cli.Command{
			{
				Name:      "write",
				Usage:     "validate an artifact against its contract and write it",
				ArgsUsage: " ",
				Description: `Reads a JSON object (at most 8 MiB) from --data-file, or stdin with
--data-file - (the default), sets its "schema" and "producedBy" fields from
--schema and --agent, and validates it. A valid artifact is written
atomically to .foundry/blackboard/<wave>/<agent>.json, pretty-printed with
sorted keys; "Replaced …" instead of "Wrote …" says it replaced the
agent's earlier artifact of the wave. An invalid one is not written: the
violations are printed on stdout, one "- <json-pointer>: <problem>" line
each, and the exit status is 1. The first artifact accepted under a
contract records the contract's content hash in .foundry/contracts.lock/<id>.

EXIT STATUS:
   0  written
   1  rejected by the contract (nothing written), data that is not a JSON
      object, an unknown contract, or a file error
   2  malformed command line, including a wave or agent name that
      sanitises to nothing, "." or ".."`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "wave", Usage: "the wave `ID`, e.g. audit", Destination: &opts.wave},
					&cli.StringFlag{Name: "agent", Usage: "the producing agent's `NAME`", Destination: &opts.agent},
					&cli.StringFlag{Name: "schema", Usage: "the contract `ID` the artifact satisfies, e.g. finding.v1", Destination: &opts.schema},
					&cli.StringFlag{Name: "data-file", Value: "-", Usage: "read the artifact from `FILE` (- for stdin)", Destination: &opts.dataFile},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("blackboard write takes no arguments (pass the artifact with --data-file)")
					}
					for _, f := range []string{"wave", "agent", "schema"} {
						if !c.IsSet(f) {
							return usageErrorf("blackboard write needs --%s", f)
						}
					}
					if opts.dataFile == "" {
						return usageErrorf("--data-file needs a FILE, or - for stdin")
					}
					opts.json, opts.stdin, opts.stdout, opts.stderr = env.json, env.stdin, env.stdout, env.stderr
					opts.dataPath = env.path(opts.dataFile)
					return runBlackboardWrite(c.Context, env, opts)
				},
			},
			{
				Name:      "read",
				Usage:     "summarise or print a wave's artifacts",
				ArgsUsage: "<wave>",
				Description: `Prints one entry per artifact of the wave, by file name:
"- **<agent>.json** · schema <id> · by <producer> · ~<n> tokens" and a line
from its summary, title or goal field (cut at 400 characters). With --full
each artifact follows its entry verbatim in a fenced JSON block. An artifact
its contract rejects today (written by hand, or before the contract
changed) is marked "· INVALID" with its first violation. Pages hold
--limit artifacts (default 20, at most 100); when more remain the output
ends with 'More: pass --cursor "<c>" for the next page.'.
Reads the working tree, or --staged / --rev REV.

EXIT STATUS:
   0  ok
   1  unknown wave, or no artifact by --agent
   2  malformed command line, including a bad limit, wave or agent name,
      or a cursor this wave did not issue`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "agent", Usage: "only the artifact of agent `NAME`", Destination: &opts.agent},
					&cli.BoolFlag{Name: "full", Usage: "print each artifact verbatim, not a summary", Destination: &opts.full},
					&cli.IntFlag{Name: "limit", Usage: "artifacts per page, `N` from 1 to 100 (default 20)", Destination: &opts.limit},
					&cli.StringFlag{Name: "cursor", Usage: "continue after a previous page's `CURSOR`", Destination: &opts.cursor},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("blackboard read takes one wave")
					}
					if c.IsSet("limit") && (opts.limit < 1 || opts.limit > blackboard.MaxLimit) {
						return usageErrorf("--limit %d: use 1–%d", opts.limit, blackboard.MaxLimit)
					}
					opts.wave, opts.json, opts.stdout = c.Args().First(), env.json, env.stdout
					return runBlackboardRead(c.Context, env, opts)
				},
			},
			{
				Name:      "list",
				Usage:     "list the waves with their agents, counts and invalid artifacts",
				ArgsUsage: " ",
				Description: `Prints one line per wave of .foundry/blackboard/:

   audit · 3 artifacts · access-auditor, appsec-reviewer, audit-lead
   build · 2 artifacts · implementer, tester · 1 invalid: tester

An artifact is invalid when it cannot be read or parsed, or its contract
rejects it. Reads the working tree, or --staged / --rev REV.

EXIT STATUS:
   0  ok
   1  the blackboard cannot be read
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("blackboard list takes no arguments")
					}
					return runBlackboardList(c.Context, env)
				},
			},
			{
				Name:      "archive",
				Usage:     "move a finished wave out of the blackboard, kept in git",
				ArgsUsage: "<wave>",
				Description: `Moves .foundry/blackboard/<wave>/ to .foundry/archive/blackboard/<wave>/:
reads, doctor and validate --auto no longer see it, and git keeps it (commit
the move). An archived wave of the same name is never overwritten. Never
with --rev or --staged.

EXIT STATUS:
   0  archived
   1  unknown wave, a wave of that name already archived, or a file error
   2  malformed command line, including a wave name that sanitises to
      nothing, or --rev/--staged`,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("blackboard archive takes one wave")
					}
					if err := checkNames(struct{ field, name string }{"wave", c.Args().First()}); err != nil {
						return err
					}
					return runBlackboardArchive(c.Context, env, c.Args().First())
				},
			},
		},
	}
}

func runBlackboardWrite(ctx context.Context, env *cliEnv, opts *blackboardOptions) error {
	// Names first: a hostile name is a malformed command line, whatever the
	// data says.
	if err := checkNames(struct{ field, name string }{"wave", opts.wave}, struct{ field, name string }{"agent", opts.agent}); err != nil {
		return err
	}
	p, err := env.openWritable()
	if err != nil {
		return err
	}
	data, err := readData(ctx, opts)
	if err != nil {
		return err
	}
	board := blackboard.Open(p.FS, blackboard.Options{Root: p.Root, Events: tokens.NewLog(p.Root, env.logger)})
	res, err := board.Write(ctx, blackboard.WriteRequest{Wave: opts.wave, Agent: opts.agent, Schema: opts.schema, Data: data})
	if err != nil {
		return err
	}
	if opts.json {
		err = env.printJSON(res)
	} else {
		_, err = io.WriteString(opts.stdout, res.HumanText())
	}
	if err != nil {
		return err
	}
	if !res.Written {
		return silentExit(exitFailure)
	}
	return nil
}

// readData reads the artifact, refusing more than blackboard.MaxDataBytes
// without reading it all.
func readData(ctx context.Context, opts *blackboardOptions) ([]byte, error) {
	var r io.Reader = opts.stdin
	name := "stdin"
	if opts.dataFile == "-" {
		promptTerminal(opts.stdin, opts.stderr, "the artifact's JSON", "or pass --data-file FILE")
	} else {
		f, err := openFlagFile(opts.dataFile, opts.dataPath)
		if err != nil {
			return nil, fmt.Errorf("read artifact: %w", err)
		}
		defer f.Close()
		r, name = f, opts.dataFile
	}
	data, err := readAll(ctx, r, blackboard.MaxDataBytes+1)
	if err != nil {
		return nil, fmt.Errorf("read artifact from %s: %w", name, err)
	}
	if len(data) > blackboard.MaxDataBytes {
		return nil, fmt.Errorf("read artifact from %s: %w: more than %d bytes (8 MiB)", name, blackboard.ErrTooLarge, blackboard.MaxDataBytes)
	}
	return data, nil
}

func runBlackboardRead(ctx context.Context, env *cliEnv, opts *blackboardOptions) error {
	names := []struct{ field, name string }{{"wave", opts.wave}}
	if opts.agent != "" {
		names = append(names, struct{ field, name string }{"agent", opts.agent})
	}
	if err := checkNames(names...); err != nil {
		return err
	}
	p, err := env.open()
	if err != nil {
		return err
	}
	res, err := blackboard.Open(p.FS, blackboard.Options{}).Read(ctx, blackboard.ReadRequest{
		Wave: opts.wave, Agent: opts.agent, Full: opts.full, Limit: opts.limit, Cursor: opts.cursor,
	})
	if errors.Is(err, blackboard.ErrInvalidName) || errors.Is(err, blackboard.ErrInvalidCursor) {
		// Both are flag values the flag's own syntax rejects.
		return &usageError{err}
	}
	if err != nil {
		return err
	}
	if opts.json {
		return env.printJSON(res)
	}
	_, err = io.WriteString(opts.stdout, res.HumanText())
	return err
}

// checkNames refuses a wave or agent name that sanitises to nothing, "." or
// "..": a malformed command line.
func checkNames(names ...struct{ field, name string }) error {
	for _, n := range names {
		if _, err := blackboard.Sanitize(n.name); err != nil {
			var ne *blackboard.NameError
			if errors.As(err, &ne) {
				ne.Field = n.field
			}
			return &usageError{err}
		}
	}
	return nil
}

func runBlackboardList(ctx context.Context, env *cliEnv) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	res, err := blackboard.Open(p.FS, blackboard.Options{}).List(ctx)
	if err != nil {
		return err
	}
	if env.json {
		return env.printJSON(res)
	}
	_, err = io.WriteString(env.stdout, res.Text())
	return err
}

func runBlackboardArchive(ctx context.Context, env *cliEnv, wave string) error {
	p, err := env.openWritable()
	if err != nil {
		return err
	}
	res, err := blackboard.Open(p.FS, blackboard.Options{Root: p.Root}).Archive(ctx, wave)
	if errors.Is(err, blackboard.ErrArchived) {
		return withHint(err, "read the archived wave there, or rename it first")
	}
	if err != nil {
		return err
	}
	if env.json {
		return env.printJSON(res)
	}
	_, err = fmt.Fprintf(env.stdout, "Archived %s (%d %s) to %s\n", res.From, res.Artifacts, plural(res.Artifacts, "artifact", "artifacts"), res.To)
	return err
}
