package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/project"
)

func newInitCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create .foundry/ in the current folder (or -C DIR)",
		ArgsUsage: " ",
		Description: `Creates .foundry/ with memory/, runbooks/, blackboard/ and schemas/, a
.gitignore that keeps metrics/ out of git, and a commented config.yaml
showing every key with its default. Idempotent: run it again and nothing
is changed or overwritten; it lists what it created.

EXIT STATUS:
   0  ok
   1  a file could not be written
   2  malformed command line`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("init takes no arguments")
			}
			if env.rev != "" || env.staged {
				return fmt.Errorf("init writes files: %w", project.ErrReadOnly)
			}
			return runInit(env)
		},
	}
}

func runInit(env *cliEnv) error {
	res, err := project.Init(env.dir)
	if err != nil {
		return err
	}
	if env.json {
		return env.printJSON(res)
	}
	if len(res.Created) == 0 {
		_, err := fmt.Fprintf(env.stdout, "%s is already initialised; nothing changed\n", res.Root)
		return err
	}
	for _, p := range res.Created {
		if _, err := fmt.Fprintf(env.stdout, "created %s\n", p); err != nil {
			return err
		}
	}
	return nil
}
