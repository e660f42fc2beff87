// This file lets people type flags anywhere: urfave/cli v2 stops parsing
// flags at the first positional argument and rejects a global flag after the
// command name, so the arguments are reordered before it sees them.

package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// normalizeArgs returns args reordered so that global flags come before the
// command, each command's own flags come right after its name, and
// positional arguments come last: `foundry memory search flyway --type x
// --json` becomes `foundry --json memory search --type x flyway`. Everything
// after a `--` stays positional. Unknown flags are left with the command so
// that urfave/cli reports them as usage errors.
func normalizeArgs(app *cli.App, args []string) []string {
	if len(args) == 0 || len(args) > 1 && args[1] == completeCommand {
		// The completion scripts pass the words typed so far verbatim.
		return args
	}
	globals := flagTable(app.Flags)
	var (
		out         = []string{args[0]}
		globalArgs  []string
		path        []string   // command names in order
		pathFlags   [][]string // flags of each command in path
		positionals []string
		dashdash    bool
		help        bool // --help or -h: help of the deepest command named
		helpWord    bool // the line starts with the help command
		cmds        = app.Commands
		local       map[string]bool
	)
	addLocal := func(a ...string) {
		if len(path) == 0 {
			globalArgs = append(globalArgs, a...)
			return
		}
		pathFlags[len(pathFlags)-1] = append(pathFlags[len(pathFlags)-1], a...)
	}
	// takeGlobal moves the global flag args[i] to globalArgs, with the
	// next word when it needs its value there; it returns the index of
	// the last word taken, and false when that value is missing.
	takeGlobal := func(i int, needsValue bool) (int, bool) {
		globalArgs = append(globalArgs, args[i])
		if !needsValue {
			return i, true
		}
		if i+1 == len(args) {
			return i, false
		}
		globalArgs = append(globalArgs, args[i+1])
		return i + 1, true
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if dashdash {
			positionals = append(positionals, a)
			continue
		}
		if a == "--" {
			dashdash = true
			continue
		}
		if len(a) > 1 && a[0] == '-' {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if (name == "help" || name == "h") && !hasValue {
				help = true
				continue
			}
			if takesValue, ok := local[name]; ok {
				addLocal(a)
				if takesValue && !hasValue {
					if i+1 == len(args) {
						// The value is missing: end the line with this flag so
						// that urfave/cli reports it rather than taking the
						// next word, or the "--" added below, as its value.
						out = append(out, globalArgs...)
						for j, name := range path {
							out = append(out, name)
							out = append(out, pathFlags[j]...)
						}
						return out
					}
					i++
					addLocal(args[i])
				}
				continue
			}
			if takesValue, ok := globals[name]; ok {
				var whole bool
				if i, whole = takeGlobal(i, takesValue && !hasValue); !whole {
					return append(out, globalArgs...) // value missing, as above
				}
				continue
			}
			addLocal(a)
			continue
		}
		if len(positionals) == 0 && len(path) == 0 && !helpWord && (a == "help" || a == "h") {
			helpWord = true
			if isCommandPath(app, args[i+1:]) {
				// `foundry help memory search` is `foundry memory search
				// --help` (`foundry help help`: see below).
				continue
			}
			// Not a command: the help command reports it, with the
			// global flags after it taken out, as on any other line.
			rest := []string{"help"}
			for j := i + 1; j < len(args); j++ {
				b := args[j]
				if b == "--" {
					rest = append(rest, args[j:]...)
					break
				}
				name, _, hasValue := strings.Cut(strings.TrimLeft(b, "-"), "=")
				takesValue, global := globals[name]
				if len(b) < 2 || b[0] != '-' || !global || name == "help" || name == "h" {
					rest = append(rest, b)
					continue
				}
				var whole bool
				if j, whole = takeGlobal(j, takesValue && !hasValue); !whole {
					return append(out, globalArgs...) // value missing, as above
				}
			}
			out = append(out, globalArgs...)
			return append(out, rest...)
		}
		if len(positionals) == 0 {
			if c := findCommand(cmds, a); c != nil {
				path = append(path, a)
				pathFlags = append(pathFlags, nil)
				cmds = c.Subcommands
				local = flagTable(c.Flags)
				continue
			}
		}
		positionals = append(positionals, a)
	}
	switch {
	case helpWord && len(path) == 0 && !help:
		// `foundry help`: the help command prints foundry's help once the
		// global flags are checked, as for any other command.
		return append(append(out, globalArgs...), "help")
	case helpWord && (len(path) == 0 || len(path) == 1 && (path[0] == "help" || path[0] == "h")):
		// `foundry help help` and `foundry help --help` ask for the help of
		// help, which the help command prints: urfave/cli answers --help
		// on a command named help with the app's help.
		return append(append(out, globalArgs...), "help", "help")
	}
	if help || helpWord {
		// `foundry memory search flyway --help` asks for the help of
		// memory search: urfave/cli would read flyway as a help topic.
		if len(path) == 0 {
			globalArgs = append(globalArgs, "--help")
		} else {
			pathFlags[len(pathFlags)-1] = append(pathFlags[len(pathFlags)-1], "--help")
		}
		positionals = nil
	}
	out = append(out, globalArgs...)
	for i, name := range path {
		out = append(out, name)
		out = append(out, pathFlags[i]...)
	}
	if len(positionals) > 0 {
		out = append(out, "--")
		out = append(out, positionals...)
	}
	return out
}

// flagTable maps every name and alias of flags to whether it takes a value.
func flagTable(flags []cli.Flag) map[string]bool {
	t := make(map[string]bool, len(flags)+2)
	for _, f := range flags {
		takes := true
		if d, ok := f.(cli.DocGenerationFlag); ok {
			takes = d.TakesValue()
		}
		for _, n := range flagNames(f) {
			t[n] = takes
		}
	}
	t["help"], t["h"] = false, false
	return t
}

// flagNames returns f's name and aliases, as f.Names() does for the flag
// types foundry uses, without cutting each at a comma or a space (urfave/cli
// v1's "name, alias" form, which no foundry flag uses) with a regular
// expression: every run builds tables of the flags it parses.
func flagNames(f cli.Flag) []string {
	switch f := f.(type) {
	case *cli.BoolFlag:
		return append([]string{f.Name}, f.Aliases...)
	case *cli.StringFlag:
		return append([]string{f.Name}, f.Aliases...)
	case *cli.IntFlag:
		return append([]string{f.Name}, f.Aliases...)
	case *cli.StringSliceFlag:
		return append([]string{f.Name}, f.Aliases...)
	}
	return f.Names()
}

// isCommandPath reports whether the words of args that are not flags, nor
// the values of the flags (of foundry or of the commands named) that take
// one, name a command and its subcommands, e.g. ["memory", "search"].
func isCommandPath(app *cli.App, args []string) bool {
	globals := flagTable(app.Flags)
	cmds, local := app.Commands, map[string]bool(nil)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			takesValue, ok := local[name]
			if !ok {
				takesValue = globals[name]
			}
			if takesValue && !hasValue {
				i++
			}
			continue
		}
		c := findCommand(cmds, a)
		if c == nil {
			return false
		}
		cmds, local = c.Subcommands, flagTable(c.Flags)
	}
	return true
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// commandPath returns the command names at the start of normalized args
// (global flags skipped), e.g. ["memory", "search"]. A line that still
// starts with the help command names a topic that is not a command
// (`foundry help memory nosuch`): its path is the topic's, ["memory"].
func commandPath(app *cli.App, args []string) []string {
	globals := flagTable(app.Flags)
	var (
		path     []string
		helpWord bool
	)
	cmds := app.Commands
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if globals[name] && !hasValue {
				i++
			}
			continue
		}
		c := findCommand(cmds, a)
		if c == nil {
			break
		}
		if len(path) == 0 && !helpWord && c.Name == "help" {
			helpWord = true
			continue
		}
		path = append(path, c.Name)
		cmds = c.Subcommands
	}
	return path
}
