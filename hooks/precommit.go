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

	"github.com/foundryhq/foundry/internal/atomicfile"
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

// backupSuffix names the copy of a foreign hook that a forced install moved
// aside; uninstall puts it back.
const backupSuffix = ".pre-foundry"

// CheckCommand is what the hook runs: check exactly what the commit
// changes under .foundry/, one line per problem.
const CheckCommand = "hook pre-commit"

// Options tunes an install.
type Options struct {
	// Force replaces a hook Foundry did not write, after moving it aside to
	// "<hook>.pre-foundry".
	Force bool
	// Executable is the absolute path of the foundry binary, recorded in the
	// hook and used when foundry is not on PATH at commit time.
	Executable string
}

// Action says what an install or uninstall did to one file or setting.
type Action string

const (
	Installed Action = "installed" // written where nothing was
	Updated   Action = "updated"   // Foundry's own, rewritten with new content
	Unchanged Action = "unchanged" // already exactly as it would be written
	Replaced  Action = "replaced"  // a foreign hook moved aside (Force) and ours written
	Removed   Action = "removed"   // Foundry's own, deleted
	Restored  Action = "restored"  // ours deleted and the moved-aside hook put back
	Absent    Action = "absent"    // nothing of Foundry's to remove
)

// Result reports one hook's install or uninstall.
type Result struct {
	Hook   string `json:"hook"`             // PreCommit or MergeIndex
	Action Action `json:"action"`           //
	Path   string `json:"path"`             // the hook file, or the .gitattributes file
	Backup string `json:"backup,omitempty"` // where a foreign hook was moved, or was restored from
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
`, Marker, shellQuote(path.Join(projectDir, ".foundry")), shellQuote(executable), shellEcho(recorded), shellQuote(projectDir), CheckCommand)
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

// InstallPreCommit writes the pre-commit hook of the project at root into
// the hooks folder git uses for its repository (core.hooksPath when set).
// An existing hook Foundry did not write is left alone and the error matches
// [ErrForeignHook], unless opts.Force, which moves it aside first.
func InstallPreCommit(ctx context.Context, root string, opts Options) (Result, error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return Result{}, fmt.Errorf("install pre-commit hook: %w", err)
	}
	path := filepath.Join(r.hook, PreCommit)
	res := Result{Hook: PreCommit, Path: path}
	script := PreCommitScript(r.rel, opts.Executable)

	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Action = Installed
	case err != nil:
		return Result{}, fmt.Errorf("install pre-commit hook: %w", err)
	case IsFoundryHook(old):
		res.Action = Updated
		if bytes.Equal(old, script) {
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o100 != 0 {
				res.Action = Unchanged
				return res, nil
			}
		}
	case !opts.Force:
		return Result{}, fmt.Errorf("install pre-commit hook: %s: %w", path, ErrForeignHook)
	default:
		backup := path + backupSuffix
		if _, err := os.Lstat(backup); err == nil {
			return Result{}, fmt.Errorf("install pre-commit hook: cannot move the existing hook aside: %s already exists", backup)
		}
		if err := os.Rename(path, backup); err != nil {
			return Result{}, fmt.Errorf("install pre-commit hook: move the existing hook aside: %w", err)
		}
		res.Action, res.Backup = Replaced, backup
	}
	if err := os.MkdirAll(r.hook, 0o755); err != nil {
		return Result{}, fmt.Errorf("install pre-commit hook: %w", err)
	}
	if err := atomicfile.WriteFile(path, script, 0o755); err != nil {
		return Result{}, fmt.Errorf("install pre-commit hook: %w", err)
	}
	return res, nil
}

// UninstallPreCommit removes the pre-commit hook when Foundry wrote it, and
// puts back the hook a forced install moved aside. A foreign hook is left in
// place and the error matches [ErrForeignHook].
func UninstallPreCommit(ctx context.Context, root string) (Result, error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return Result{}, fmt.Errorf("uninstall pre-commit hook: %w", err)
	}
	path := filepath.Join(r.hook, PreCommit)
	res := Result{Hook: PreCommit, Path: path, Action: Absent}
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return res, nil
	case err != nil:
		return Result{}, fmt.Errorf("uninstall pre-commit hook: %w", err)
	case !IsFoundryHook(old):
		return Result{}, fmt.Errorf("uninstall pre-commit hook: %s: %w; it was left in place", path, ErrForeignHook)
	}
	if err := os.Remove(path); err != nil {
		return Result{}, fmt.Errorf("uninstall pre-commit hook: %w", err)
	}
	res.Action = Removed
	backup := path + backupSuffix
	if _, err := os.Lstat(backup); err == nil {
		if err := os.Rename(backup, path); err != nil {
			return Result{}, fmt.Errorf("uninstall pre-commit hook: restore %s: %w", backup, err)
		}
		res.Action, res.Backup = Restored, backup
	}
	return res, nil
}
