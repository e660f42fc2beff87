package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/jsonindent"
	"github.com/foundryhq/foundry/project"
)

type contractsOptions struct {
	json   bool
	id     string // show: the contract id
	stdout io.Writer
}

func newContractsCommand(env *cliEnv) *cli.Command {
	opts := &contractsOptions{}
	return &cli.Command{
		Name:  "contracts",
		Usage: "list the contracts, show one schema, or scaffold a local one",
		Description: `Contracts are JSON Schema 2020-12 documents: the ones embedded in foundry
plus the project's own in .foundry/schemas/<noun>.v<major>.schema.json.
With --rev or --staged the project's contracts are read from there. Outside
a project only the embedded ones are listed. A "pattern" (and a value of
format "regex") is an ECMA-262 regular expression, as JSON Schema
specifies: \s, \S and . as ECMA-262 defines them, \p{…} by Unicode name.
Lookaround and backreferences are not supported, since the engine never
backtracks: a schema that uses them does not compile, and says so.

EXIT STATUS:
   0  ok
   1  unknown contract, or a project contract that cannot be loaded
   2  malformed command line`,
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list the contract ids, embedded and project-local",
				ArgsUsage: " ",
				Description: `Prints one contract a line: its id and where it comes from (embedded or
local). With --json, {"contracts": [{id, origin, digest}, …]}, the digest
being "sha256:<hex>" of the schema file. A project contract that cannot be
loaded is left out of the list and named in a warning on stderr; doctor
reports it as a problem.

EXIT STATUS:
   0  ok, contracts left out included
   1  the project's contracts cannot be read
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("contracts list takes no arguments")
					}
					opts.json, opts.stdout = env.json, env.stdout
					return runContractsList(env, opts)
				},
			},
			{
				Name:      "show",
				Usage:     "print a contract's schema, pretty-printed",
				ArgsUsage: "<contract-id>",
				Description: `Prints the JSON Schema of the contract, indented by two spaces (it is JSON
with or without --json).

EXIT STATUS:
   0  ok
   1  unknown contract, or a project contract that cannot be loaded
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("contracts show takes one contract id")
					}
					opts.id, opts.json, opts.stdout = c.Args().First(), env.json, env.stdout
					return runContractsShow(env, opts)
				},
			},
			{
				Name:      "example",
				Usage:     "print a skeleton artifact that validates against a contract",
				ArgsUsage: "<contract-id>",
				Description: `Prints an artifact generated from the contract's schema (embedded or
project-local), indented by two spaces: its required properties only, each
the schema's const, its first enum value, its first example, or a value of
its type meeting its format (date, date-time, uri), pattern and minimums.
The artifact is validated before it is printed; a property the generator
cannot satisfy is an error naming its JSON pointer. Fill in the values and
pass it to blackboard write (which sets "schema" and "producedBy" itself)
or to validate. It is JSON with or without --json.

EXIT STATUS:
   0  ok
   1  unknown contract, a project contract that cannot be loaded, or one no
      example can be generated for
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("contracts example takes one contract id")
					}
					opts.id, opts.json, opts.stdout = c.Args().First(), env.json, env.stdout
					return runContractsExample(env, opts)
				},
			},
			{
				Name:      "new",
				Usage:     "write a local contract scaffold to .foundry/schemas/",
				ArgsUsage: "<noun>",
				Description: `Writes .foundry/schemas/<noun>.v1.schema.json: a JSON Schema 2020-12 contract
<noun>.v1 with the fields every artifact carries (schema, producedBy) and a
summary, to extend with the artifact's own fields. It compiles as written,
so blackboard write --schema <noun>.v1 accepts artifacts at once. Never
overwrites a file, never redefines an embedded contract, never writes with
--rev or --staged.

EXIT STATUS:
   0  written
   1  the file exists, the noun names an embedded contract, or a file error
   2  malformed command line, including a noun that is not lowercase
      letters, digits and dashes, or longer than 80 characters`,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("contracts new takes one noun, e.g. incident")
					}
					return runContractsNew(env, c.Args().First())
				},
			},
		},
	}
}

// loadRegistry loads the contracts of the project the global flags point
// at; outside a project, the embedded ones (unless --rev or --staged asked
// for a project).
func loadRegistry(env *cliEnv) (*contracts.Registry, error) {
	reg, _, err := registryAt(env.dir, env.source())
	return reg, err
}

// registryAt loads the contracts of the project at dir on src, and returns
// the project, open while the registry is in use; outside a project, on
// the working tree, the embedded contracts alone (and no project), which
// the commands take there.
func registryAt(dir string, src project.Source) (*contracts.Registry, *project.Project, error) {
	p, err := project.Open(dir, src)
	if err != nil {
		if errors.Is(err, project.ErrNoProject) && src.Rev == "" && !src.Staged {
			reg, err := contracts.Load(nil)
			return reg, nil, err
		}
		return nil, nil, err
	}
	reg, err := contracts.Load(p.FS)
	return reg, p, err
}

func runContractsList(env *cliEnv, opts *contractsOptions) error {
	reg, err := loadRegistry(env)
	if err != nil {
		return err
	}
	for _, b := range reg.Broken() {
		fmt.Fprintf(env.stderr, "warning: left out %s\n", b.Err)
	}
	type entry struct {
		ID     string `json:"id"`
		Origin string `json:"origin"`
		Digest string `json:"digest"`
	}
	entries := []entry{}
	width := 0
	for _, id := range reg.IDs() {
		d, err := reg.Digest(id)
		if err != nil {
			return err
		}
		origin := "local"
		if reg.Embedded(id) {
			origin = "embedded"
		}
		entries = append(entries, entry{ID: id, Origin: origin, Digest: d})
		width = max(width, len(id))
	}
	if opts.json {
		return jsonindent.Write(opts.stdout, struct {
			Contracts []entry `json:"contracts"`
		}{entries})
	}
	var sb strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&sb, "%-*s  %s\n", width, e.ID, e.Origin)
	}
	_, err = io.WriteString(opts.stdout, sb.String())
	return err
}

func runContractsShow(env *cliEnv, opts *contractsOptions) error {
	reg, err := loadRegistry(env)
	if err != nil {
		return err
	}
	raw, err := reg.Schema(opts.id)
	if err != nil {
		return err
	}
	out, err := jsonindent.Reindent(raw)
	if err != nil {
		return fmt.Errorf("show contract %s: %w", opts.id, err)
	}
	_, err = opts.stdout.Write(out)
	return err
}

func runContractsExample(env *cliEnv, opts *contractsOptions) error {
	reg, err := loadRegistry(env)
	if err != nil {
		return err
	}
	doc, err := reg.Example(opts.id)
	if err != nil {
		return err
	}
	_, err = opts.stdout.Write(doc)
	return err
}

func runContractsNew(env *cliEnv, noun string) error {
	id, file, content, err := contracts.Scaffold(noun)
	if errors.Is(err, contracts.ErrInvalidID) {
		return &usageError{err}
	}
	if err != nil {
		return err
	}
	p, err := env.openWritable()
	if err != nil {
		return err
	}
	root, err := confined.Open(p.Root)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll(contracts.LocalDir); err != nil {
		return fmt.Errorf("create contract %s: %w", id, err)
	}
	err = root.WriteNew(file, content, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return withHint(fmt.Errorf("create contract %s: %s already exists", id, file), "edit it, or pick another noun")
	}
	if err != nil {
		return fmt.Errorf("create contract %s: %w", id, err)
	}
	if env.json {
		return env.printJSON(struct {
			ID   string `json:"id"`
			Path string `json:"path"`
		}{id, file})
	}
	_, err = fmt.Fprintf(env.stdout, "Wrote %s (contract %s).\nAdd the artifact's own fields under \"properties\" and \"required\", then commit it.\n", file, id)
	return err
}
