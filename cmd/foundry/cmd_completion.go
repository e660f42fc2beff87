package main

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/project"
	"github.com/foundryhq/foundry/runbooks"
)

// completeCommand is the hidden command the completion scripts call with
// the words typed so far, the last one being the word to complete.
const completeCommand = "__complete"

func newCompletionCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "<bash|zsh|fish>",
		Description: `Prints a script that makes the shell complete foundry's commands, flags and
flag values, contract ids, runbook slugs, fact ids, wave names and the
agents of a wave (read from the project of the folder, or of -C DIR, as
you type). --rev and --staged are offered only to the commands that take
them. Load it with

   bash, in ~/.bashrc:                   source <(foundry completion bash)
   zsh, in ~/.zshrc after compinit:      source <(foundry completion zsh)
   fish, in ~/.config/fish/config.fish:  foundry completion fish | source

EXIT STATUS:
   0  ok
   2  malformed command line: no shell, or one not supported`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("completion takes one shell: bash, zsh or fish")
			}
			if err := env.refuseSource("completion"); err != nil {
				return err
			}
			script, ok := completionScripts[c.Args().First()]
			if !ok {
				return usageErrorf("completion: unknown shell %q; use bash, zsh or fish", c.Args().First())
			}
			_, err := io.WriteString(env.stdout, script)
			return err
		},
	}
}

// newCompleteCommand is the hidden __complete: it prints the candidates for
// the last of its arguments, one a line.
func newCompleteCommand(env *cliEnv, app func() *cli.App) *cli.Command {
	return &cli.Command{
		Name:            completeCommand,
		Hidden:          true,
		SkipFlagParsing: true,
		// Without it urfave/cli gives every command a help subcommand, and
		// `foundry h<TAB>` would print __complete's help as candidates.
		HideHelp: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) == 0 {
				words = []string{""}
			}
			var b strings.Builder
			for _, s := range complete(c.Context, app(), words) {
				b.WriteString(s + "\n")
			}
			_, err := io.WriteString(env.stdout, b.String())
			return err
		},
	}
}

// flagValues are the values of flags with a fixed set, by flag name.
var flagValues = map[string][]string{
	"type":       {"decision", "constraint", "convention", "domain", "risk", "metric", "glossary"},
	"confidence": {"high", "medium", "low"},
	"scope":      {"project", "module:", "vertical:"},
	"source":     {"conversation", "code", "adr-", "external:"},
	"transport":  {"stdio"},
}

// formatValues are --format's values, by command.
var formatValues = map[string][]string{
	"doctor":   reportFormats,
	"validate": reportFormats,
}

// sourceRefused are the commands that refuse the global --rev or --staged
// (with project.ErrReadOnly or a usage error), by command path: they write
// the working tree, or read no project view. Completion does not offer
// those flags to them, nor does their help list them. TestSourceRefused
// runs every command to keep this table true.
var sourceRefused = map[string][]string{
	"init":               {"rev", "staged"},
	"memory write":       {"rev", "staged"},
	"memory retire":      {"rev", "staged"},
	"runbook new":        {"rev", "staged"},
	"blackboard write":   {"rev", "staged"},
	"blackboard archive": {"rev", "staged"},
	"contracts new":      {"rev", "staged"},
	"mcp token new":      {"rev", "staged"},
	"mcp token list":     {"rev", "staged"},
	"mcp token revoke":   {"rev", "staged"},
	"hook install":       {"rev", "staged"},
	"hook uninstall":     {"rev", "staged"},
	"hook claude":        {"rev", "staged"},
	"hook merge-index":   {"rev", "staged"},
	"hook pre-commit":    {"rev"}, // it reads the index: --staged is what it does anyway
	"plugin build":       {"rev", "staged"},
	"version":            {"rev", "staged"},
	"completion":         {"rev", "staged"},
}

// refuses reports whether the command at path refuses the global flag
// named flag ("rev" or "staged"); see sourceRefused.
func refuses(path, flag string) bool { return slices.Contains(sourceRefused[path], flag) }

// writingFlag names, by command path, the flag that makes a reading
// command write the working tree, and so refuse --rev and --staged
// (doctor --fix).
var writingFlag = map[string]string{"doctor": "fix"}

// refusesSource reports whether the command c at path, or every command
// under it, refuses the --rev or --staged that src says the line gives.
func refusesSource(path string, c *cli.Command, src project.Source) bool {
	if len(c.Subcommands) == 0 {
		return src.Rev != "" && refuses(path, "rev") || src.Staged && refuses(path, "staged")
	}
	for _, sub := range c.Subcommands {
		if !sub.Hidden && !refusesSource(path+" "+sub.Name, sub, src) {
			return false
		}
	}
	return true
}

// complete returns the candidates for the last word of words, the words
// typed after "foundry". The project (of the folder, or -C DIR, on the
// source --rev or --staged choose) supplies contract ids, runbook slugs,
// fact ids and wave names; when there is none those are simply not
// offered, but for the embedded contract ids, which the commands take
// outside a project too.
func complete(ctx context.Context, app *cli.App, words []string) []string {
	cur := words[len(words)-1]
	globals := flagTable(app.Flags)
	var (
		cmd     *cli.Command
		path    []string
		cmds    = app.Commands
		local   = map[string]bool{}
		args    []string // positional arguments before cur
		pending string   // a flag waiting for its value
		dir     = "."
		src     project.Source
		help    bool                // the line is `foundry help COMMAND…`
		seen    = map[string]bool{} // the flags on the line, by name
	)
	for i := 0; i < len(words)-1; i++ {
		w := words[i]
		if pending != "" {
			switch pending {
			case "C":
				dir = w
			case "rev":
				src.Rev = w
			}
			pending = ""
			continue
		}
		if len(w) > 1 && w[0] == '-' {
			name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			seen[name] = true
			switch {
			case name == "rev" && hasValue:
				src.Rev = value
			case name == "staged":
				src.Staged = !hasValue || value == "true"
			}
			if takes, ok := local[name]; ok && takes && !hasValue {
				pending = name
			} else if takes, ok := globals[name]; ok && takes && !hasValue {
				pending = name
			}
			continue
		}
		if len(args) == 0 && cmd == nil && !help && (w == "help" || w == "h") {
			help = true // `foundry help memory search`: only commands follow
			continue
		}
		if len(args) == 0 {
			if c := findCommand(cmds, w); c != nil && !c.Hidden {
				cmd, cmds, path = c, c.Subcommands, append(path, c.Name)
				local = flagTable(c.Flags)
				continue
			}
		}
		args = append(args, w)
	}
	nargs := len(args)
	cmdPath := strings.Join(path, " ")
	var cands []string
	switch {
	case pending != "":
		cands = valuesOf(ctx, dir, src, cmdPath, pending, args)
	case strings.HasPrefix(cur, "-"):
		var flags []cli.Flag
		if cmd != nil {
			flags = append(flags, cmd.Flags...)
		}
		flags = append(flags, app.Flags...)
		for _, f := range flags {
			// --version takes no command: after one it is a usage error.
			if cmd != nil && slices.Contains(f.Names(), "version") {
				continue
			}
			// Nor --rev or --staged where the command refuses them.
			if slices.ContainsFunc(f.Names(), func(n string) bool { return refuses(cmdPath, n) }) {
				continue
			}
			// A flag that makes a command write goes with neither: one
			// on the line keeps the others from being offered.
			if w := writingFlag[cmdPath]; w != "" {
				source := slices.Contains(f.Names(), "rev") || slices.Contains(f.Names(), "staged")
				if source && seen[w] || slices.Contains(f.Names(), w) && (src.Rev != "" || src.Staged) {
					continue
				}
			}
			for _, n := range f.Names() {
				cands = append(cands, dashed(n))
			}
		}
		cands = append(cands, "--help")
	case help && nargs > 0:
	case len(cmds) > 0 && nargs == 0:
		for _, c := range cmds {
			// After --rev or --staged, not the commands that refuse it.
			if !c.Hidden && (help || !refusesSource(strings.TrimSpace(cmdPath+" "+c.Name), c, src)) {
				cands = append(cands, c.Name)
			}
		}
	case help:
		// A leaf command named after help takes no more words.
	default:
		cands = argumentsOf(ctx, dir, src, cmdPath, nargs)
	}
	return matching(cands, cur)
}

// matching returns the candidates that begin with cur, in order, each once.
// A set, not a search of the result: a project's fact ids are tens of
// thousands of candidates.
func matching(cands []string, cur string) []string {
	var out []string
	seen := make(map[string]bool, len(cands))
	for _, c := range cands {
		if strings.HasPrefix(c, cur) && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// valuesOf returns the values of flag name of the command at cmdPath,
// given the positional arguments args typed before it.
func valuesOf(ctx context.Context, dir string, src project.Source, cmdPath, name string, args []string) []string {
	if name == "agent" && cmdPath == "blackboard read" && len(args) > 0 {
		// The agents of the wave named, from its file names alone.
		return projectNames(ctx, dir, src, func(ctx context.Context, p *project.Project) ([]string, error) {
			return blackboard.Open(p.FS, blackboard.Options{}).Agents(ctx, args[0])
		})
	}
	switch name {
	case "format":
		return formatValues[cmdPath]
	case "schema":
		return contractNames(dir, src)
	case "supersedes":
		return projectNames(ctx, dir, src, factIDs)
	case "wave":
		return projectNames(ctx, dir, src, waveNames)
	}
	return flagValues[name]
}

// argumentsOf returns the candidates for positional argument n of the
// command at cmdPath.
func argumentsOf(ctx context.Context, dir string, src project.Source, cmdPath string, n int) []string {
	switch {
	case cmdPath == "completion" && n == 0:
		return []string{"bash", "zsh", "fish"}
	case (cmdPath == "contracts show" || cmdPath == "contracts example") && n == 0,
		cmdPath == "validate" && n == 0:
		return contractNames(dir, src)
	case cmdPath == "runbook get" && n == 0:
		return projectNames(ctx, dir, src, runbookSlugs)
	case (cmdPath == "memory show" || cmdPath == "memory retire") && n == 0:
		return projectNames(ctx, dir, src, factIDs)
	case (cmdPath == "blackboard read" || cmdPath == "blackboard archive") && n == 0:
		return projectNames(ctx, dir, src, waveNames)
	case cmdPath == "hook install" || cmdPath == "hook uninstall":
		return hooks.Names // each may be named, in any order
	}
	return nil
}

// projectNames opens the project at dir on src and lists names from it;
// any failure gives none, since completion must never print an error.
func projectNames(ctx context.Context, dir string, src project.Source, list func(context.Context, *project.Project) ([]string, error)) []string {
	p, err := project.Open(dir, src)
	if err != nil {
		return nil
	}
	defer p.Close()
	names, err := list(ctx, p)
	if err != nil {
		return nil
	}
	return names
}

// contractNames lists the contract ids the commands take at dir on src
// (see registryAt): outside a project, the embedded ones.
func contractNames(dir string, src project.Source) []string {
	reg, p, err := registryAt(dir, src)
	if p != nil {
		defer p.Close()
	}
	if err != nil {
		return nil
	}
	return reg.IDs()
}

func runbookSlugs(ctx context.Context, p *project.Project) ([]string, error) {
	l, err := runbooks.Open(p.FS, runbooks.Options{}).Names(ctx) // no runbook is read
	if err != nil {
		return nil, err
	}
	var slugs []string
	for _, r := range l.Runbooks {
		slugs = append(slugs, r.Slug)
	}
	return slugs, nil
}

func factIDs(ctx context.Context, p *project.Project) ([]string, error) {
	list, err := facts.Open(p, facts.Options{Warn: io.Discard}).List(ctx, facts.ListOptions{})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, f := range list {
		ids = append(ids, f.ID)
	}
	return ids, nil
}

func waveNames(ctx context.Context, p *project.Project) ([]string, error) {
	return blackboard.Open(p.FS, blackboard.Options{}).Waves(ctx)
}

// completionScripts are the scripts completion prints. Each asks
// `foundry __complete WORDS…` for the candidates of the word under the
// cursor, and falls back to file names when there are none (a --data-file,
// a path to validate).
var completionScripts = map[string]string{
	"bash": `# bash completion for foundry: source <(foundry completion bash)
_foundry() {
	local IFS=$'\n'
	local cur="${COMP_WORDS[COMP_CWORD]}"
	COMPREPLY=($(foundry ` + completeCommand + ` "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
	if [ ${#COMPREPLY[@]} -eq 0 ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _foundry foundry
`,
	"zsh": `#compdef foundry
# zsh completion for foundry: source <(foundry completion zsh), after compinit
_foundry() {
	local -a cands
	cands=("${(@f)$(foundry ` + completeCommand + ` "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	cands=(${cands:#})
	if (( ${#cands} )); then
		compadd -- "${cands[@]}"
	else
		_files
	fi
}
compdef _foundry foundry
`,
	"fish": `# fish completion for foundry: foundry completion fish | source
function __foundry_complete
	set -l words (commandline -opc) (commandline -ct)
	foundry ` + completeCommand + ` $words[2..-1] 2>/dev/null
end
complete -c foundry -f -a '(__foundry_complete)'
complete -c foundry -n 'not __foundry_complete | string length -q' -F
`,
}
