// This file builds the *cli.App: global flags, the command list, and the
// cliEnv every command receives.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/jsonindent"
	"github.com/foundryhq/foundry/project"
)

// cliEnv is what every command needs from the process: streams, the global
// flags and the project they point at.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	dir     string // -C, or the working directory
	json    bool   // --json
	rev     string // --rev
	staged  bool   // --staged
	logFile string // --log-file
	version bool   // --version, -v

	logger  *slog.Logger
	closers []func() error
}

// source is the project source the global flags choose.
func (e *cliEnv) source() project.Source {
	return project.Source{Rev: e.rev, Staged: e.staged}
}

// open finds and opens the project on the chosen source.
func (e *cliEnv) open() (*project.Project, error) {
	return project.Open(e.dir, e.source())
}

// openWritable opens the project for a write, refusing --rev and --staged.
func (e *cliEnv) openWritable() (*project.Project, error) {
	if e.rev != "" || e.staged {
		return nil, fmt.Errorf("cannot write to the %s: %w", e.source(), project.ErrReadOnly)
	}
	return e.open()
}

// refuseSource rejects --rev and --staged for a command that reads no
// project view (it reads no project, or only files on disk), so the flags
// are never silently ignored.
func (e *cliEnv) refuseSource(cmd string) error {
	if e.rev != "" || e.staged {
		return usageErrorf("--rev and --staged do not apply to %s", cmd)
	}
	return nil
}

// path resolves a file name from the command line as if foundry had started
// in -C DIR, as git -C does: relative names are relative to DIR.
func (e *cliEnv) path(name string) string {
	if name == "" || name == "-" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(e.dir, name)
}

// physicalDir returns -C DIR (or the working directory) absolute, with its
// symbolic links resolved as project.Find resolves the project root, so
// that paths below it compare with the root: a folder reached through a
// link (a linked checkout, macOS's /tmp) is the folder it leads to.
func (e *cliEnv) physicalDir() (string, error) {
	abs, err := filepath.Abs(e.dir)
	if err != nil {
		return "", err
	}
	return resolveLinks(abs), nil
}

// resolveLinks resolves the symbolic links of the longest part of the
// absolute path p that exists; the rest (a folder deleted on disk but
// present at a revision) is kept as named.
func resolveLinks(p string) string {
	rest := ""
	for d := p; ; {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// printJSON writes v to stdout as indented JSON.
func (e *cliEnv) printJSON(v any) error { return jsonindent.Write(e.stdout, v) }

// globalFlags are accepted anywhere on the command line.
func globalFlags(env *cliEnv) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "C", Usage: "run as if started in `DIR`", Destination: &env.dir},
		&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON", Destination: &env.json},
		&cli.StringFlag{Name: "rev", Usage: "read the project at git revision `REV` (HEAD~5, a tag, a hash)", Destination: &env.rev},
		&cli.BoolFlag{Name: "staged", Usage: "read the project as staged in the git index", Destination: &env.staged},
		&cli.StringFlag{Name: "log-file", Usage: "write logs to `FILE` instead of stderr", Destination: &env.logFile},
	}
}

// commands lists every command, in the order --help shows them: the
// everyday ones first.
func commands(env *cliEnv) []*cli.Command {
	return []*cli.Command{
		newInitCommand(env),
		newDoctorCommand(env),
		newMemoryCommand(env),
		newRunbookCommand(env),
		newBlackboardCommand(env),
		newValidateCommand(env),
		newContractsCommand(env),
		newTokensCommand(env),
		newMCPCommand(env),
		newHookCommand(env),
		newPluginCommand(env),
		newConfigCommand(env),
		newVersionCommand(env),
		newCompletionCommand(env),
		newHelpCommand(),
	}
}

const commandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{if .UsageText}}{{wrap .UsageText 3}}{{else}}{{.HelpName}}{{if .VisibleCommands}} {{"{"}}{{range $i, $c := .VisibleCommands}}{{if $i}}|{{end}}{{$c.Name}}{{end}}{{"}"}}{{end}}{{if .VisibleFlags}} [options]{{end}}{{if .ArgsUsage}}{{with trim .ArgsUsage}} {{.}}{{end}}{{else}}{{if .Args}} [arguments...]{{end}}{{end}}{{end}}{{if .Category}}

CATEGORY:
   {{.Category}}{{end}}{{if .VisibleCommands}}

COMMANDS:{{template "visibleCommandTemplate" .}}{{end}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleFlagCategories}}

OPTIONS:{{template "visibleFlagCategoryTemplate" .}}{{else if .VisibleFlags}}

OPTIONS:{{template "visibleFlagTemplate" .}}{{end}}

GLOBAL OPTIONS (anywhere on the line):
   -C DIR           run as if started in DIR
   --json           print machine-readable JSON{{if takesSource .HelpName "rev"}}
   --rev REV        read the project at git revision REV (read commands){{end}}{{if takesSource .HelpName "staged"}}
   --staged         read the project as staged in the git index (read commands){{end}}
   --log-file FILE  write logs to FILE instead of stderr
`

// setHelpTemplates installs the command help template once: urfave/cli
// keeps it in a package variable.
var setHelpTemplates = sync.OnceFunc(func() {
	cli.CommandHelpTemplate = commandHelpTemplate
	cli.SubcommandHelpTemplate = commandHelpTemplate
	cli.FlagStringer = flagHelp
	cli.HelpPrinterCustom = fitHelpPrinter(cli.HelpPrinterCustom)
})

// newApp builds the application around env.
func newApp(env *cliEnv) *cli.App {
	setHelpTemplates()
	var app *cli.App
	versionFlag := &cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version and exit", Destination: &env.version}
	// urfave/cli adds the help flag only along with its own help command,
	// which foundry's replaces (newHelpCommand).
	flags := append(globalFlags(env), versionFlag, cli.HelpFlag)
	app = &cli.App{
		Name:  "foundry",
		Usage: "shared memory and hand-offs for teams of AI coding agents, in git",
		Description: `Foundry keeps a project's agent memory under .foundry/: facts, runbooks,
contracts (JSON Schema 2020-12) and the blackboard of hand-off artifacts.
Every read works on the working tree, the git index (--staged) or any
revision (--rev HEAD~5).

EXIT STATUS:
   0  ok
   1  failure or invalid content
   2  malformed command line
   3  a check ran and found problems (foundry doctor)
   130  interrupted (Ctrl-C or SIGTERM)`,
		Writer:               env.stdout,
		ErrWriter:            env.stderr,
		Reader:               env.stdin,
		Flags:                flags,
		Commands:             commands(env),
		HideVersion:          true,
		EnableBashCompletion: false,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         onUsageError,
		Before: func(c *cli.Context) error {
			if env.version && c.NArg() > 0 {
				return usageErrorf("--version takes no command; run 'foundry --version' alone, or 'foundry version'")
			}
			if c.IsSet("rev") && env.rev == "" {
				// Not the working tree: a --rev "$REV" whose variable is
				// unset must not read (or write) something else.
				return usageErrorf("--rev needs a revision, e.g. --rev HEAD~5")
			}
			return env.setup()
		},
		Action: func(c *cli.Context) error {
			switch {
			case env.version:
				return runVersion(env)
			case c.NArg() > 0:
				return unknownCommand(c.Args().First(), app.Commands)
			}
			return cli.ShowAppHelp(c)
		},
	}
	var notFound error
	app.CommandNotFound = func(c *cli.Context, name string) {
		notFound = unknownCommand(name, app.Commands)
	}
	for _, c := range app.Commands {
		setUsageHandlers(c)
	}
	app.Commands = append(app.Commands, newCompleteCommand(env, func() *cli.App { return app }))
	app.After = func(*cli.Context) error { return notFound }
	return app
}

// setUsageHandlers makes flag errors of every (sub)command usage errors.
func setUsageHandlers(c *cli.Command) {
	c.HideHelpCommand = true
	c.OnUsageError = onUsageError
	if len(c.Subcommands) > 0 && c.Action == nil {
		// A group named alone is a missing argument: exit 2, not help and 0.
		c.Action = func(ctx *cli.Context) error {
			if ctx.NArg() > 0 {
				return unknownCommand(ctx.Args().First(), c.Subcommands)
			}
			var names []string
			for _, s := range c.Subcommands {
				names = append(names, s.Name)
			}
			return usageErrorf("%s needs a command: %s", c.Name, strings.Join(names, ", "))
		}
	}
	for _, s := range c.Subcommands {
		setUsageHandlers(s)
	}
}

// setup applies the global flags once they are parsed.
func (e *cliEnv) setup() error {
	if e.dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		e.dir = wd
	} else if fi, err := os.Stat(e.dir); errors.Is(err, fs.ErrNotExist) {
		return usageErrorf("-C %s: no such folder", e.dir)
	} else if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return usageErrorf("-C %s: %v", e.dir, pe.Err)
	} else if err != nil || !fi.IsDir() {
		return usageErrorf("-C %s: not a folder", e.dir)
	}
	if e.rev != "" && e.staged {
		return usageErrorf("--rev and --staged cannot be used together")
	}
	var w io.Writer = e.stderr
	if e.logFile != "" {
		f, err := os.OpenFile(e.path(e.logFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open log file: %w", err)
		}
		e.closers = append(e.closers, f.Close)
		w = f
	}
	e.logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return nil
}

// run is the whole program: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &cliEnv{stdin: stdin, stdout: stdout, stderr: stderr}
	app := newApp(env)
	norm := normalizeArgs(app, args)
	if p := commandPath(app, norm); len(p) == 0 || p[0] != "mcp" {
		// Whatever a command prints may come from the repository: control
		// characters go out escaped, so stored text cannot drive the
		// reader's terminal. (mcp serve's stream is JSON, escaped by its
		// encoder.)
		out, errOut := ctrl.NewWriter(stdout), ctrl.NewWriter(stderr)
		defer out.Flush()
		defer errOut.Flush()
		// The app reads env's streams when a command runs; only its own
		// writers (help, usage) were copied in when it was built.
		env.stdout, env.stderr, stderr = out, errOut, errOut
		app.Writer, app.ErrWriter = out, errOut
	}
	// A lock held by a stuck process would hang the command silently.
	// (mcp serve logs it instead: see runMCPServe.)
	ctx = confined.WithLockWait(ctx, func(path string) {
		fmt.Fprintf(stderr, "foundry: waiting for %s: another process holds its lock (Ctrl-C gives up)\n", ctrl.Escape(path))
	})
	err := app.RunContext(ctx, norm)
	for _, c := range env.closers {
		_ = c()
	}
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && !errors.Is(err, context.Canceled) {
		var ex *exitError
		if errors.As(err, &ex) && ex.err == nil {
			// Its report is printed: what is left to say is that it was
			// interrupted, not the exit status it had chosen.
			err = context.Canceled
		} else {
			err = fmt.Errorf("%w: %v", context.Canceled, err)
		}
	}
	asJSON := env.json || argsHaveJSON(app, args)
	report(stderr, err, asJSON)
	path := commandPath(app, norm)
	var usage *usageError
	// A usage error that suggests what to type ("did you mean doctor?")
	// ends with the suggestion; the others say where the usage is.
	if errors.As(err, &usage) && !asJSON && hintFor(err) == "" {
		fmt.Fprintf(stderr, "run '%s --help' for usage\n", strings.Join(append([]string{"foundry"}, path...), " "))
	}
	if slices.Equal(path, []string{"hook", "claude"}) && !errors.Is(err, context.Canceled) {
		// Claude Code shows the model a hook's stderr only on exit 2 and
		// ignores every other failure: whatever went wrong before the hook
		// ran (a bad -C, an unwritable --log-file) must still reach it.
		// An interrupted hook (Claude Code stopping it, Ctrl-C) has
		// nothing to tell the model.
		return exitUsage
	}
	return exitCode(err)
}

// argsHaveJSON reports --json, or doctor's and validate's --format json, on
// a line that failed, so even a usage error is reported as JSON when JSON
// was asked for. It reads args as normalizeArgs does, with the flags of the
// app and of each command named, so that the value of a flag (`--type
// --json`, `-C --json`) is not taken for --json; an unknown flag is taken
// to have no value.
func argsHaveJSON(app *cli.App, args []string) bool {
	globals := flagTable(app.Flags)
	var (
		local       map[string]bool
		cmds        = app.Commands
		positionals bool
	)
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			switch name {
			case "json":
				if on, err := strconv.ParseBool(value); !hasValue || err == nil && on {
					return true
				}
			case "format":
				if hasValue && value == "json" || !hasValue && i+1 < len(args) && args[i+1] == "json" {
					return true
				}
			}
			takesValue, ok := local[name]
			if !ok {
				takesValue = globals[name]
			}
			if takesValue && !hasValue {
				i++ // its value, whatever it looks like
			}
			continue
		}
		if !positionals {
			if c := findCommand(cmds, a); c != nil {
				cmds, local = c.Subcommands, flagTable(c.Flags)
				continue
			}
		}
		positionals = true
	}
	return false
}

// plural picks the singular or plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
