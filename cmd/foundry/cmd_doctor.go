package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/project"
)

type doctorOptions struct {
	format    string // text, lines, json or sarif
	prefix    string // --sarif-prefix, cleaned; "" for none
	noHistory bool
	fix       bool
	stdout    io.Writer
	stderr    io.Writer
}

func newDoctorCommand(env *cliEnv) *cli.Command {
	opts := &doctorOptions{}
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check the whole project and explain failures from git history",
		ArgsUsage: " ",
		Description: `Sweeps the project at the working tree, the index (--staged) or any
revision (--rev REV, read from git objects): no file under .foundry/ holds
git conflict markers (each is named with its line); every blackboard
artifact parses, names a known contract and satisfies it; fact files parse,
are valid fact.v1 artifacts, have unique ids, supersedes links that exist
and agree at both ends, and an up-to-date INDEX.md (expired facts are
listed); runbooks parse and have valid slugs; the config is valid;
project-local schemas compile and do not redefine an embedded contract;
agent definitions (.claude/agents/*.md, agents/*.md) name existing contracts
under "## Input contract" and "## Output contract", and the artifacts at the
paths they declare satisfy them; the contracts lock matches the contracts
this binary ships.

In a git repository a history pass (skip it with --no-history) flags every
breaking edit of a published .foundry/schemas/*.schema.json and reports an
artifact that was valid when written as "written in <commit> (<date>)
before <contract> tightened in <commit>", or, the contract tightened on
another branch, "written in <commit> (<date>) on a branch without
<contract>'s tightening in <commit>, merged since".

The summary groups findings by check with counts per file. --format lines
prints one "path:line:col: <pointer>: <problem>" line per error and warning
(the form of foundry validate --format lines and the pre-commit hook), then
a count, --json the full report, --format sarif a SARIF 2.1.0 log (with
--sarif-prefix DIR, the project's folder in its repository, files are named
from the repository root, as code scanning wants them). Columns count
characters. --fix (working tree only) repairs what a merge leaves in
memory, printing what it changed, and then checks the project: a fact file
with conflict markers becomes the two facts of the merge's sides; duplicate
ids are renumbered, the fact that held the id first in git history keeping
it (the one the remote's default branch, origin/HEAD, already has, else the
upstream branch, else the merge's first parent, else the one committed
first); every supersedes link follows the fact it meant (settled from git
history when the id it names is shared, or its other end does not link
back: the fact that carried the id in the commit that wrote the link) and
each chain is made to agree at both ends; a stale INDEX.md is rebuilt; a
temporary file a killed writer left more than an hour ago is removed. A
link nothing settles (an uncommitted merge, say) is refused with a message
and nothing is changed.

EXIT STATUS:
   0  no error-severity finding (warnings and info may remain)
   1  the project could not be read, or a link --fix cannot settle
   2  malformed command line, or --fix with --rev or --staged
   3  doctor found errors`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text, lines, json or sarif", Destination: &opts.format},
			sarifPrefixFlag(&opts.prefix),
			&cli.BoolFlag{Name: "no-history", Usage: "skip the git history pass", Destination: &opts.noHistory},
			&cli.BoolFlag{Name: "fix", Usage: "repair conflicted facts, duplicate ids, supersedes chains and INDEX.md, remove stale temp files, then check", Destination: &opts.fix},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("doctor takes no arguments")
			}
			var err error
			if opts.format, err = checkFormat(c, env.json, opts.format); err != nil {
				return err
			}
			if opts.prefix, err = checkSARIFPrefix(c, opts.format, opts.prefix); err != nil {
				return err
			}
			opts.stdout, opts.stderr = env.stdout, env.stderr
			return runDoctor(c.Context, env, opts)
		},
	}
}

func runDoctor(ctx context.Context, env *cliEnv, opts *doctorOptions) error {
	if opts.fix && (env.rev != "" || env.staged) {
		return fmt.Errorf("cannot fix the %s: %w", env.source(), project.ErrReadOnly)
	}
	p, err := project.OpenLenient(env.dir, env.source())
	if err != nil {
		return err
	}
	defer p.Close()
	denv := doctor.Env{Project: p, NoHistory: opts.noHistory}
	clearBar := func() {}
	if f, ok := opts.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := newProgressBar(f)
		clearBar = bar.clear
		denv.Progress = bar.update
	}

	var fixed []doctor.Change
	if opts.fix {
		if fixed, err = doctor.Fix(ctx, denv); err != nil {
			return err
		}
		w := opts.stdout
		if opts.format == "sarif" || opts.format == "lines" {
			w = opts.stderr // stdout carries the log or the problems only
		}
		if opts.format != "json" {
			for _, c := range fixed {
				fmt.Fprintf(w, "fixed: %s\n", c)
			}
			if len(fixed) == 0 {
				fmt.Fprintln(w, "fixed: nothing to fix")
			}
			fmt.Fprintln(w)
		}
	}
	rep, err := doctor.Run(ctx, denv)
	// The bar goes before anything else is printed: on a terminal, stdout
	// would otherwise continue its line.
	clearBar()
	if err != nil {
		return err
	}
	if p.Source.Staged {
		if _, err := fs.Stat(p.FS, project.Dir); errors.Is(err, fs.ErrNotExist) {
			// Every check passes over an empty index: say why, without
			// failing a project that has not staged its memory yet.
			fmt.Fprintf(opts.stderr, "note: the index holds no %s/: nothing is staged to check (git add %s)\n", project.Dir, project.Dir)
		}
	}
	switch opts.format {
	case "json":
		out := struct {
			*doctor.Report
			Fixed []doctor.Change `json:"fixed,omitempty"`
		}{rep, fixed}
		err = env.printJSON(out)
	case "lines":
		var lines, files int
		lines, files, err = rep.WriteLines(opts.stdout, func(name string) string { return name })
		if err == nil && lines > 0 {
			_, err = fmt.Fprintf(opts.stdout, "foundry doctor: %d %s in %d %s\n", lines, plural(lines, "problem", "problems"), files, plural(files, "file", "files"))
		}
	case "sarif":
		var b []byte
		if b, err = rep.SARIF(opts.prefix); err == nil {
			_, err = opts.stdout.Write(b)
		}
	default:
		err = rep.WriteText(opts.stdout)
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		return silentExit(exitProblems)
	}
	return nil
}
