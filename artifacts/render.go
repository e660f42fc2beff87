package artifacts

// This file defines the renderers: one per format, shared by every caller.

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/jsonindent"
)

// Verdict is the seed's answer for one document checked against contract:
// "VALID against <id>\n", or "INVALID against <id>:\n" and one line per
// violation, bullet then "<pointer>: <problem>". The CLI's bullet is
// "  - " (seed 004), the MCP tool's "- " (seed 000).
func Verdict(contract string, vs []contracts.Violation, bullet string) string {
	if len(vs) == 0 {
		return "VALID against " + contract + "\n"
	}
	var b strings.Builder
	b.WriteString("INVALID against " + contract + ":\n")
	for _, v := range vs {
		b.WriteString(bullet + v.String() + "\n")
	}
	return b.String()
}

// WriteText writes the CLI's text report: each validated document's
// [Verdict], headed by its path when there are several; documents that
// could not be validated go to stderr as "foundry: <path>: <error>".
func WriteText(stdout, stderr io.Writer, results []Result) error {
	var sb strings.Builder
	blocks := 0
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(stderr, "foundry: %s: %v\n", r.Path, r.Err)
			continue
		}
		if len(results) > 1 {
			if blocks > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(r.Path + "\n")
		}
		blocks++
		sb.WriteString(Verdict(r.Contract, r.Violations, "  - "))
	}
	_, err := io.WriteString(stdout, sb.String())
	return err
}

// Problem is one located problem, what the lines and SARIF renderers print:
// a violation, a document that could not be validated, a doctor finding.
type Problem struct {
	Rule         string // contract id, RuleUnreadable, or a doctor check id
	Level        string // SARIF level: "error", "warning" or "note"
	File         string // slash path; "" for the project as a whole
	Line, Column int    // 1-based under contracts.Position; 0 when unknown
	Pointer      string // "#…" for a violation, "" otherwise
	Message      string // the whole text after the position
}

// RuleUnreadable is the rule of documents that could not be validated.
const RuleUnreadable = "foundry/unreadable-artifact"

// Problems flattens results into problems, in order: per document, its
// error or its violations ("<pointer>: <problem>").
func Problems(results []Result) []Problem {
	var out []Problem
	for _, r := range results {
		if r.Err != nil {
			p := Problem{Rule: RuleUnreadable, Level: "error", File: r.Path, Message: r.Err.Error()}
			var pe *contracts.ParseError
			if errors.As(r.Err, &pe) {
				p.Line, p.Column, p.Message = pe.Line, pe.Column, "not parseable JSON: "+pe.Err.Error()
			}
			out = append(out, p)
			continue
		}
		for _, v := range r.Violations {
			out = append(out, Problem{Rule: r.Contract, Level: "error", File: r.Path, Line: v.Line, Column: v.Column, Pointer: v.Pointer, Message: v.String()})
		}
	}
	return out
}

// WriteLines writes one "path:line:col: <pointer>: <problem>" line per
// problem, the format of compilers that editors and CI read, then summary
// on a line of its own when it is not empty. A clean run prints nothing, as
// linters do. Every line has that one form, whichever command wrote it: a
// problem with no position is placed at 1:1, one whose message starts with
// no JSON pointer (a document that could not be validated, a doctor
// finding) at "#", the whole document, and one with no file at "(project)".
func WriteLines(w io.Writer, problems []Problem, summary string) error {
	var sb strings.Builder
	for _, p := range problems {
		file := p.File
		if file == "" {
			file = "(project)"
		}
		msg := p.Message
		if !strings.HasPrefix(msg, "#") {
			msg = "#: " + msg
		}
		fmt.Fprintf(&sb, "%s:%d:%d: %s\n", file, max(p.Line, 1), max(p.Column, 1), msg)
	}
	if summary != "" {
		sb.WriteString(summary + "\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// Summary is the closing line of `foundry validate --format lines`:
// "foundry validate: 3 problems in 2 of 5 files", or "" when every
// document is valid.
func Summary(results []Result) string {
	problems, bad := 0, 0
	for _, r := range results {
		if !r.OK() {
			bad++
			problems += max(len(r.Violations), 1)
		}
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("foundry validate: %d %s in %d of %d %s", problems, plural(problems, "problem", "problems"),
		bad, len(results), plural(len(results), "file", "files"))
}

// ViolationJSON is a violation as JSON reports carry it.
type ViolationJSON struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// ViolationsJSON converts violations for a JSON report; never nil.
func ViolationsJSON(vs []contracts.Violation) []ViolationJSON {
	out := make([]ViolationJSON, 0, len(vs))
	for _, v := range vs {
		out = append(out, ViolationJSON{Pointer: v.Pointer, Message: v.Message, Line: v.Line, Column: v.Column})
	}
	return out
}

type fileJSON struct {
	Path       string          `json:"path"`
	Contract   string          `json:"contract,omitempty"`
	Valid      bool            `json:"valid"`
	Violations []ViolationJSON `json:"violations"`
	Error      string          `json:"error,omitempty"`
	Line       int             `json:"line,omitempty"`
	Column     int             `json:"column,omitempty"`
}

// WriteJSON writes the JSON report: {"valid": …, "files": [{path, contract,
// valid, violations: [{pointer, message, line, column}], error, line,
// column}]}, the error's position given for a document that is not
// parseable.
func WriteJSON(w io.Writer, results []Result) error {
	out := struct {
		Valid bool       `json:"valid"`
		Files []fileJSON `json:"files"`
	}{Valid: true, Files: []fileJSON{}}
	for _, r := range results {
		f := fileJSON{Path: r.Path, Contract: r.Contract, Valid: r.OK(), Violations: ViolationsJSON(r.Violations)}
		if r.Err != nil {
			f.Error = r.Err.Error()
			var pe *contracts.ParseError
			if errors.As(r.Err, &pe) {
				f.Line, f.Column = pe.Line, pe.Column
			}
		}
		out.Valid = out.Valid && f.Valid
		out.Files = append(out.Files, f)
	}
	return jsonindent.Write(w, out)
}

// SARIF is one SARIF 2.1.0 run to write.
type SARIF struct {
	Tool           string // the driver's name
	Version        string // the driver's version; may be empty
	InformationURI string // may be empty
	// BaseURI, when set, is the file: URI of the folder that problem files
	// are relative to (the project root), declared as PROJECTROOT.
	BaseURI string
	// Prefix, when set, is the slash-separated path of the project's
	// folder in its repository ("services/shop"): it goes before every
	// problem file, so each names its file from the repository root, as
	// code scanning reads them, and BaseURI is left out.
	Prefix string
	// Rules are declared first, in order; rules that problems name and
	// that are missing here are added after them, described by
	// RuleDescription.
	Rules           []Rule
	RuleDescription func(id string) string
	Problems        []Problem
}

// Rule is one SARIF rule.
type Rule struct {
	ID          string
	Description string
	Level       string // default level; "" leaves it out
}

// WriteSARIF writes s as a SARIF 2.1.0 log. Columns are declared as
// "unicodeCodePoints", the rule of contracts.Position.
func WriteSARIF(w io.Writer, s SARIF) error {
	type (
		message struct {
			Text string `json:"text"`
		}
		rule struct {
			ID                   string            `json:"id"`
			ShortDescription     message           `json:"shortDescription"`
			DefaultConfiguration map[string]string `json:"defaultConfiguration,omitempty"`
		}
		region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn,omitempty"`
		}
		artifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId,omitempty"`
		}
		physicalLocation struct {
			ArtifactLocation artifactLocation `json:"artifactLocation"`
			Region           *region          `json:"region,omitempty"`
		}
		location struct {
			PhysicalLocation physicalLocation `json:"physicalLocation"`
		}
		result struct {
			RuleID     string            `json:"ruleId"`
			RuleIndex  int               `json:"ruleIndex"`
			Level      string            `json:"level"`
			Message    message           `json:"message"`
			Locations  []location        `json:"locations,omitempty"`
			Properties map[string]string `json:"properties,omitempty"`
		}
		driver struct {
			Name           string `json:"name"`
			Version        string `json:"version,omitempty"`
			InformationURI string `json:"informationUri,omitempty"`
			Rules          []rule `json:"rules"`
		}
		tool struct {
			Driver driver `json:"driver"`
		}
		run struct {
			Tool               tool                         `json:"tool"`
			OriginalURIBaseIDs map[string]map[string]string `json:"originalUriBaseIds,omitempty"`
			ColumnKind         string                       `json:"columnKind"`
			Results            []result                     `json:"results"`
		}
		log struct {
			Schema  string `json:"$schema"`
			Version string `json:"version"`
			Runs    []run  `json:"runs"`
		}
	)
	r := run{
		Tool:       tool{Driver: driver{Name: s.Tool, Version: s.Version, InformationURI: s.InformationURI, Rules: []rule{}}},
		ColumnKind: "unicodeCodePoints",
		Results:    []result{},
	}
	index := map[string]int{}
	addRule := func(ru Rule) {
		if _, ok := index[ru.ID]; ok {
			return
		}
		index[ru.ID] = len(r.Tool.Driver.Rules)
		nr := rule{ID: ru.ID, ShortDescription: message{ru.Description}}
		if ru.Level != "" {
			nr.DefaultConfiguration = map[string]string{"level": ru.Level}
		}
		r.Tool.Driver.Rules = append(r.Tool.Driver.Rules, nr)
	}
	for _, ru := range s.Rules {
		addRule(ru)
	}
	baseID := ""
	if s.BaseURI != "" && s.Prefix == "" {
		baseID = "PROJECTROOT"
		r.OriginalURIBaseIDs = map[string]map[string]string{baseID: {"uri": s.BaseURI}}
	}
	for _, p := range s.Problems {
		if _, ok := index[p.Rule]; !ok {
			desc := p.Rule
			if s.RuleDescription != nil {
				desc = s.RuleDescription(p.Rule)
			}
			addRule(Rule{ID: p.Rule, Description: desc})
		}
		res := result{RuleID: p.Rule, RuleIndex: index[p.Rule], Level: p.Level, Message: message{p.Message}}
		if p.File != "" {
			file := p.File
			if s.Prefix != "" {
				file = path.Join(s.Prefix, file)
			}
			loc := location{PhysicalLocation: physicalLocation{ArtifactLocation: artifactLocation{URI: (&url.URL{Path: file}).String(), URIBaseID: baseID}}}
			if p.Line > 0 {
				loc.PhysicalLocation.Region = &region{StartLine: p.Line, StartColumn: p.Column}
			}
			res.Locations = []location{loc}
		}
		if p.Pointer != "" {
			res.Properties = map[string]string{"pointer": p.Pointer}
		}
		r.Results = append(r.Results, res)
	}
	return jsonindent.Write(w, log{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []run{r}})
}

// ValidateRuleDescription describes the SARIF rules of `foundry validate`:
// RuleUnreadable, and one per contract.
func ValidateRuleDescription(id string) string {
	if id == RuleUnreadable {
		return "The artifact cannot be read, parsed or matched to a contract"
	}
	return "The artifact violates contract " + id
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
