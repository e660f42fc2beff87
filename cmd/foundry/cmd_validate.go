package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/gcpace"
	"github.com/foundryhq/foundry/project"
)

type validateOptions struct {
	auto     bool
	asInput  bool   // check each file as a blackboard write --data-file
	agent    string // the writing agent under --as-input
	format   string // text, lines, json or sarif
	prefix   string // --sarif-prefix, cleaned; "" for none
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
A file named - is read from stdin. A document missing "schema" or
"producedBy" gets a hint: blackboard write sets both itself, so its input
may leave them out.

With --as-input each file is checked as blackboard write would check it
as its --data-file: "schema" is set to the contract id and "producedBy"
to --agent (default "validate") before validating, so an input that
leaves them out passes, and a file that is not a JSON object fails as
write refuses it. Problems then carry no line and column. --as-input
needs the contract id; it cannot be used with --auto.

Formats: text (the default above); lines, one "path:line:col: <pointer>:
<problem>" line per problem; json (also --json) and sarif (SARIF 2.1.0),
both with path, line, column, pointer and message. Columns count
characters. A <file> is relative to the folder foundry runs in (-C DIR);
text and lines print it as given, and an artifact --auto finds relative
to that folder. json and sarif name a file of the project from the
project root, and a file outside it as given. With --sarif-prefix DIR,
the project's folder in its repository, SARIF names files from the
repository root, as code scanning wants them.

A file that is missing, a folder, empty, larger than 8 MiB or not
parseable JSON is an error, as is a file without a "schema" field under
--auto; the other files are still validated. Parseable JSON is UTF-8
with no lone surrogate escape, nested at most 10,000 deep, with at most
1,048,576 values, and numbers of at most 1,000 digits and exponents of at
most 10,000.

EXIT STATUS:
   0  every file is valid
   1  a file is invalid or cannot be validated, or the contract is unknown
   2  malformed command line`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "auto", Usage: `pick each file's contract from its "schema" field`, Destination: &opts.auto},
			&cli.BoolFlag{Name: "as-input", Usage: "check each file as a blackboard write --data-file input for the contract", Destination: &opts.asInput},
			&cli.StringFlag{Name: "agent", Value: "validate", Usage: "with --as-input, the `NAME` write would set as producedBy", Destination: &opts.agent},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text, lines, json or sarif", Destination: &opts.format},
			sarifPrefixFlag(&opts.prefix),
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			var err error
			if opts.format, err = checkFormat(c, env.json, opts.format); err != nil {
				return err
			}
			if opts.prefix, err = checkSARIFPrefix(c, opts.format, opts.prefix); err != nil {
				return err
			}
			switch {
			case opts.asInput && opts.auto:
				return usageErrorf("--as-input and --auto cannot be used together: --as-input needs the contract id")
			case c.IsSet("agent") && !opts.asInput:
				return usageErrorf("--agent needs --as-input")
			}
			if opts.asInput {
				if err := checkNames(struct{ field, name string }{"agent", opts.agent}); err != nil {
					return err
				}
			}
			if !opts.auto {
				if len(args) < 2 {
					return usageErrorf("validate needs a contract id and at least one file, or --auto")
				}
				opts.contract, args = args[0], args[1:]
			}
			if slices.Contains(args, "") {
				// An unset variable, not the current folder.
				return usageErrorf("validate takes no empty FILE name")
			}
			opts.files = args
			opts.stdout, opts.stderr = env.stdout, env.stderr
			return runValidate(c.Context, env, opts)
		},
	}
}

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
	// Machine answers name files from the project root, as every --json
	// answer does and as --sarif-prefix (the project's folder) needs.
	rootRelative := opts.format == "json" || opts.format == "sarif"
	inputs, err := validateInputs(ctx, env, p, opts.files, rootRelative)
	if err != nil {
		return err
	}
	if len(inputs) == 0 && opts.format == "text" {
		if env.staged {
			// The index may hold many artifacts: none of them changed.
			fmt.Fprintf(opts.stderr, "no artifacts under %s/ staged: the index adds or changes none relative to HEAD\n", artifacts.Dir)
		} else {
			fmt.Fprintf(opts.stderr, "no artifacts under %s/ in the %s\n", artifacts.Dir, p.Label())
		}
	}
	if len(inputs) > artifacts.Bulk {
		// Each document's garbage dies young and the live heap stays small;
		// collecting less often saves about a sixth of a large sweep.
		defer gcpace.Bound(400)()
	}
	copts := artifacts.Options{Contract: opts.contract}
	if opts.asInput {
		copts.Prepare = func(doc []byte) ([]byte, error) {
			return blackboard.AsWritten(doc, opts.contract, opts.agent)
		}
	}
	results, err := artifacts.Check(ctx, reg, inputs, copts)
	if err != nil {
		return err
	}
	switch opts.format {
	case "lines":
		err = artifacts.WriteLines(opts.stdout, artifacts.Problems(results), artifacts.Summary(results))
	case "json":
		err = artifacts.WriteJSON(opts.stdout, results)
	case "sarif":
		err = artifacts.WriteSARIF(opts.stdout, artifacts.SARIF{Tool: "foundry", Version: currentVersion().Version, Prefix: opts.prefix,
			RuleDescription: artifacts.ValidateRuleDescription, Problems: artifacts.Problems(results)})
	default:
		err = artifacts.WriteText(opts.stdout, opts.stderr, results)
	}
	if err != nil {
		return err
	}
	if opts.format == "text" && lacksWriteFields(results) {
		fmt.Fprintln(opts.stderr, "hint: blackboard write sets \"schema\" and \"producedBy\" itself (from --schema and --agent); an input for it may leave them out, the artifact it writes may not")
	}
	if id := contractNamedAsFile(opts, reg, results); id != "" && opts.format == "text" {
		fmt.Fprintf(opts.stderr, "hint: --auto takes files and reads each one's contract from its \"schema\" field; to check files against %s, drop --auto: foundry validate %s FILE...\n", id, id)
	}
	for _, r := range results {
		if !r.OK() {
			return silentExit(exitFailure)
		}
	}
	return nil
}

// contractNamedAsFile returns the contract id that --auto was given as a
// file that does not exist, as in `validate --auto finding.v1 a.json`, or
// "".
func contractNamedAsFile(opts *validateOptions, reg *contracts.Registry, results []artifacts.Result) string {
	if !opts.auto {
		return ""
	}
	for _, r := range results {
		if !errors.Is(r.Err, artifacts.ErrNotFound) || !contracts.ValidID(r.Path) {
			continue
		}
		if _, err := reg.Schema(r.Path); err == nil {
			return r.Path
		}
	}
	return ""
}

// lacksWriteFields reports a document whose only problem may be that it is
// a blackboard write input: "schema" or "producedBy" is missing.
func lacksWriteFields(results []artifacts.Result) bool {
	for _, r := range results {
		for _, v := range r.Violations {
			if v.Pointer == "#" && (v.Message == `missing required property "schema"` || v.Message == `missing required property "producedBy"`) {
				return true
			}
		}
	}
	return false
}

// validateInputs lists what to read: the files given (from disk, or from
// the index or revision chosen), or the blackboard's artifacts. Each is
// shown as seen from -C, or with rootRelative relative to the project
// root (a file given outside the project as it was given).
func validateInputs(ctx context.Context, env *cliEnv, p *project.Project, files []string, rootRelative bool) ([]artifacts.Input, error) {
	var inputs []artifacts.Input
	if len(files) > 0 {
		stdinUsed := false
		var places *projectPaths
		if p != nil {
			places = newProjectPaths(env, p.Root)
		}
		for _, f := range files {
			if f == "-" {
				// "-" is stdin, as for blackboard write --data-file -.
				if stdinUsed {
					return nil, usageErrorf("validate reads stdin (-) once")
				}
				stdinUsed = true
				promptTerminal(env.stdin, env.stderr, "the artifact's JSON", "or name a FILE")
				fsys, err := readStdinFS(ctx, env.stdin)
				if err != nil {
					return nil, err
				}
				inputs = append(inputs, artifacts.Input{Path: "-", FS: fsys, Name: stdinName})
				continue
			}
			var rel, read string
			inside := false
			if p != nil {
				// Where the file lies in the project decides how it is
				// read: inside .foundry through the project's source, whose
				// links lead only within .foundry, as every other reader
				// of .foundry; elsewhere as given.
				var err error
				if rel, read, inside, err = places.place(f); err != nil {
					return nil, err
				}
			}
			shown := f
			if rootRelative && inside {
				shown = rel
			}
			if p == nil || p.Writable() && (!inside || !confined.InFoundry(read)) {
				inputs = append(inputs, artifacts.File(shown, env.path(f)))
				continue
			}
			if !inside {
				return nil, fmt.Errorf("%s is outside the project %s; the %s holds only project files", f, p.Root, p.Source)
			}
			inputs = append(inputs, artifacts.Input{Path: shown, FS: p.FS, Name: read})
		}
		return inputs, nil
	}

	var names []string
	var err error
	if p.Source.Staged {
		var rel string
		if _, rel, err = p.Git(); err == nil {
			names, err = artifacts.ListStaged(p.Index, rel)
		}
	} else {
		names, err = artifacts.List(p.FS)
	}
	if err != nil {
		return nil, err
	}
	base, err := env.physicalDir()
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		shown := name
		if base == p.Root || rootRelative { // the usual case: a project path is its own relative path
			inputs = append(inputs, artifacts.Input{Path: shown, FS: p.FS, Name: name})
			continue
		}
		if rel, err := filepath.Rel(base, p.Path(name)); err == nil {
			shown = filepath.ToSlash(rel)
		}
		inputs = append(inputs, artifacts.Input{Path: shown, FS: p.FS, Name: name})
	}
	return inputs, nil
}

// reportFormats are the --format values of doctor and validate.
var reportFormats = []string{"text", "lines", "json", "sarif"}

// checkFormat returns the output format of doctor and validate: --format,
// or json with --json, which no other --format may contradict.
func checkFormat(c *cli.Context, asJSON bool, format string) (string, error) {
	switch {
	case asJSON && c.IsSet("format") && format != "json":
		return "", usageErrorf("--json and --format %s cannot be used together", format)
	case asJSON:
		return "json", nil
	case !slices.Contains(reportFormats, format):
		return "", usageErrorf("--format %q: want text, lines, json or sarif", format)
	}
	return format, nil
}

// sarifPrefixFlag is --sarif-prefix of doctor and validate.
func sarifPrefixFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "sarif-prefix", Usage: "with --format sarif, name files from the repository root: `DIR` is the project's folder in it", Destination: dest}
}

// checkSARIFPrefix returns --sarif-prefix cleaned, as a slash path: it
// needs --format sarif and a folder inside the repository, named relative
// to its root; "." is no prefix.
func checkSARIFPrefix(c *cli.Context, format, prefix string) (string, error) {
	if !c.IsSet("sarif-prefix") {
		return "", nil
	}
	if format != "sarif" {
		return "", usageErrorf("--sarif-prefix needs --format sarif")
	}
	p := path.Clean(filepath.ToSlash(prefix))
	if prefix == "" || path.IsAbs(p) || filepath.VolumeName(prefix) != "" || p == ".." || strings.HasPrefix(p, "../") {
		return "", usageErrorf("--sarif-prefix %q: want the project's folder relative to the repository root, inside it", prefix)
	}
	if p == "." {
		return "", nil
	}
	return p, nil
}

// projectPaths places the files given on the command line in the project
// rooted at root. Each folder is resolved once: a command line of
// thousands of artifacts names a few folders.
type projectPaths struct {
	env     *cliEnv
	root    string
	foundry string            // root's .foundry, its links resolved
	dirs    map[string]string // a folder as named, absolute: as resolved
}

func newProjectPaths(env *cliEnv, root string) *projectPaths {
	p := &projectPaths{env: env, root: root, dirs: map[string]string{}}
	p.foundry = p.resolve(filepath.Join(root, confined.FoundryDir))
	return p
}

// resolve is resolveLinks of the absolute folder dir, once per folder.
func (p *projectPaths) resolve(dir string) string {
	real, ok := p.dirs[dir]
	if !ok {
		real = resolveLinks(dir)
		p.dirs[dir] = real
	}
	return real
}

// place returns where the file name lies in the project. rel is its path
// with the links of its folder resolved as [cliEnv.physicalDir] resolves
// -C DIR, so that it compares with the root (the path git holds it
// under); the file itself is kept as named: a link there is the file
// asked about, read as the chosen source holds it. read is the path to
// read it by: inside .foundry when it is named there or when its folder
// lies in .foundry, so that every link on the way, the folders' included,
// is held to .foundry as the project's readers hold it; rel otherwise.
// inside reports that read is a path of the project.
func (p *projectPaths) place(name string) (rel, read string, inside bool, err error) {
	abs, err := filepath.Abs(p.env.path(name))
	if err != nil {
		return "", "", false, err
	}
	dir := filepath.Dir(abs)
	rel, inside = below(p.root, filepath.Join(p.resolve(dir), filepath.Base(abs)))
	// As named: below the first folder on the way that is the root (-C
	// may go through a link to it), the folders after it not resolved.
	var folders []string // dir and the folders above it, the top last
	for d := dir; ; d = filepath.Dir(d) {
		folders = append(folders, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range slices.Backward(folders) {
		if p.resolve(d) != p.root {
			continue
		}
		if named, ok := below(d, abs); ok && confined.InFoundry(named) {
			read = named
		}
		break
	}
	if read == "" {
		if named, ok := below(p.foundry, filepath.Join(p.resolve(dir), filepath.Base(abs))); ok {
			read = confined.FoundryDir + "/" + named
		}
	}
	switch {
	case read == "":
		return rel, rel, inside, nil
	case !inside:
		// A .foundry that leads out of the project: shown as named, and
		// refused when read.
		rel = read
	}
	return rel, read, true, nil
}

// below returns name's slash path relative to the folder dir, and whether
// it lies below it.
func below(dir, name string) (string, bool) {
	rel, err := filepath.Rel(dir, name)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
