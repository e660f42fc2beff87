package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/project"
)

// maxArtifactBytes bounds a file foundry validate reads: the same bound as
// an MCP request. A larger file is refused without being read whole.
const maxArtifactBytes = confined.ArtifactMax

// blackboardDir holds the artifacts --auto validates by default.
const blackboardDir = ".foundry/blackboard"

type validateOptions struct {
	auto     bool
	format   string // text, lines, json or sarif
	contract string // the contract id, without --auto
	files    []string
	stdout   io.Writer
	stderr   io.Writer
}

func newValidateCommand(env *cliEnv) *cli.Command {
	opts := &validateOptions{}
	return &cli.Command{
		Name:      "validate",
		Usage:     "validate JSON artifacts against a contract",
		ArgsUsage: "<contract-id> <file>... | --auto [<file>...]",
		Description: `Validates each file against the contract (JSON Schema 2020-12) and prints,
per file, "VALID against <id>" or "INVALID against <id>:" followed by one
line per problem, "  - <json-pointer>: <problem>". With several files each
block is headed by the file's path.

With --auto each file's contract is its own "schema" field. Without files,
--auto validates every artifact under .foundry/blackboard/; with --rev REV,
every artifact at that revision; with --staged, only the blackboard files
the index adds or changes relative to HEAD, as staged (what the pre-commit
hook runs). Files given with --rev or --staged are read from there too.

Formats: text (the default above); lines, one "path:line:col: <pointer>:
<problem>" line per problem; json (also --json) and sarif (SARIF 2.1.0),
both with path, line, column, pointer and message. Columns count
characters.

A file that is missing, a folder, empty, larger than 8 MiB or not
parseable JSON is an error, as is a file without a "schema" field under
--auto; the other files are still validated.

EXIT STATUS:
   0  every file is valid
   1  a file is invalid or cannot be validated, or the contract is unknown
   2  malformed command line`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "auto", Usage: `pick each file's contract from its "schema" field`, Destination: &opts.auto},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text, lines, json or sarif", Destination: &opts.format},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			switch {
			case env.json && c.IsSet("format") && opts.format != "json":
				return usageErrorf("--json and --format %s cannot be used together", opts.format)
			case env.json:
				opts.format = "json"
			}
			switch opts.format {
			case "text", "lines", "json", "sarif":
			default:
				return usageErrorf("--format %q: want text, lines, json or sarif", opts.format)
			}
			if !opts.auto {
				if len(args) < 2 {
					return usageErrorf("validate needs a contract id and at least one file, or --auto")
				}
				opts.contract, args = args[0], args[1:]
			}
			opts.files = args
			opts.stdout, opts.stderr = env.stdout, env.stderr
			return runValidate(c.Context, env, opts)
		},
	}
}

// validateInput is one file to validate: the path shown for it and how to
// read it.
type validateInput struct {
	path string
	read func() ([]byte, error)
}

// validateResult is the outcome for one file: violations against contract,
// or err when the file could not be validated at all.
type validateResult struct {
	path       string
	contract   string
	violations []contracts.Violation
	err        error
}

func (r validateResult) ok() bool { return r.err == nil && len(r.violations) == 0 }

func runValidate(ctx context.Context, env *cliEnv, opts *validateOptions) error {
	// Validation does not depend on the config, so a broken config.yaml
	// (which foundry doctor reports) does not stop it.
	p, err := project.OpenLenient(env.dir, env.source())
	if err != nil {
		// Files on disk need no project; the embedded contracts apply.
		if !errors.Is(err, project.ErrNoProject) || len(opts.files) == 0 || env.rev != "" || env.staged {
			return err
		}
		p = nil
	}
	var projectFS fs.FS
	if p != nil {
		projectFS = p.FS
	}
	reg, err := contracts.Load(projectFS)
	if err != nil {
		return err
	}
	if !opts.auto {
		if _, err := reg.Schema(opts.contract); err != nil {
			return err
		}
	}
	inputs, err := validateInputs(env, p, opts.files)
	if err != nil {
		return err
	}
	if len(inputs) == 0 && opts.format == "text" {
		fmt.Fprintf(opts.stderr, "no artifacts under %s/ in the %s\n", blackboardDir, p.Label())
	}
	if len(inputs) > 100 {
		// Each document's garbage dies young and the live heap stays small;
		// collecting less often saves about a sixth of a large sweep.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	results := validateAll(ctx, reg, opts, inputs)
	if err := ctx.Err(); err != nil {
		return err
	}

	switch opts.format {
	case "lines":
		err = renderLines(opts.stdout, results)
	case "json":
		err = renderJSON(opts.stdout, results)
	case "sarif":
		err = renderSARIF(opts.stdout, results)
	default:
		err = renderText(opts.stdout, opts.stderr, results)
	}
	if err != nil {
		return err
	}
	for _, r := range results {
		if !r.ok() {
			return silentExit(exitFailure)
		}
	}
	return nil
}

// validateInputs lists what to read: the files given (from disk, or from
// the index or revision chosen), or the blackboard's artifacts.
func validateInputs(env *cliEnv, p *project.Project, files []string) ([]validateInput, error) {
	var inputs []validateInput
	if len(files) > 0 {
		for _, f := range files {
			abs := f
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(env.dir, f)
			}
			if p == nil || p.Writable() {
				inputs = append(inputs, validateInput{path: f, read: func() ([]byte, error) { return readOSFile(abs) }})
				continue
			}
			rel, err := filepath.Rel(p.Root, abs)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, fmt.Errorf("%s is outside the project %s; the %s holds only project files", f, p.Root, p.Source)
			}
			name := filepath.ToSlash(rel)
			inputs = append(inputs, validateInput{path: f, read: func() ([]byte, error) { return readFSFile(p.FS, name) }})
		}
		return inputs, nil
	}

	var names []string
	if p.Source.Staged {
		// The list and the content come from one reading of the index.
		changes, err := p.Index.StagedChanges(path.Join(p.RelRoot, blackboardDir))
		if err != nil {
			return nil, fmt.Errorf("list staged artifacts: %w", err)
		}
		for _, c := range changes {
			if c.Kind != git.Deleted && strings.HasSuffix(c.Path, ".json") {
				names = append(names, blackboardDir+"/"+c.Path)
			}
		}
	} else {
		err := fs.WalkDir(p.FS, blackboardDir, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				if name == blackboardDir && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipAll
				}
				return err
			}
			// A link is read through, as foundry doctor reads it; a
			// dangling one is reported as a missing file.
			if (d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) && strings.HasSuffix(name, ".json") {
				names = append(names, name)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list artifacts: %w", err)
		}
		sort.Strings(names)
	}
	base, err := filepath.Abs(env.dir)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		shown := name
		if rel, err := filepath.Rel(base, p.Path(name)); err == nil {
			shown = filepath.ToSlash(rel)
		}
		inputs = append(inputs, validateInput{path: shown, read: func() ([]byte, error) { return readFSFile(p.FS, name) }})
	}
	return inputs, nil
}

// validateAll validates the inputs on every CPU, keeping their order.
func validateAll(ctx context.Context, reg *contracts.Registry, opts *validateOptions, inputs []validateInput) []validateResult {
	results := make([]validateResult, len(inputs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(inputs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = validateOne(reg, opts, inputs[i])
			}
		}()
	}
	for i := range inputs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func validateOne(reg *contracts.Registry, opts *validateOptions, in validateInput) validateResult {
	res := validateResult{path: in.path, contract: opts.contract}
	doc, err := in.read()
	if err != nil {
		res.err = err
		return res
	}
	if opts.auto {
		res.contract, res.violations, res.err = reg.ValidateAuto(doc)
	} else {
		res.violations, res.err = reg.Validate(opts.contract, doc)
	}
	return res
}

func readOSFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, readError(err)
	}
	defer f.Close()
	return readLimited(f)
}

func readFSFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, readError(err)
	}
	defer f.Close()
	return readLimited(f)
}

func readError(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such file")
	}
	return err
}

// readLimited reads an open file after checking, from its size, that it is
// a regular file of at most maxArtifactBytes; the read itself is bounded
// too, in case the file grows meanwhile.
func readLimited(f fs.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return nil, errors.New("is a folder, not a file")
	case fi.Size() > maxArtifactBytes:
		return nil, fmt.Errorf("file is %d bytes, over the 8 MiB limit; not read", fi.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxArtifactBytes+1))
	switch {
	case err != nil:
		return nil, err
	case len(b) > maxArtifactBytes:
		return nil, errors.New("file is over the 8 MiB limit; not read")
	case len(b) == 0:
		return nil, errors.New("file is empty, not a JSON document")
	}
	return b, nil
}

// renderText prints the seed's blocks, each headed by the file's path when
// there are several files; files that could not be validated are reported
// on stderr.
func renderText(stdout, stderr io.Writer, results []validateResult) error {
	var sb strings.Builder
	blocks := 0
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(stderr, "foundry: %s: %v\n", r.path, r.err)
			continue
		}
		if len(results) > 1 {
			if blocks > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(r.path + "\n")
		}
		blocks++
		if len(r.violations) == 0 {
			fmt.Fprintf(&sb, "VALID against %s\n", r.contract)
			continue
		}
		fmt.Fprintf(&sb, "INVALID against %s:\n", r.contract)
		for _, v := range r.violations {
			fmt.Fprintf(&sb, "  - %s\n", v)
		}
	}
	_, err := io.WriteString(stdout, sb.String())
	return err
}

// renderLines prints one "path:line:col: <pointer>: <problem>" line per
// problem, the format of compilers and of the pre-commit hook.
func renderLines(w io.Writer, results []validateResult) error {
	var sb strings.Builder
	problems, bad := 0, 0
	for _, r := range results {
		if !r.ok() {
			bad++
			problems += max(len(r.violations), 1)
		}
		var pe *contracts.ParseError
		switch {
		case errors.As(r.err, &pe):
			fmt.Fprintf(&sb, "%s:%d:%d: not parseable JSON: %v\n", r.path, pe.Line, pe.Column, pe.Err)
		case r.err != nil:
			fmt.Fprintf(&sb, "%s: %v\n", r.path, r.err)
		}
		for _, v := range r.violations {
			fmt.Fprintf(&sb, "%s:%d:%d: %s\n", r.path, v.Line, v.Column, v)
		}
	}
	// A clean run stays silent, as linters do; a failing one ends with a
	// one-line summary.
	if bad > 0 {
		fmt.Fprintf(&sb, "foundry validate: %d %s in %d of %d %s\n", problems, plural(problems, "problem", "problems"),
			bad, len(results), plural(len(results), "file", "files"))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

type jsonViolation struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

type jsonFile struct {
	Path       string          `json:"path"`
	Contract   string          `json:"contract,omitempty"`
	Valid      bool            `json:"valid"`
	Violations []jsonViolation `json:"violations"`
	Error      string          `json:"error,omitempty"`
	Line       int             `json:"line,omitempty"`
	Column     int             `json:"column,omitempty"`
}

func renderJSON(w io.Writer, results []validateResult) error {
	out := struct {
		Valid bool       `json:"valid"`
		Files []jsonFile `json:"files"`
	}{Valid: true, Files: []jsonFile{}}
	for _, r := range results {
		f := jsonFile{Path: r.path, Contract: r.contract, Valid: r.ok(), Violations: []jsonViolation{}}
		for _, v := range r.violations {
			f.Violations = append(f.Violations, jsonViolation{v.Pointer, v.Message, v.Line, v.Column})
		}
		if r.err != nil {
			f.Error = r.err.Error()
			var pe *contracts.ParseError
			if errors.As(r.err, &pe) {
				f.Line, f.Column = pe.Line, pe.Column
			}
		}
		out.Valid = out.Valid && f.Valid
		out.Files = append(out.Files, f)
	}
	return writeJSON(w, out)
}

// SARIF 2.1.0, the subset code-scanning services read.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		ColumnKind string        `json:"columnKind"`
		Results    []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name    string      `json:"name"`
		Version string      `json:"version,omitempty"`
		Rules   []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string       `json:"id"`
		ShortDescription sarifMessage `json:"shortDescription"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID     string            `json:"ruleId"`
		Level      string            `json:"level"`
		Message    sarifMessage      `json:"message"`
		Locations  []sarifLocation   `json:"locations"`
		Properties map[string]string `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// inputRule is the SARIF rule of files that could not be validated.
const inputRule = "foundry/unreadable-artifact"

func renderSARIF(w io.Writer, results []validateResult) error {
	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: "foundry", Version: currentVersion().Version, Rules: []sarifRule{}}},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
	rules := map[string]bool{}
	addRule := func(id, text string) {
		if !rules[id] {
			rules[id] = true
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{text}})
		}
	}
	location := func(p string, line, col int) []sarifLocation {
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: filepath.ToSlash(p)}).String()}}}
		if line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: line, StartColumn: col}
		}
		return []sarifLocation{loc}
	}
	for _, r := range results {
		if r.err != nil {
			addRule(inputRule, "The artifact cannot be read, parsed or matched to a contract")
			line, col := 0, 0
			var pe *contracts.ParseError
			if errors.As(r.err, &pe) {
				line, col = pe.Line, pe.Column
			}
			run.Results = append(run.Results, sarifResult{RuleID: inputRule, Level: "error",
				Message: sarifMessage{r.err.Error()}, Locations: location(r.path, line, col)})
			continue
		}
		for _, v := range r.violations {
			addRule(r.contract, "The artifact violates contract "+r.contract)
			run.Results = append(run.Results, sarifResult{RuleID: r.contract, Level: "error",
				Message: sarifMessage{v.String()}, Locations: location(r.path, v.Line, v.Column),
				Properties: map[string]string{"pointer": v.Pointer}})
		}
	}
	return writeJSON(w, sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

// plural picks the singular or plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
