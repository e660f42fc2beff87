package hooks

// This file defines the git pre-commit hook: its script, and how it is
// installed and removed without ever losing a hook Foundry did not write.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/foundryhq/foundry/internal/confined"
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

// Marker is the line that identifies a hook file written by Foundry. A hook
// file without it is foreign and is never overwritten or removed silently.
const Marker = "# foundry-hook: pre-commit"

// chainSuffix names the hook that was in place before Foundry's: install
// moves it there, the script runs it first, and uninstall puts it back.
const chainSuffix = ".pre-foundry"

// CheckCommand is what the hook runs: check exactly what the commit
// changes under .foundry/, one line per problem.
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
)

// Result reports one hook's install or uninstall.
type Result struct {
	Hook   string `json:"hook"`             // PreCommit or MergeIndex
	Action Action `json:"action"`           //
	Path   string `json:"path"`             // the hook file, or the .gitattributes file
	Backup string `json:"backup,omitempty"` // where a foreign hook is chained from, or was restored from
}

// PreCommitScript renders the hook for a project at projectDir (relative to
// the working tree root, "" at the top) with executable recorded as the
// fallback. Git runs hooks from the working tree root, so the relative
// project path is stable across clones.
func PreCommitScript(projectDir, executable string) []byte {
	if projectDir == "" {
		projectDir = "."
	}
	recorded := executable
	if recorded == "" {
		recorded = "(none recorded)"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `#!/bin/sh
%s
# Written by `+"`foundry hook install pre-commit`"+`: checks what the
# commit changes under .foundry/ (facts, runbooks, artifacts, schemas,
# config, conflict markers).
# Remove it with `+"`foundry hook uninstall pre-commit`"+`; skip it once with
# `+"`git commit --no-verify`"+`.
# The hook that was here before foundry's runs first, as git would have
# run it; its failure blocks the commit.
foundry_chained="${0%%/*}/%s"
if [ -x "$foundry_chained" ]; then
	"$foundry_chained" "$@" || exit $?
fi
# No project here, nothing to check: a core.hooksPath folder can be shared
# by other repositories.
[ -d %s ] || exit 0
foundry_recorded=%s
if command -v foundry >/dev/null 2>&1; then
	foundry_bin=foundry
elif [ -n "$foundry_recorded" ] && [ -x "$foundry_recorded" ]; then
	foundry_bin=$foundry_recorded
else
	echo "foundry pre-commit hook: foundry is not on PATH, nor at %s where it was when the hook was installed." >&2
	echo "Install it with 'go install github.com/foundryhq/foundry/cmd/foundry@latest' and make sure it is on PATH," >&2
	echo "or skip this check once with 'git commit --no-verify'." >&2
	exit 1
fi
exec "$foundry_bin" -C %s %s
`, Marker, PreCommit+chainSuffix, shellQuote(path.Join(projectDir, ".foundry")), shellQuote(executable), shellEcho(recorded), shellQuote(projectDir), CheckCommand)
	return b.Bytes()
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

// planPreCommit decides how to install the pre-commit hook. A hook Foundry
// did not write is chained: moved to "<hook>.pre-foundry", where the new
// hook runs it first. Every file is reached through the root of
// [repo.inHooks], so no write follows a symbolic link out of the
// repository; a hook file that is itself a link is foreign (Foundry never
// writes one) and is moved aside as it is, its target neither read nor
// changed.
func (r *repo) planPreCommit(opts Options) (step, error) {
	hook := filepath.Join(r.hook, PreCommit)
	rel := path.Join(r.hookRel, PreCommit)
	relChained := rel + chainSuffix
	s := step{res: Result{Hook: PreCommit, Path: hook}}
	script := PreCommitScript(r.rel, opts.Executable)
	write := func(root *confined.Root) error { return root.WriteFile(rel, script, 0o755) }
	var fi fs.FileInfo
	var old []byte
	var chainTaken bool
	err := r.inHooks(false, func(root *confined.Root) error {
		var err error
		if fi, old, err = readHook(root, rel); err != nil {
			return err
		}
		_, err = root.Lstat(relChained)
		chainTaken = err == nil
		return nil
	})
	switch {
	case err != nil:
		return step{}, fmt.Errorf("%s: %w", hook, err)
	case fi == nil:
		s.res.Action = Installed
		s.do = func() error { return r.inHooks(true, write) }
		s.undo = func() { _ = r.inHooks(false, func(root *confined.Root) error { return root.Remove(rel) }) }
	case IsFoundryHook(old):
		s.res.Action = Updated
		if bytes.Equal(old, script) && fi.Mode().Perm()&0o100 != 0 {
			s.res.Action = Unchanged
			return s, nil
		}
		s.do = func() error { return r.inHooks(true, write) }
		s.undo = func() {
			_ = r.inHooks(false, func(root *confined.Root) error { return root.WriteFile(rel, old, fi.Mode().Perm()) })
		}
	default:
		if chainTaken {
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

// uninstallPreCommit removes the pre-commit hook when Foundry wrote it and
// puts back the hook it chained, as it was. A foreign hook is left in place
// and the error matches [ErrForeignHook].
func (r *repo) uninstallPreCommit() (Result, error) {
	hook := filepath.Join(r.hook, PreCommit)
	rel := path.Join(r.hookRel, PreCommit)
	relChained := rel + chainSuffix
	res := Result{Hook: PreCommit, Path: hook, Action: Absent}
	err := r.inHooks(false, func(root *confined.Root) error {
		fi, old, err := readHook(root, rel)
		switch {
		case err != nil:
			return err
		case fi == nil:
		case !IsFoundryHook(old):
			return fmt.Errorf("%w; it was left in place", ErrForeignHook)
		default:
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
