package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// newHelpCommand is foundry's own help command, in place of the one
// urfave/cli adds: that one stops at the first command name, lists itself
// as a subcommand of the command it shows, and prints an odd usage for
// `foundry help help`. normalizeArgs turns `foundry help NAME…` into
// `foundry NAME… --help`, so its action sees only `foundry help`, names
// that are not a command, `foundry help help` and `foundry help -- NAME…`.
func newHelpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the help of foundry or of a command",
		ArgsUsage: "[<command>...]",
		Description: `Prints the help of foundry, or of the command named: foundry help memory
search prints what foundry memory search --help prints.

EXIT STATUS:
   0  ok
   2  malformed command line: no such command`,
		Action: func(c *cli.Context) error {
			var (
				cmd  *cli.Command
				path []string
			)
			cmds := c.App.Commands
			for _, name := range c.Args().Slice() {
				next := findCommand(cmds, name)
				if next == nil || next.Hidden {
					return unknownCommand(name, cmds)
				}
				cmd, cmds, path = next, next.Subcommands, append(path, next.Name)
			}
			if cmd == nil {
				return cli.ShowAppHelp(c)
			}
			// `foundry help help`, or `foundry help -- NAME…` (whose names
			// normalizeArgs keeps as arguments): cmd was not run, so
			// urfave/cli has not set up its full name and --help flag.
			cmd.HelpName = c.App.Name + " " + strings.Join(path, " ")
			if cli.HelpFlag != nil && !slices.Contains(cmd.Flags, cli.HelpFlag) {
				cmd.Flags = append(cmd.Flags, cli.HelpFlag)
			}
			cli.HelpPrinter(c.App.Writer, commandHelpTemplate, cmd)
			return nil
		},
	}
}
