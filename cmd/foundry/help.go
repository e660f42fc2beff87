// This file defines how help prints a flag: two dashes, a real placeholder
// (--title TEXT, --limit N), and a default only when the usage does not
// already give one and the flag has a value of its own.

package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// flagHelp is foundry's cli.FlagStringer.
func flagHelp(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	placeholder, usage := splitPlaceholder(df.GetUsage())
	if df.TakesValue() && placeholder == "" {
		placeholder = "TEXT"
		if _, isInt := f.(*cli.IntFlag); isInt {
			placeholder = "N"
		}
	}
	var names []string
	for _, n := range df.Names() {
		names = append(names, dashed(n))
	}
	head := strings.Join(names, ", ")
	if placeholder != "" {
		head += " " + placeholder
	}
	if sf, ok := f.(cli.DocGenerationSliceFlag); ok && sf.IsSliceFlag() {
		head += " (repeatable)"
	}
	// A bool's default is off, an int's 0 means "not set": neither says
	// anything. A string default is shown unless the usage already says it.
	if sf, ok := f.(*cli.StringFlag); ok && sf.Value != "" && !strings.Contains(usage, "default") {
		usage += fmt.Sprintf(" (default: %s)", sf.Value)
	}
	return head + "\t" + usage
}

// splitPlaceholder returns the `quoted` word of a usage as the placeholder,
// and the usage without the back quotes, as urfave/cli does.
func splitPlaceholder(usage string) (placeholder, text string) {
	start := strings.IndexByte(usage, '`')
	if start < 0 {
		return "", usage
	}
	end := strings.IndexByte(usage[start+1:], '`')
	if end < 0 {
		return "", usage
	}
	placeholder = usage[start+1 : start+1+end]
	return placeholder, usage[:start] + placeholder + usage[start+1+end+1:]
}
