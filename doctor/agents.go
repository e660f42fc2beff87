// This file defines the checks of agent definitions: the contracts an agent
// declares under "## Input contract" and "## Output contract" exist, and
// the artifact at a declared blackboard path satisfies the declared
// contract.

package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/lazyre"
)

// agentGlobs are where agent definitions live, relative to the project
// root: Claude Code's project agents and a plugin's agents.
var agentGlobs = []string{".claude/agents/*.md", "agents/*.md", "plugins/*/agents/*.md"}

// Declaration is one contract an agent definition declares.
type Declaration struct {
	Section  string // "Input contract" or "Output contract"
	Contract string // e.g. "finding.v1"
	// Path is the blackboard path declared with it, e.g.
	// ".foundry/blackboard/audit/appsec-reviewer.json"; it may hold
	// placeholders such as <wave>. Empty when none is declared.
	Path string
	Line int // 1-based line of the declaration in the file
}

var (
	sectionHeading = lazyre.New(`^##\s+(Input|Output)\s+contracts?\s*$`)
	anyHeading     = lazyre.New(`^#{1,2}\s`)
	codeSpan       = lazyre.New("`([^`]+)`")
	placeholder    = lazyre.New(`<[^>/]*>|\{[^}/]*\}`)
)

// ParseAgent returns the contracts an agent definition (markdown) declares,
// in file order. A declaration is a code span holding a contract id in an
// "## Input contract" or "## Output contract" section, optionally with a
// code span holding a .foundry/blackboard/ path on the same line, as in
//
//	## Output contract
//	`finding.v1` — written to `.foundry/blackboard/audit/appsec-reviewer.json`
//
// Fenced code blocks are skipped.
func ParseAgent(md []byte) []Declaration {
	var out []Declaration
	section := ""
	fenced := false
	for i, line := range strings.Split(strings.ReplaceAll(string(md), "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := sectionHeading().FindStringSubmatch(trimmed); m != nil {
			section = m[1] + " contract"
			continue
		}
		if anyHeading().MatchString(trimmed) {
			section = ""
			continue
		}
		if section == "" {
			continue
		}
		var ids []string
		p := ""
		for _, m := range codeSpan().FindAllStringSubmatch(line, -1) {
			tok := strings.TrimSpace(m[1])
			switch {
			case contracts.ValidID(tok):
				ids = append(ids, tok)
			case strings.HasPrefix(tok, artifacts.Dir+"/") && p == "":
				p = tok
			}
		}
		for _, id := range ids {
			out = append(out, Declaration{Section: section, Contract: id, Path: p, Line: i + 1})
		}
	}
	return out
}

func (r *run) checkAgents(context.Context) error {
	var files []string
	for _, g := range agentGlobs {
		m, err := fs.Glob(r.p.FS, g)
		if err != nil {
			return err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	for _, file := range files {
		data, err := fs.ReadFile(r.p.FS, file)
		msg, unread := unreadable(err)
		switch {
		case unread:
			// A dangling link among the agents is a finding, not the end
			// of the sweep.
			r.add(CheckAgentsContract, Finding{File: file, Message: msg})
			continue
		case err != nil:
			return err
		}
		r.rep.Files++
		for _, d := range ParseAgent(data) {
			r.checked(CheckAgentsContract, 1)
			if !r.reg.Has(d.Contract) {
				r.add(CheckAgentsContract, Finding{File: file, Line: d.Line, Message: fmt.Sprintf(
					"## %s names %s, which is not a known contract (available: %s)", d.Section, d.Contract, strings.Join(r.reg.IDs(), ", "))})
				continue
			}
			if d.Path == "" {
				continue
			}
			if err := r.checkDeclaredArtifacts(file, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDeclaredArtifacts validates the artifacts at a declared path (every
// match, when the path has placeholders) against the declared contract. A
// path with no artifact yet is fine: the agent has not run here.
func (r *run) checkDeclaredArtifacts(file string, d Declaration) error {
	paths := []string{d.Path}
	if placeholder().MatchString(d.Path) {
		pattern := placeholder().ReplaceAllString(d.Path, "*")
		m, err := fs.Glob(r.p.FS, pattern)
		if err != nil {
			return nil // a declared path that is no valid pattern matches nothing
		}
		paths = m
	}
	for _, p := range paths {
		data, err := fs.ReadFile(r.p.FS, p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
			continue
		}
		if err != nil {
			if fi, serr := fs.Stat(r.p.FS, p); serr == nil && fi.IsDir() {
				continue // a folder holds no artifact of its own
			}
			if _, unread := unreadable(err); unread {
				continue // the blackboard sweep reports it
			}
			return err
		}
		r.checked(CheckAgentsArtifact, 1)
		if contracts.SchemaField(data) == d.Contract {
			continue // the sweep validated it against this very contract
		}
		vs, err := r.reg.Validate(d.Contract, data)
		var perr *contracts.ParseError
		switch {
		case errors.As(err, &perr):
			continue // reported by blackboard.parse
		case errors.Is(err, contracts.ErrInvalidSchema):
			continue // reported by contracts.local
		case err != nil:
			return err
		}
		note := fmt.Sprintf("%s:%d declares %s as its %s", file, d.Line, d.Contract, strings.ToLower(d.Section))
		for _, v := range vs {
			r.add(CheckAgentsArtifact, Finding{File: p, Line: v.Line, Column: v.Column, Pointer: v.Pointer, Message: v.String(), Note: note})
		}
	}
	return nil
}
