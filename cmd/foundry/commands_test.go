package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// visiblePaths returns the root's path (nil), then the path of every
// command and subcommand that is not hidden, parents before children.
func visiblePaths() [][]string {
	paths := [][]string{nil}
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			p := append(append([]string{}, prefix...), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, commands(&cliEnv{}))
	return paths
}

// leafCommand is a command without subcommands, with its path and the
// path joined by spaces ("memory search").
type leafCommand struct {
	path []string
	name string
	cmd  *cli.Command
}

// leafCommands returns every command without subcommands, hidden ones
// included.
func leafCommands() []leafCommand {
	var leaves []leafCommand
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := append(append([]string{}, prefix...), c.Name)
			if len(c.Subcommands) > 0 {
				walk(path, c.Subcommands)
				continue
			}
			leaves = append(leaves, leafCommand{path, strings.Join(path, " "), c})
		}
	}
	walk(nil, commands(&cliEnv{}))
	return leaves
}
