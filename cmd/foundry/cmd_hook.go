package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/claude"
	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/project"
)

type hookOptions struct {
	names  []string // hooks.PreCommit, hooks.MergeIndex
	json   bool
	stdout io.Writer
}

func newHookCommand(env *cliEnv) *cli.Command {
	opts := &hookOptions{}
	return &cli.Command{
		Name:  "hook",
		Usage: "install git hooks, and run the hooks git and Claude Code call",
		Description: `Foundry checks artifacts where they are written: a git pre-commit hook
checks what a commit changes under .foundry/, a merge driver merges the
generated memory index, and a Claude Code PostToolUse hook validates an
artifact right after an agent writes it.

EXIT STATUS:
   0  ok
   1  failure (see each subcommand)
   2  malformed command line, or (hook claude) a rejected artifact`,
		Subcommands: []*cli.Command{
			{
				Name:      "install",
				Usage:     "install the pre-commit hook and register the INDEX.md merge driver",
				ArgsUsage: "[pre-commit|merge-index]...",
				Description: `pre-commit: writes a hook that runs
    foundry hook pre-commit
(see its help) in the hooks folder git uses (core.hooksPath when it is set),
and a pre-merge-commit hook that runs the same check, since git runs it
instead before committing a merge that had no conflicts: a merge cannot
bring in what a commit could not. One hook serves every project of the
repository: installing it for another project (foundry -C DIR hook
install) adds that project to the ones it checks, and uninstall takes out
only the project it is run for.
A hook that foundry did not write is chained, never lost: it is moved to
<hook>.pre-foundry, foundry's hook runs it first (its failure blocks the
commit), and uninstall puts it back as it was. The hook runs the foundry
found on PATH, or else this binary's path as recorded now.

merge-index: routes .foundry/memory/INDEX.md to the merge driver
foundry-index (a line in the project's .gitattributes, to commit) and
defines the driver in the repository's git config (each clone runs
foundry hook install once), with this binary's path recorded for when
foundry is not on PATH, so merging two branches that both added facts
leaves no conflict in the generated index.

Without arguments, both. Every hook is checked before any is changed, so
an install that fails changes nothing.

EXIT STATUS:
   0  installed, or already installed
   1  nothing was installed: <hook>.pre-foundry is already taken,
      foundry's hook there names no project this foundry can read, or git
      failed
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					names, err := hookNames(c.Args().Slice())
					if err != nil {
						return err
					}
					opts.names, opts.json, opts.stdout = names, env.json, env.stdout
					return runHookInstall(c.Context, env, opts)
				},
			},
			{
				Name:      "uninstall",
				Usage:     "remove foundry's pre-commit hook and merge driver",
				ArgsUsage: "[pre-commit|merge-index]...",
				Description: `Removes only what foundry installed: this project from foundry's
pre-commit and pre-merge-commit hooks, and each hook itself once no other
project is left in it (putting back the hook it chained, as it was); the
merge driver's line in this project's .gitattributes, and its git config
once no .gitattributes of the working tree (nor .git/info/attributes)
names the driver. A hook foundry did not write is left in place, and
said so (action "foreign" in --json): the user's own, put back by an
uninstall before, or written since. Without arguments, both.

EXIT STATUS:
   0  removed, or nothing of foundry's to remove
   1  a hook cannot be read or written, or git failed
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					names, err := hookNames(c.Args().Slice())
					if err != nil {
						return err
					}
					opts.names, opts.json, opts.stdout = names, env.json, env.stdout
					return runHookUninstall(c.Context, env, opts)
				},
			},
			{
				Name:      "claude",
				Usage:     "the Claude Code PostToolUse hook: validate a blackboard artifact just written",
				ArgsUsage: " ",
				Description: `Reads Claude Code's PostToolUse hook input on stdin. After a Write, Edit
or MultiEdit of a .json file under a project's .foundry/blackboard/, it
re-reads the file and validates it against the contract its "schema"
field names. A rejection prints, on stderr, for the model:
    Foundry: auditor.json violates finding.v1. Fix it before continuing:
    - #/evidence/0: missing required property "ref"
Anything else prints nothing. Rejections are recorded as gate_blocked
events. foundry init --claude and the foundry-core plugin register it.

EXIT STATUS:
   0  valid, or not a blackboard artifact
   2  rejected (not parseable, no or unknown contract, violations), or the
      check could not run; Claude Code shows stderr to the model`,
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("hook claude takes no arguments; it reads the hook input on stdin")
					}
					if err := env.refuseSource("hook claude"); err != nil {
						return err
					}
					return runHookClaude(c.Context, env)
				},
			},
			{
				Name:      "pre-commit",
				Usage:     "the git pre-commit hook: check what the commit changes under .foundry/",
				ArgsUsage: " ",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "merge", Usage: "the commit is a merge (the pre-merge-commit hook passes it; a merge stopped for a conflict is seen without it): a fact id both branches used warns instead of refusing"},
					&cli.BoolFlag{Name: "all-projects", Usage: "check every project of the repository whose .foundry/ the commit changes, not only the one around -C (the pre-commit framework's hook)"},
				},
				Description: `Git runs this through the hooks foundry hook install writes: pre-commit,
and pre-merge-commit before it commits a merge that had no conflicts. It
checks the files the index adds or changes under .foundry/ relative to
HEAD, as staged, with the checks of foundry doctor --staged restricted to
them: conflict markers in any file; the config; project-local schemas
(parse, compile, and a breaking edit or deletion of a version HEAD has);
blackboard artifacts against their contracts; fact files (parse, fact.v1,
an id another fact file already has, supersedes links that exist and agree
at both ends); runbooks; a secret in any of them (as doctor's
secrets.stored). It reads the staged files, the names of the other fact
files, the facts a staged fact links to, the project's contracts and HEAD's
version of a changed contract, and nothing else. Each problem is one line
on stdout, "path:line:col: <pointer>: <problem>", its path relative to the
top of the working tree as git names staged files
(services/api/.foundry/... for a project below the top, so the projects one
hook checks are told apart); the count follows on stderr. With --json,
stdout is one object instead: the staged files under .foundry/, every
finding, their counts and whether the commit is blocked (docs/json.md),
with the same exit status.

With --all-projects, one run checks every project of the repository, for
the pre-commit framework, whose one hook runs at the top: it lists the
staged files once and checks each project whose .foundry/ they change, in
path order, printing for each what its own check prints. A file belongs
to the project in the folder holding the first folder named .foundry on
its path, so nested projects are each checked on their own; one whose
.foundry is a symbolic link to a folder has its files where it leads (a
file under no .foundry folder belongs to the project whose link leads
nearest above it). A project whose .foundry/ the commit removes is not
checked. -C only names the repository. With --json, the answer holds
each project's answer, as above, in "projects", and their sums.

EXIT STATUS:
   0  nothing staged under .foundry/ has a problem (with --all-projects,
      in any project)
   1  a staged file has a problem (the commit is blocked), or the check
      could not run (with --all-projects, of any project)
   2  malformed command line`,
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf("hook pre-commit takes no arguments; it reads the git index")
					}
					if env.rev != "" {
						return usageErrorf("hook pre-commit reads the git index; --rev does not apply")
					}
					if c.Bool("all-projects") {
						return runHookPreCommitAll(c.Context, env, c.Bool("merge"))
					}
					return runHookPreCommit(c.Context, env, c.Bool("merge"))
				},
			},
			{
				Name:      "merge-index",
				Usage:     "the git merge driver of .foundry/memory/INDEX.md",
				ArgsUsage: "BASE OURS THEIRS [PATH]",
				Description: `Git runs this as the merge driver foundry-index (see hook install):
    foundry hook merge-index %O %A %B %P
It keeps every fact line either side has (minus the lines one side
removed), re-sorts them, re-applies the index budget of the project that
PATH lies in, rewrites the summary line, and writes the result over OURS.
Run foundry doctor --fix or foundry memory index after the merge to make
the index exact.

EXIT STATUS:
   0  merged
   1  a version cannot be read or holds conflict markers (git then records
      a conflict)
   2  malformed command line, or --rev or --staged was given`,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if len(args) < 3 || len(args) > 4 {
						return usageErrorf("hook merge-index needs BASE OURS THEIRS and optionally PATH")
					}
					if env.rev != "" || env.staged {
						return fmt.Errorf("hook merge-index writes OURS: %w", project.ErrReadOnly)
					}
					return runHookMergeIndex(env, args)
				},
			},
		},
	}
}

// hookNames checks the hook names given, defaulting to all of them.
func hookNames(args []string) ([]string, error) {
	if len(args) == 0 {
		return hooks.Names, nil
	}
	var names []string
	for _, a := range args {
		if !slices.Contains(hooks.Names, a) {
			return nil, usageErrorf("unknown hook %q: want %s", a, strings.Join(hooks.Names, " or "))
		}
		if !slices.Contains(names, a) {
			names = append(names, a)
		}
	}
	return names, nil
}

// hookRoot is the project the hooks are for.
func hookRoot(env *cliEnv) (string, error) {
	if env.rev != "" || env.staged {
		return "", fmt.Errorf("hooks are installed in the working tree: %w", project.ErrReadOnly)
	}
	return project.Find(env.dir)
}

// hookError adds the hint that helps with an install or uninstall error.
func hookError(err error, install bool) error {
	switch {
	case errors.Is(err, git.ErrNotRepository):
		return withHint(err, "git hooks need a git repository; run `git init` first")
	}
	return err
}

func runHookInstall(ctx context.Context, env *cliEnv, opts *hookOptions) error {
	root, err := hookRoot(env)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
	}
	res, err := hooks.Install(ctx, root, opts.names, hooks.Options{Executable: exe})
	if err != nil {
		return hookError(err, true)
	}
	return renderHookResults(env, opts, root, res)
}

func runHookUninstall(ctx context.Context, env *cliEnv, opts *hookOptions) error {
	root, err := hookRoot(env)
	if err != nil {
		return err
	}
	res, uerr := hooks.Uninstall(ctx, root, opts.names)
	if err := renderHookResults(env, opts, root, res); err != nil {
		return err
	}
	if uerr != nil {
		return hookError(uerr, false)
	}
	return nil
}

// renderHookResults prints one line per hook, paths relative to -C, or
// {"hooks": […]} with --json, paths relative to the project root (as in
// every --json answer, with "../" for a hooks folder above it).
func renderHookResults(env *cliEnv, opts *hookOptions, root string, results []hooks.Result) error {
	if opts.json {
		shown := []hooks.Result{}
		for _, r := range results {
			r.Path, r.Backup = rootRelative(root, r.Path), rootRelative(root, r.Backup)
			r.Projects, r.Attributes = mapPaths(r.Projects, root, rootRelative), mapPaths(r.Attributes, root, rootRelative)
			shown = append(shown, r)
		}
		return env.printJSON(struct {
			Hooks []hooks.Result `json:"hooks"`
		}{shown})
	}
	var b strings.Builder
	for _, r := range results {
		path, backup := shownPath(env.dir, r.Path), shownPath(env.dir, r.Backup)
		// A git hook (pre-commit, pre-merge-commit), not the merge driver;
		// and the other projects it checks.
		gitHook := r.Hook != hooks.MergeIndex
		others := strings.Join(mapPaths(slices.DeleteFunc(slices.Clone(r.Projects), func(p string) bool { return p == root }), env.dir, shownPath), ", ")
		switch {
		case gitHook && r.Action == hooks.Added:
			fmt.Fprintf(&b, "added this project to %s hook %s; it also checks %s\n", r.Hook, path, others)
		case gitHook && r.Action == hooks.Dropped:
			fmt.Fprintf(&b, "removed this project from %s hook %s; it still checks %s\n", r.Hook, path, others)
		case gitHook && r.Action == hooks.Absent && others != "":
			fmt.Fprintf(&b, "%s hook %s does not check this project, only %s; nothing to remove\n", r.Hook, path, others)
		case gitHook && r.Action == hooks.Installed:
			fmt.Fprintf(&b, "installed %s hook %s\n", r.Hook, path)
		case gitHook && r.Action == hooks.Updated:
			fmt.Fprintf(&b, "updated %s hook %s\n", r.Hook, path)
		case gitHook && r.Action == hooks.Unchanged:
			fmt.Fprintf(&b, "%s hook %s is already installed\n", r.Hook, path)
		case gitHook && r.Action == hooks.Chained:
			fmt.Fprintf(&b, "installed %s hook %s; the hook that was there, now %s, runs first\n", r.Hook, path, backup)
		case gitHook && r.Action == hooks.Removed:
			fmt.Fprintf(&b, "removed %s hook %s\n", r.Hook, path)
		case gitHook && r.Action == hooks.Restored:
			fmt.Fprintf(&b, "removed %s hook %s and put back %s\n", r.Hook, path, backup)
		case gitHook && r.Action == hooks.Absent:
			fmt.Fprintf(&b, "no %s hook at %s; nothing to remove\n", r.Hook, path)
		case gitHook && r.Action == hooks.Foreign && r.Backup != "":
			fmt.Fprintf(&b, "%s hook %s is not foundry's; it was left in place, and so was %s, the hook foundry had chained before it was replaced\n", r.Hook, path, backup)
		case gitHook && r.Action == hooks.Foreign:
			fmt.Fprintf(&b, "%s hook %s is not foundry's; it was left in place\n", r.Hook, path)
		case r.Action == hooks.Dropped:
			fmt.Fprintf(&b, "removed this project from merge driver %s (%s); its git config stays for %s\n", hooks.DriverName, path, strings.Join(mapPaths(r.Attributes, env.dir, shownPath), ", "))
		case r.Action == hooks.Absent && len(r.Attributes) > 0:
			fmt.Fprintf(&b, "merge driver %s does not serve this project, only %s; nothing to remove\n", hooks.DriverName, strings.Join(mapPaths(r.Attributes, env.dir, shownPath), ", "))
		case r.Action == hooks.Installed, r.Action == hooks.Updated:
			fmt.Fprintf(&b, "registered merge driver %s for .foundry/memory/INDEX.md (%s and git config)\n", hooks.DriverName, path)
		case r.Action == hooks.Unchanged:
			fmt.Fprintf(&b, "merge driver %s is already registered\n", hooks.DriverName)
		case r.Action == hooks.Removed:
			fmt.Fprintf(&b, "unregistered merge driver %s (%s and git config)\n", hooks.DriverName, path)
		default:
			fmt.Fprintf(&b, "merge driver %s is not registered; nothing to remove\n", hooks.DriverName)
		}
	}
	_, err := io.WriteString(opts.stdout, b.String())
	return err
}

// shownPath makes p relative to dir when it lies below it. Package hooks
// reports physical paths, so dir is tried with its links resolved too.
func shownPath(dir, p string) string {
	if p == "" {
		return ""
	}
	dirs := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// mapPaths is show(dir, p) of each path p of ps, as shownPath or
// rootRelative shows one.
func mapPaths(ps []string, dir string, show func(dir, p string) string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = show(dir, p)
	}
	return out
}

// rootRelative makes p, a physical path from package hooks, relative to
// the project root (physical too: project.Find resolves links), in slash
// form.
func rootRelative(root, p string) string {
	if p == "" {
		return ""
	}
	if rel, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}

func runHookClaude(ctx context.Context, env *cliEnv) error {
	opts := claude.HookOptions{Dir: env.dir}
	if env.logFile != "" {
		opts.Logger = env.logger // stderr belongs to the model
	}
	// Read whole first, so that an interrupt ends the wait for it (an
	// interrupted hook has nothing to tell the model).
	in, err := readAll(ctx, env.stdin, claude.MaxInputBytes+1)
	if err != nil && ctx.Err() != nil {
		return err
	}
	var input io.Reader = bytes.NewReader(in)
	if err != nil {
		input = io.MultiReader(input, errReader{err})
	}
	out := claude.PostToolUse(input, opts)
	if out.Message != "" {
		if _, err := io.WriteString(env.stderr, out.Message); err != nil {
			return silentExit(claude.ExitBlock)
		}
	}
	if out.Code != claude.ExitOK {
		return silentExit(out.Code)
	}
	return nil
}

// errReader is a reader that fails with err: the end of an input whose
// reading failed, read whole beforehand.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// runHookMergeIndex merges INDEX.md for git. The budget comes from the
// config of the project PATH lies in (relative to the working tree root,
// where git runs drivers), else of the project around -C; a config that
// cannot be read mid-merge falls back to the default.
func runHookMergeIndex(env *cliEnv, args []string) error {
	budget := 0
	root := ""
	if len(args) == 4 {
		p := filepath.FromSlash(args[3])
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.dir, p)
		}
		if r, err := project.Find(filepath.Dir(p)); err == nil {
			root = r
		}
	} else if r, err := project.Find(env.dir); err == nil {
		root = r
	}
	if root != "" {
		if cfg, err := config.Load(confined.OpenFS(root)); err == nil {
			budget = cfg.Memory.IndexBudgetTokens
		}
	}
	return hooks.MergeIndexFiles(env.dir, args[0], args[1], args[2], budget)
}

// preCommitAnswer is hook pre-commit --json: what the commit changes
// under .foundry/ and what the check found in it, paths relative to the
// project root.
type preCommitAnswer struct {
	Root     string           `json:"root"`
	Staged   []stagedFile     `json:"staged"`
	Findings []doctor.Finding `json:"findings"`
	Errors   int              `json:"errors"`
	Warnings int              `json:"warnings"`
	Infos    int              `json:"infos"`
	Blocked  bool             `json:"blocked"` // an error: git refuses the commit
}

// stagedFile is one file the commit adds, modifies or deletes.
type stagedFile struct {
	Path   string `json:"path"`
	Change string `json:"change"` // added, modified or deleted
}

// newPreCommitAnswer is the answer of the staged check of the project at
// root, changes being what the commit changes under its .foundry/.
func newPreCommitAnswer(root string, changes []git.Change, rep *doctor.Report) preCommitAnswer {
	answer := preCommitAnswer{Root: root, Staged: []stagedFile{}, Findings: []doctor.Finding{},
		Errors: rep.Errors, Warnings: rep.Warnings, Infos: rep.Infos, Blocked: rep.Failed()}
	for _, c := range changes {
		answer.Staged = append(answer.Staged, stagedFile{Path: c.Path, Change: c.Kind.String()})
	}
	answer.Findings = append(answer.Findings, rep.Findings...)
	return answer
}

// runHookPreCommit runs the staged check and prints one line per problem,
// or with --json one preCommitAnswer.
func runHookPreCommit(ctx context.Context, env *cliEnv, merge bool) error {
	p, err := project.OpenLenient(env.dir, project.Source{Staged: true})
	if errors.Is(err, project.ErrNoGit) {
		// The hook reads the index whether or not --staged was given.
		return withHint(err, noGitHint)
	}
	if err != nil {
		return err
	}
	defer p.Close()
	repo, rel, err := p.Git()
	if err != nil {
		return err
	}
	changes, err := p.StagedChanges()
	if err != nil {
		return fmt.Errorf("list staged files: %w", err)
	}
	rep := &doctor.Report{Root: p.Root}
	if len(changes) > 0 {
		if rep, err = doctor.Run(ctx, doctor.Env{Project: p, Changed: changes, Merge: merge}); err != nil {
			return err
		}
	}
	if env.json {
		err = env.printJSON(newPreCommitAnswer(p.Root, changes, rep))
	} else {
		err = writePreCommitLines(env, repo.Root(), p.Root, rel, len(changes), rep)
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		return silentExit(exitFailure)
	}
	return nil
}

// noGitHint is the hint of hook pre-commit outside a git repository.
const noGitHint = "hook pre-commit checks what is staged in git; run `git init` first"

// writePreCommitLines prints the report of the staged check of the project
// at root, rel in the working tree whose top is top: a line per problem on
// stdout, then, when the commit is blocked, their count on stderr (staged
// is the number of files the commit changes under its .foundry/).
func writePreCommitLines(env *cliEnv, top, root, rel string, staged int, rep *doctor.Report) error {
	// Paths relative to the top of the working tree, whatever -C names:
	// git runs the hook there and names staged files so (git diff
	// --cached --name-only), and one hook checks every project of the
	// repository in turn, so a project below the top is told apart by its
	// folder. A project at the top prints its own paths.
	lines, files, err := rep.WriteLines(env.stdout, func(name string) string {
		if rel, err := filepath.Rel(top, filepath.Join(root, filepath.FromSlash(name))); err == nil {
			return filepath.ToSlash(rel)
		}
		return name
	})
	if err != nil || !rep.Failed() {
		return err
	}
	fmt.Fprintf(env.stderr, "foundry hook pre-commit: %d %s in %d of %d staged %s under %s/; fix them, or skip this check once with git commit --no-verify\n",
		lines, plural(lines, "problem", "problems"), files, staged, plural(staged, "file", "files"), path.Join(rel, project.Dir))
	return nil
}

// preCommitAllAnswer is hook pre-commit --all-projects --json: the answer
// of each project the commit changes, and their sums.
type preCommitAllAnswer struct {
	Root     string             `json:"root"` // the top of the working tree
	Projects []preCommitProject `json:"projects"`
	Errors   int                `json:"errors"`
	Warnings int                `json:"warnings"`
	Infos    int                `json:"infos"`
	Blocked  bool               `json:"blocked"` // any project's
}

// preCommitProject is one project's answer in a preCommitAllAnswer.
type preCommitProject struct {
	preCommitAnswer
	// Removed: the commit takes the project's .foundry folder away, and
	// nothing of it is checked.
	Removed bool `json:"removed"`
}

// stagedCheck is the staged check of one project the commit changes.
type stagedCheck struct {
	project.Staged
	root string
	rep  *doctor.Report
}

// runHookPreCommitAll runs the staged check of every project whose
// .foundry/ the commit changes, in the repository holding -C, from one
// reading of the index; it prints what runHookPreCommit prints for each, in
// turn, or with --json one preCommitAllAnswer.
func runHookPreCommitAll(ctx context.Context, env *cliEnv, merge bool) error {
	repo, err := git.Open(env.dir)
	if errors.Is(err, git.ErrNotRepository) {
		return withHint(fmt.Errorf("read index: %w", err), noGitHint)
	}
	if err != nil {
		return err
	}
	defer repo.Close()
	idx, err := repo.ReadIndex()
	if err != nil {
		return err
	}
	staged, err := project.FindStaged(idx)
	if err != nil {
		return fmt.Errorf("list staged files: %w", err)
	}
	// Every project is checked before anything is printed: a check that
	// cannot run fails the whole, with no project's lines half told.
	checks := make([]stagedCheck, len(staged))
	blocked := false
	for i, s := range staged {
		c := stagedCheck{Staged: s, root: filepath.Join(repo.Root(), filepath.FromSlash(s.Rel)), rep: &doctor.Report{}}
		if !s.Removed && len(s.Changes) > 0 {
			if c.rep, err = checkStaged(ctx, idx, s, merge); err != nil {
				return fmt.Errorf("check %s: %w", path.Join(s.Rel, project.Dir), err)
			}
		}
		checks[i] = c
		blocked = blocked || c.rep.Failed()
	}
	if env.json {
		answer := preCommitAllAnswer{Root: repo.Root(), Projects: []preCommitProject{}, Blocked: blocked}
		for _, c := range checks {
			answer.Projects = append(answer.Projects, preCommitProject{newPreCommitAnswer(c.root, c.Changes, c.rep), c.Removed})
			answer.Errors += c.rep.Errors
			answer.Warnings += c.rep.Warnings
			answer.Infos += c.rep.Infos
		}
		if err := env.printJSON(answer); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			if err := writePreCommitLines(env, repo.Root(), c.root, c.Rel, len(c.Changes), c.rep); err != nil {
				return err
			}
		}
	}
	if blocked {
		return silentExit(exitFailure)
	}
	return nil
}

// checkStaged runs the staged check of the project s on idx.
func checkStaged(ctx context.Context, idx *git.Index, s project.Staged, merge bool) (*doctor.Report, error) {
	p, err := project.OpenStaged(idx, s.Rel)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return doctor.Run(ctx, doctor.Env{Project: p, Changed: s.Changes, Merge: merge})
}
