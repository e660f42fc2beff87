// This file renders a Report: the human summary, the lines and SARIF forms
// (through package artifacts' renderers), and the summary the MCP doctor
// tool returns.

package doctor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/foundryhq/foundry/artifacts"
)

// Limits of the human summary; --json and SARIF carry everything.
const (
	maxFilesShown    = 20
	maxMessagesShown = 10
)

// WriteText writes the human summary: a header, then each check that has
// findings with its counts per file and the findings themselves, the
// checks that passed or were skipped, and a closing line with the totals.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "foundry doctor: %s (%s)\n", r.Root, r.Source)
	switch {
	case r.History.Ran:
		s := fmt.Sprintf("history: %d %s walked from %s", r.History.Commits, plural(r.History.Commits, "commit", "commits"), r.History.From)
		if r.History.Truncated {
			s += " (shallow clone: older history is missing)"
		}
		fmt.Fprintln(&b, s)
	case r.History.Skipped != "":
		fmt.Fprintf(&b, "history: skipped (%s)\n", r.History.Skipped)
	}

	byCheck := map[string][]Finding{}
	for _, f := range r.Findings {
		byCheck[f.Check] = append(byCheck[f.Check], f)
	}
	var passed []CheckResult
	skipped := map[string][]string{}
	var skipOrder []string
	for _, c := range r.Checks {
		fs := byCheck[c.ID]
		switch {
		case c.Skipped != "":
			if skipped[c.Skipped] == nil {
				skipOrder = append(skipOrder, c.Skipped)
			}
			skipped[c.Skipped] = append(skipped[c.Skipped], c.ID)
			continue
		case len(fs) == 0:
			passed = append(passed, c)
			continue
		}
		b.WriteString("\n")
		writeCheck(&b, c, fs)
	}
	b.WriteString("\n")
	switch {
	case len(passed) > 0 && len(r.Findings) == 0:
		// A clean report says what it verified, check by check.
		b.WriteString("passed:\n")
		for _, c := range passed {
			fmt.Fprintf(&b, "  %-24s %6s checked  %s\n", c.ID, thousands(c.Checked), c.Title)
		}
	case len(passed) > 0:
		ids := make([]string, len(passed))
		for i, c := range passed {
			ids[i] = c.ID
		}
		fmt.Fprintf(&b, "passed:  %s\n", strings.Join(ids, ", "))
	}
	for _, why := range skipOrder {
		fmt.Fprintf(&b, "skipped: %s (%s)\n", strings.Join(skipped[why], ", "), why)
	}
	b.WriteString(r.totals())
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Text returns the human summary as a string.
func (r *Report) Text() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}

// totals is the closing line: "2 errors, 1 warning, 3 info in 4 files; 1,234
// files checked." or "No problems found; 1,234 files checked."
func (r *Report) totals() string {
	files := map[string]bool{}
	for _, f := range r.Findings {
		if f.File != "" {
			files[f.File] = true
		}
	}
	checked := fmt.Sprintf("%s %s checked", thousands(r.Files), plural(r.Files, "file", "files"))
	if len(r.Findings) == 0 {
		return "No problems found; " + checked + "."
	}
	return fmt.Sprintf("%d %s, %d %s, %d info in %d %s; %s.",
		r.Errors, plural(r.Errors, "error", "errors"), r.Warnings, plural(r.Warnings, "warning", "warnings"),
		r.Infos, len(files), plural(len(files), "file", "files"), checked)
}

func writeCheck(b *strings.Builder, c CheckResult, fs []Finding) {
	var files []string
	perFile := map[string][]Finding{}
	for _, f := range fs {
		if _, ok := perFile[f.File]; !ok {
			files = append(files, f.File)
		}
		perFile[f.File] = append(perFile[f.File], f)
	}
	nf := c.Files
	fmt.Fprintf(b, "%s %s: %d %s", c.Severity, c.ID, len(fs), plural(len(fs), "finding", "findings"))
	if nf > 0 {
		fmt.Fprintf(b, " in %d %s", nf, plural(nf, "file", "files"))
	}
	fmt.Fprintf(b, " (%s)\n", c.Title)
	var fixes []string
	for i, file := range files {
		if i == maxFilesShown {
			fmt.Fprintf(b, "  … and %d more %s (use --json for all)\n", len(files)-i, plural(len(files)-i, "file", "files"))
			break
		}
		ff := perFile[file]
		name := file
		if name == "" {
			name = "(project)"
		}
		fmt.Fprintf(b, "  %s: %d\n", name, len(ff))
		note := ""
		for j, f := range ff {
			if j == maxMessagesShown {
				fmt.Fprintf(b, "      … and %d more\n", len(ff)-j)
				break
			}
			indent := "    "
			if f.Note != "" {
				if f.Note != note {
					fmt.Fprintf(b, "    %s:\n", f.Note)
					note = f.Note
				}
				indent = "      "
			}
			fmt.Fprintf(b, "%s%s%s\n", indent, position(f), f.Message)
		}
		for _, f := range ff {
			if f.Fix != "" && !contains(fixes, f.Fix) {
				fixes = append(fixes, f.Fix)
			}
		}
	}
	for _, fix := range fixes {
		fmt.Fprintf(b, "  fix: run `%s`\n", fix)
	}
}

func position(f Finding) string {
	switch {
	case f.Line > 0 && f.Column > 0:
		return fmt.Sprintf("%d:%d ", f.Line, f.Column)
	case f.Line > 0:
		return fmt.Sprintf("%d: ", f.Line)
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// thousands formats n with comma separators: 12345 → "12,345".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Summary runs doctor and returns the human summary with the report: what
// the read-only MCP doctor tool returns, so an agent can check a project
// before handing off.
func Summary(ctx context.Context, env Env) (string, *Report, error) {
	rep, err := Run(ctx, env)
	if err != nil {
		return "", nil, err
	}
	return rep.Text(), rep, nil
}

// Problems returns the findings as located problems, the unit of the
// shared lines and SARIF renderers. A finding's note leads its message and
// its fix follows it.
func (r *Report) Problems() []artifacts.Problem {
	out := make([]artifacts.Problem, 0, len(r.Findings))
	for _, f := range r.Findings {
		text := f.Message
		if f.Note != "" {
			text = f.Note + ": " + text
		}
		if f.Fix != "" {
			text += " (fix: " + f.Fix + ")"
		}
		out = append(out, artifacts.Problem{Rule: f.Check, Level: sarifLevel(f.Severity), File: f.File, Line: f.Line, Column: f.Column, Pointer: f.Pointer, Message: text})
	}
	return out
}

// SARIF renders the report as a SARIF 2.1.0 log with the writer `foundry
// validate` uses: one rule per check, one result per finding, located in
// its file relative to the project root (PROJECTROOT), or, with a prefix
// (the project's folder in its repository, see artifacts.SARIF.Prefix),
// relative to the repository root.
func (r *Report) SARIF(prefix string) ([]byte, error) {
	rules := make([]artifacts.Rule, len(r.Checks))
	for i, c := range r.Checks {
		rules[i] = artifacts.Rule{ID: c.ID, Description: c.Title, Level: sarifLevel(c.Severity)}
	}
	root := filepath.ToSlash(r.Root)
	if !strings.HasPrefix(root, "/") {
		root = "/" + root // a Windows drive path
	}
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	var b bytes.Buffer
	err := artifacts.WriteSARIF(&b, artifacts.SARIF{
		Tool:           "foundry doctor",
		InformationURI: "https://github.com/foundryhq/foundry",
		BaseURI:        (&url.URL{Scheme: "file", Path: root}).String(),
		Prefix:         prefix,
		Rules:          rules,
		Problems:       r.Problems(),
	})
	return b.Bytes(), err
}

func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// WriteLines writes each error and warning on one line,
// "path:line:col: <pointer>: <problem>", with the lines writer of `foundry
// validate --format lines`, the form editors and the pre-commit hook read;
// show turns a project-relative path into the path to print. A finding's
// note follows in parentheses. It returns the number of lines and of
// distinct files.
func (r *Report) WriteLines(w io.Writer, show func(string) string) (lines, files int, err error) {
	var problems []artifacts.Problem
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity == Info {
			continue
		}
		msg := f.Message
		if f.Note != "" {
			msg += " (" + f.Note + ")"
		}
		problems = append(problems, artifacts.Problem{Rule: f.Check, Level: sarifLevel(f.Severity), File: show(f.File),
			Line: f.Line, Column: f.Column, Message: msg})
		if !seen[f.File] {
			seen[f.File] = true
			files++
		}
	}
	return len(problems), files, artifacts.WriteLines(w, problems, "")
}
