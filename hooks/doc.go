// Package hooks installs and removes Foundry's git integrations: the
// pre-commit hook that checks what a commit changes under .foundry/, and the
// merge driver that merges the generated .foundry/memory/INDEX.md instead of
// leaving a conflict in it.
//
// Git's own configuration decides where things go (core.hooksPath, linked
// worktrees, a relative hooks path), so this package asks the git binary
// (`git rev-parse --git-path hooks`, `git config --local`) rather than
// reimplementing its rules. A hook this package did not write is never
// overwritten: [Install] chains it (moved to "<hook>.pre-foundry", run first
// by ours, its failure blocking the commit) and [Uninstall] puts it back as
// it was. Install plans every hook before changing any, so a failed install
// changes nothing. The installs and uninstalls of one repository's projects
// take turns, and so do those of repositories sharing one hooks folder (an
// absolute core.hooksPath), so two at once never lose one's project from
// the shared hook or git config. On unix the turn is a flock(2) on the
// folders themselves, the repository's git folder and the hooks folder, so
// no file is created for it; on Windows, where a folder cannot be locked,
// it is a lock on the file foundry-hooks.lock in the git folder, and
// repositories sharing a hooks folder do not take turns.
//
// The hook itself is a small POSIX shell script: it runs
// `foundry -C <project> hook pre-commit` for each project of the repository
// it was installed for (sorted; [Install] adds the project, [Uninstall]
// takes out only that one and removes the hook with the last), with the
// foundry found on PATH, or else the absolute path recorded at install;
// with neither, it blocks the commit and says how to install foundry and
// that `git commit --no-verify` skips the check. The merge driver makes the same
// choice ([DriverCommandFor]).
package hooks
