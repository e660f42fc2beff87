package hooks

// This file defines the git pre-commit hook, and the pre-merge-commit hook
// installed with it: their script, and how they are installed and removed
// without ever losing a hook Foundry did not write.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
)

// Hook names, as the CLI spells them.
const (
	// PreCommit is the git pre-commit hook that checks the staged files
	// under .foundry/.
	PreCommit = "pre-commit"
	// MergeIndex is the merge driver of .foundry/memory/INDEX.md.
	MergeIndex = "merge-index"
)

// Names lists every hook in install order.
var Names = []string{PreCommit, MergeIndex}

// PreMergeCommit is the git hook git runs, instead of pre-commit, before
// the merge commit of a merge it completed itself (one without conflicts;
// concluding a conflicted merge with git commit runs pre-commit).
// Installing [PreCommit] writes it too, with the same check, so a merge
// cannot bring in what a commit could not: an artifact a contract
// tightened on the other branch no longer satisfies, two facts with one
// id. Its [Result] names it.
const PreMergeCommit = "pre-merge-commit"

// checkHooks are the git hooks that installing [PreCommit] writes, in order.
var checkHooks = []string{PreCommit, PreMergeCommit}

// Marker is the line that identifies a hook file written by Foundry. A hook
// file without it is foreign and is never overwritten or removed silently.
const Marker = "# foundry-hook: pre-commit"

// chainSuffix names the hook that was in place before Foundry's: install
// moves it there, the script runs it first, and uninstall puts it back.
const chainSuffix = ".pre-foundry"

// CheckCommand is what the hooks run: check exactly what the commit
// changes under .foundry/, one line per problem. The pre-merge-commit hook
// adds --merge.
const CheckCommand = "hook pre-commit"

// Options tunes an install.
type Options struct {
	// Executable is the absolute path of the foundry binary, recorded in the
	// hook and the merge driver and used when foundry is not on PATH when
	// git runs them.
	Executable string
}

// Action says what an install or uninstall did to one file or setting.
type Action string

const (
	Installed Action = "installed" // written where nothing was
	Updated   Action = "updated"   // Foundry's own, rewritten with new content
	Unchanged Action = "unchanged" // already exactly as it would be written
	Chained   Action = "chained"   // a foreign hook kept, to run first, and ours written
	Removed   Action = "removed"   // Foundry's own, deleted
	Restored  Action = "restored"  // ours deleted and the chained hook put back
	Absent    Action = "absent"    // nothing of Foundry's to remove
	// Foreign: a hook Foundry did not write, left in place by an
	// uninstall.
	Foreign Action = "foreign"
	// Added: Foundry's pre-commit hook, which checks other projects of the
	// repository, rewritten to check this one too.
	Added Action = "added"
	// Dropped: this project taken out of Foundry's pre-commit hook, which
	// still checks the other projects it lists; or its .gitattributes line
	// taken out while other attributes files still name the merge driver,
	// whose git config stays.
	Dropped Action = "dropped"
)

// Result reports one hook's install or uninstall.
type Result struct {
	Hook   string `json:"hook"`             // PreCommit, PreMergeCommit or MergeIndex
	Action Action `json:"action"`           //
	Path   string `json:"path"`             // the hook file, or the .gitattributes file
	Backup string `json:"backup,omitempty"` // where a foreign hook is chained from, or was restored from
	// Projects are the roots of the projects Foundry's pre-commit hook
	// checks after the install or uninstall (absolute, physical, sorted);
	// none when no hook of Foundry's is left.
	Projects []string `json:"projects,omitempty"`
	// Attributes are, after an uninstall of the merge driver, the
	// attributes files (absolute, sorted) that still name it, for which its
	// git config stays; none when it was removed.
	Attributes []string `json:"attributes,omitempty"`
}

// installCommand installs foundry as README.md's Install section does
// (TestScriptInstallHint holds the two together): the hook names it when
// it finds no foundry to run.
const installCommand = "CGO_ENABLED=0 go install -tags urfave_cli_no_docs github.com/foundryhq/foundry/cmd/foundry@latest"

// Script renders the git hook named hook ([PreCommit] or [PreMergeCommit])
// that checks the projects at projectDirs (each relative to the working
// tree root, "" or "." at the top), with executable recorded as the
// fallback. Git runs hooks from the working tree root, so the relative
// project paths are stable across clones. One hook serves every project of
// the repository it was installed for: the projects are checked in sorted
// order, each once, and the commit is blocked when any check fails.
func Script(hook string, projectDirs []string, executable string) []byte {
	projects := sortedProjects(projectDirs)
	recorded := executable
	if recorded == "" {
		recorded = "(none recorded)"
	}
	what, skip, check := "checks what the\n# commit changes", "git commit --no-verify", CheckCommand
	if hook == PreMergeCommit {
		what, skip, check = "git runs it before\n# committing a merge that had no conflicts; it checks what the merge\n# changes", "git merge --no-verify", CheckCommand+" --merge"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `#!/bin/sh
%s
# Written by `+"`foundry hook install pre-commit`"+`: %s under .foundry/ (facts, runbooks, artifacts, schemas,
# config, conflict markers) of each project listed at the end, as
# `+"`foundry -C <project> hook install pre-commit`"+` added it.
# Remove a project with `+"`foundry -C <project> hook uninstall pre-commit`"+`
# (the last one removes this hook); skip the hook once with
# `+"`%s`"+`.
# The hook that was here before foundry's runs first, as git would have
# run it; its failure blocks the commit.
foundry_chained="${0%%/*}/%s"
if [ -x "$foundry_chained" ]; then
	"$foundry_chained" "$@" || exit $?
fi
foundry_recorded=%s
foundry_bin=
# foundry_check checks the project at $1, relative to the working tree root
# where git runs hooks. No project there, nothing to check: a
# core.hooksPath folder can be shared by other repositories.
foundry_check() {
	[ -d "$1/.foundry" ] || return 0
	if [ -z "$foundry_bin" ]; then
		if command -v foundry >/dev/null 2>&1; then
			foundry_bin=foundry
		elif [ -n "$foundry_recorded" ] && [ -x "$foundry_recorded" ]; then
			foundry_bin=$foundry_recorded
		else
			echo "foundry %s hook: foundry is not on PATH, nor at %s where it was when the hook was installed." >&2
			echo "Install it with '`+installCommand+`' and make sure it is on PATH," >&2
			echo "or skip this check once with '%s'." >&2
			exit 1
		fi
	fi
	"$foundry_bin" -C "$1" %s
}
foundry_status=0
`, Marker, what, skip, hook+chainSuffix, shellQuote(executable), hook, shellEcho(recorded), skip, check)
	for _, p := range projects {
		fmt.Fprintf(&b, "%s%s%s\n", checkPrefix, shellQuote(p), checkSuffix)
	}
	b.WriteString("exit $foundry_status\n")
	return b.Bytes()
}

// The line of the hook that checks one project is checkPrefix, the
// project's path as one shell word, and checkSuffix. The hook written
// before it served several projects ended with one line, legacyPrefix, the
// path, legacySuffix.
const (
	checkPrefix  = "foundry_check "
	checkSuffix  = " || foundry_status=$?"
	legacyPrefix = `exec "$foundry_bin" -C `
	legacySuffix = " " + CheckCommand
)

// sortedProjects cleans the project paths ("" is "."), sorts them and
// drops repeats.
func sortedProjects(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, projectName(d))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// projectName is how the pre-commit hook and the merge driver's records
// name the project at rel, its root relative to the working tree root
// ("" at the top, named ".").
func projectName(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// HookProjects returns the projects the Foundry hook content checks,
// sorted, from a hook of this version or of the one before it (which
// checked a single project). ok is false when content is not Foundry's
// hook or names no project this version can read.
func HookProjects(content []byte) (projects []string, ok bool) {
	if !IsFoundryHook(content) {
		return nil, false
	}
	s := hookLines(content)
	for _, form := range [][2]string{{checkPrefix, checkSuffix}, {legacyPrefix, legacySuffix}} {
		for rest := s; ; {
			i := strings.Index(rest, "\n"+form[0])
			if i < 0 {
				break
			}
			rest = rest[i+1+len(form[0]):]
			word, after, ok := shellUnquote(rest)
			if !ok || !strings.HasPrefix(after, form[1]+"\n") && after != form[1] {
				continue
			}
			projects = append(projects, word)
			// On from the end of the line: a name holding a newline and
			// what looks like a line of the hook is not read again.
			rest = after[len(form[1]):]
		}
		if len(projects) > 0 {
			return sortedProjects(projects), true
		}
	}
	return nil, false
}

// hookLines is a hook's content as its readers search it: every line,
// the first too, after a "\n". A hook whose line ends were all turned into
// CRLF (by a checkout or an editor: its first line ends so) is read with
// LF ones; one as [PreCommitScript] wrote it is read as it is, since a
// project's name, quoted, may hold "\r\n" itself.
func hookLines(content []byte) string {
	s := string(content)
	if ctrl.LineEnd(content) == "\r\n" {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return "\n" + s
}

// recordedExecutable is the foundry binary Foundry's hook content records
// for when foundry is not on PATH, "" when it records none.
func recordedExecutable(content []byte) string {
	const prefix = "\nfoundry_recorded="
	s := hookLines(content)
	i := strings.Index(s, prefix)
	if i < 0 {
		return ""
	}
	word, _, _ := shellUnquote(s[i+len(prefix):])
	return word
}

// shellUnquote reads one shell word as [shellQuote] writes it, quoted
// parts and \' between them, from the start of s; rest is what follows.
func shellUnquote(s string) (word, rest string, ok bool) {
	var b strings.Builder
	for {
		switch {
		case strings.HasPrefix(s, "'"):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return "", "", false
			}
			b.WriteString(s[1 : 1+end])
			s = s[2+end:]
		case strings.HasPrefix(s, `\'`):
			b.WriteByte('\'')
			s = s[2:]
		default:
			return b.String(), s, ok
		}
		ok = true
	}
}

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellEcho makes s safe inside a double-quoted echo argument.
func shellEcho(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return r.Replace(s)
}

// IsFoundryHook reports whether a hook file's content was written by Foundry.
func IsFoundryHook(content []byte) bool {
	for _, line := range strings.Split(string(content), "\n") {
		if strings.TrimRight(line, "\r") == Marker {
			return true
		}
	}
	return false
}

// InstallPreCommit installs the pre-commit hook alone; see [Install].
func InstallPreCommit(ctx context.Context, root string, opts Options) (Result, error) {
	res, err := Install(ctx, root, []string{PreCommit}, opts)
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

// UninstallPreCommit removes the pre-commit hook alone; see [Uninstall].
func UninstallPreCommit(ctx context.Context, root string) (Result, error) {
	res, err := Uninstall(ctx, root, []string{PreCommit})
	if len(res) == 0 {
		return Result{}, err
	}
	return res[0], err
}

// hookFile is one of [checkHooks] as an install finds it.
type hookFile struct {
	name       string      // PreCommit or PreMergeCommit
	fi         fs.FileInfo // nil when there is none
	old        []byte      // its content, when a regular file
	chainTaken bool        // <name>.pre-foundry exists
	listed     []string    // the projects it checks, when ours
	ours       bool        // Foundry's hook, naming projects it can read
}

// planPreCommit decides how to install the pre-commit hook and the
// pre-merge-commit hook that comes with it ([checkHooks]), one step each.
// Both check the same projects: those either of Foundry's hooks there
// checks already (so a pre-merge-commit hook added to an older install
// checks every project its pre-commit hook does), and this one.
func (r *repo) planPreCommit(opts Options) ([]step, error) {
	files := make([]hookFile, len(checkHooks))
	err := r.inHooks(false, func(root *confined.Root) error {
		for i, name := range checkHooks {
			rel := path.Join(r.hookRel, name)
			fi, old, err := readHook(root, rel)
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(r.hook, name), err)
			}
			_, err = root.Lstat(rel + chainSuffix)
			listed, ours := HookProjects(old)
			files[i] = hookFile{name: name, fi: fi, old: old, chainTaken: err == nil, listed: listed, ours: ours}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	projects := []string{projectName(r.rel)}
	for _, f := range files {
		if f.fi != nil && IsFoundryHook(f.old) && !f.ours {
			return nil, fmt.Errorf("%s: foundry's hook there names no project this foundry can read; remove it with foundry hook uninstall pre-commit, then install again", filepath.Join(r.hook, f.name))
		}
		projects = append(projects, f.listed...)
	}
	projects = sortedProjects(projects)
	steps := make([]step, len(files))
	for i, f := range files {
		if steps[i], err = r.planHookFile(f, projects, opts); err != nil {
			return nil, err
		}
	}
	return steps, nil
}

// planHookFile decides how to write the hook f checking projects. Foundry's
// own hook is rewritten. A hook Foundry did not write is chained: moved to
// "<hook>.pre-foundry", where the new hook runs it first. Every file is
// reached through the root of [repo.inHooks], so no write follows a
// symbolic link out of the repository; a hook file that is itself a link
// is foreign (Foundry never writes one) and is moved aside as it is, its
// target neither read nor changed.
func (r *repo) planHookFile(f hookFile, projects []string, opts Options) (step, error) {
	hook := filepath.Join(r.hook, f.name)
	rel := path.Join(r.hookRel, f.name)
	relChained := rel + chainSuffix
	s := step{res: Result{Hook: f.name, Path: hook, Projects: r.projectRoots(projects)}}
	script := Script(f.name, projects, opts.Executable)
	write := func(root *confined.Root) error { return root.WriteFile(rel, script, 0o755) }
	switch {
	case f.fi == nil:
		s.res.Action = Installed
		s.do = func() error { return r.inHooks(true, write) }
		s.undo = func() { _ = r.inHooks(false, func(root *confined.Root) error { return root.Remove(rel) }) }
	case f.ours:
		s.res.Action = Updated
		if !slices.Contains(f.listed, projectName(r.rel)) {
			s.res.Action = Added
		}
		if bytes.Equal(f.old, script) && f.fi.Mode().Perm()&0o100 != 0 {
			s.res.Action = Unchanged
			return s, nil
		}
		old, perm := f.old, f.fi.Mode().Perm()
		s.do = func() error { return r.inHooks(true, write) }
		s.undo = func() {
			_ = r.inHooks(false, func(root *confined.Root) error { return root.WriteFile(rel, old, perm) })
		}
	default:
		if f.chainTaken {
			return step{}, fmt.Errorf("%s: cannot chain the hook there: %s already exists; merge the two by hand", hook, hook+chainSuffix)
		}
		s.res.Action, s.res.Backup = Chained, hook+chainSuffix
		// The hook is linked to its new name, which fails when that name
		// is taken, and only then replaced by Foundry's: an install planned
		// before another one chained the hook (two installs at once) can
		// never move Foundry's hook over the chained one and lose it. At
		// every moment the hook is in place, chained, or both.
		s.do = func() error {
			return r.inHooks(true, func(root *confined.Root) error {
				if err := root.Link(rel, relChained); err != nil {
					if errors.Is(err, fs.ErrExist) {
						return fmt.Errorf("%s: cannot chain the hook there: %s already exists; merge the two by hand", hook, hook+chainSuffix)
					}
					return err
				}
				// Removed before the write, which refuses to replace a
				// symbolic link (a linked hook is chained as the link).
				if err := root.Remove(rel); err != nil {
					_ = root.Remove(relChained)
					return err
				}
				if err := write(root); err != nil {
					_ = root.Rename(relChained, rel)
					return err
				}
				return nil
			})
		}
		s.undo = func() {
			_ = r.inHooks(false, func(root *confined.Root) error {
				return root.Rename(relChained, rel)
			})
		}
	}
	return s, nil
}

// uninstallHookFile takes this project out of Foundry's hook name (one of
// [checkHooks]). The hook stays, rewritten, while it checks other
// projects; with none left it is removed and the hook it chained put back,
// as it was. A foreign hook is left in place, as [Foreign]: nothing of
// Foundry's is there to remove (an install chains a foreign pre-commit
// hook, so one there now was put back or written since; an install before
// Foundry wrote pre-merge-commit hooks never chained one).
func (r *repo) uninstallHookFile(name string) (Result, error) {
	hook := filepath.Join(r.hook, name)
	rel := path.Join(r.hookRel, name)
	relChained := rel + chainSuffix
	self := projectName(r.rel)
	res := Result{Hook: name, Path: hook, Action: Absent}
	if !r.hooksHeld {
		// No hooks folder when locked: none to take this project from.
		return res, nil
	}
	err := r.inHooks(false, func(root *confined.Root) error {
		fi, old, err := readHook(root, rel)
		switch {
		case err != nil:
			return err
		case fi == nil:
		case !IsFoundryHook(old):
			// Foundry's hook replaced since the install (another tool):
			// the hook Foundry had chained is left too, and said so.
			res.Action = Foreign
			if _, err := root.Lstat(relChained); err == nil {
				res.Backup = hook + chainSuffix
			}
			return nil
		default:
			// A hook whose projects cannot be read is removed, as asked.
			if listed, ok := HookProjects(old); ok {
				if !slices.Contains(listed, self) {
					res.Projects = r.projectRoots(listed)
					return nil
				}
				if rest := slices.DeleteFunc(listed, func(p string) bool { return p == self }); len(rest) > 0 {
					if err := root.WriteFile(rel, Script(name, rest, recordedExecutable(old)), 0o755); err != nil {
						return err
					}
					res.Action, res.Projects = Dropped, r.projectRoots(rest)
					return nil
				}
			}
			if err := root.Remove(rel); err != nil {
				return err
			}
			res.Action = Removed
		}
		if _, err := root.Lstat(relChained); err == nil {
			if err := root.Rename(relChained, rel); err != nil {
				return fmt.Errorf("restore %s: %w", hook+chainSuffix, err)
			}
			res.Action, res.Backup = Restored, hook+chainSuffix
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", hook, err)
	}
	return res, nil
}

// projectRoots turns the projects a hook names into their roots.
func (r *repo) projectRoots(projects []string) []string {
	out := make([]string, len(projects))
	for i, p := range projects {
		out[i] = filepath.Join(r.top, filepath.FromSlash(p))
	}
	return out
}

// inHooks runs fn on the root hook files are confined to ([repo.anchor]);
// paths under it are [repo.hookRel]/<hook>. With mkdir the hooks folder is
// created first, following no link below the anchor. Without it, a hooks
// folder that does not exist is no error: fn is not run.
func (r *repo) inHooks(mkdir bool, fn func(root *confined.Root) error) error {
	if mkdir && r.hookRel == "." {
		// The configured folder itself: the user chose it, links and all.
		if err := os.MkdirAll(r.hook, 0o755); err != nil {
			return err
		}
	}
	root, err := confined.Open(r.anchor)
	if errors.Is(err, fs.ErrNotExist) && !mkdir {
		return nil
	} else if err != nil {
		return err
	}
	defer root.Close()
	if mkdir && r.hookRel != "." {
		if err := root.MkdirAll(r.hookRel); err != nil {
			return err
		}
	}
	return fn(root)
}

// readHook describes the hook file rel under root, nil when there is none,
// and reads it when it is a regular file. A symbolic link is never
// followed: its data is nil, so it counts as a foreign hook.
func readHook(root *confined.Root, rel string) (fs.FileInfo, []byte, error) {
	fi, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return fi, nil, nil
	}
	data, err := confined.ReadFile(root.FS(), rel)
	return fi, data, err
}
