// This file turns urfave/cli's flag errors into foundry's: flags named with
// two dashes, and a "did you mean" for a mistyped command or flag.

package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/internal/lazyre"
	"github.com/foundryhq/foundry/internal/textdist"
)

// maxSuggestDistance is how many edits a typed name may be from a command or
// flag for it to be suggested: two catches a swapped pair plus one slip.
const maxSuggestDistance = 2

// unknownCommand is the usage error for a command name that does not exist
// among cmds, with the nearest names as suggestions.
func unknownCommand(name string, cmds []*cli.Command) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	err := fmt.Errorf("unknown command %q", name)
	if s := textdist.Closest(name, names, maxSuggestDistance); len(s) > 0 {
		return &usageError{withHint(err, "did you mean "+quoteList(s, "")+"?")}
	}
	return &usageError{err}
}

var (
	// urfave/cli (through the flag package) names flags with one dash.
	undefinedFlag = lazyre.New(`^flag provided but not defined: -+(.+)$`)
	oneDashFlag   = lazyre.New(`(for (?:flag )?|flag needs an argument: )-([A-Za-z][A-Za-z0-9-]+)`)
)

// onUsageError makes a flag error of any command a usage error (exit 2),
// written with two dashes, and suggests the nearest flag for an unknown one.
func onUsageError(c *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if m := undefinedFlag().FindStringSubmatch(msg); m != nil {
		name := m[1]
		unknown := fmt.Errorf("unknown flag %s", dashed(name))
		var names []string
		flags := c.Command.Flags
		if c.App != nil {
			flags = append(slices.Clone(flags), c.App.Flags...)
		}
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		if s := textdist.Closest(name, names, maxSuggestDistance); len(s) > 0 {
			return &usageError{withHint(unknown, "did you mean "+quoteList(s, "--")+"?")}
		}
		return &usageError{unknown}
	}
	if fixed := oneDashFlag().ReplaceAllString(msg, "$1--$2"); fixed != msg {
		return &usageError{errors.New(fixed)}
	}
	return &usageError{err}
}

// dashed writes a flag name as typed on the command line: -C, --limit.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// quoteList joins names as "a", "b" or "c", each with its dashes.
func quoteList(names []string, dash string) string {
	q := make([]string, len(names))
	for i, n := range names {
		if dash != "" {
			n = dashed(n)
		}
		q[i] = n
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
