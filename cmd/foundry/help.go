// This file defines how help prints a flag: two dashes, a real placeholder
// (--title TEXT, --limit N), and a default only when the usage does not
// already give one and the flag has a value of its own.

package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"strings"
	"unicode/utf8"

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

// fitHelpPrinter makes urfave/cli's help printer render fitted to
// helpWidth columns: urfave/cli lays flags and commands out in a table
// without wrapping their usage.
func fitHelpPrinter(render func(io.Writer, string, any, map[string]any)) func(io.Writer, string, any, map[string]any) {
	return func(out io.Writer, templ string, data any, funcs map[string]any) {
		all := maps.Clone(helpFuncs)
		maps.Copy(all, funcs)
		var b bytes.Buffer
		render(&b, templ, data, all)
		_, _ = io.WriteString(out, fitHelp(b.String(), helpWidth))
	}
}

// helpFuncs are the functions of foundry's help templates.
var helpFuncs = map[string]any{
	// takesSource reports whether the command whose help name is
	// helpName ("foundry memory write") takes the global flag --rev or
	// --staged (flag "rev" or "staged"); a group does.
	"takesSource": func(helpName, flag string) bool {
		path := strings.TrimPrefix(helpName, "foundry ")
		return !refuses(path, flag)
	},
}

// helpWidth is the width help fits in: an 80-column terminal.
const helpWidth = 80

// fitHelp wraps every line of rendered help wider than width at spaces.
// A continuation starts under the line's text column: after the first run
// of two or more spaces (the gap tabwriter leaves after a flag or command
// name), or else under the line's own indentation. Descriptions are kept
// narrow at the source (checkDescriptionWidth); the long lines are the
// flag and command tables, whose first column only help's layout knows.
func fitHelp(help string, width int) string {
	lines := strings.SplitAfter(help, "\n")
	var b strings.Builder
	for _, line := range lines {
		text := strings.TrimSuffix(line, "\n")
		hang := hangingIndent(text, width)
		for utf8.RuneCountInString(text) > width {
			cut := breakAt(text, width, hang)
			if cut < 0 {
				break // one word wider than the line: leave it whole
			}
			b.WriteString(strings.TrimRight(text[:cut], " ") + "\n")
			text = strings.Repeat(" ", hang) + strings.TrimLeft(text[cut:], " ")
		}
		b.WriteString(text)
		if strings.HasSuffix(line, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// hangingIndent is the column a wrapped line continues at: the start of
// its text column, or its indentation when it has none. A text column past
// half the width would leave too little room, so the indentation is used.
func hangingIndent(line string, width int) int {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if gap := strings.Index(line[indent:], "  "); gap >= 0 {
		col := indent + gap + len("  ")
		for col < len(line) && line[col] == ' ' {
			col++
		}
		if col < len(line) && utf8.RuneCountInString(line[:col]) <= width/2 {
			return utf8.RuneCountInString(line[:col])
		}
	}
	return indent
}

// breakAt returns the byte offset of the last space at which line can be
// cut so that its first part fits width runes, or -1 when there is none
// past column hang (cutting there would make no progress).
func breakAt(line string, width, hang int) int {
	cut, col := -1, 0
	for i, r := range line {
		if col > width {
			break
		}
		if r == ' ' && col > hang && i > 0 && line[i-1] != ' ' {
			cut = i
		}
		col++
	}
	return cut
}
