package hooks

// This file defines Install and Uninstall: every hook planned before any is
// changed, so an install that fails changes nothing.

import (
	"context"
	"fmt"
	"slices"

	"github.com/foundryhq/foundry/internal/confined"
)

// hooksLock is the file, in the repository's common git folder
// ([repo.common]), whose lock every [Install] and [Uninstall] of the
// repository holds from before it reads the shared pre-commit hook and git
// config until after it has written them: two at once, for two projects,
// would otherwise each plan from what the other had not yet written, and
// the second write would lose the first one's project. In the git folder
// it is never part of the working tree, so never committed.
const hooksLock = "foundry-hooks.lock"

// lock takes the lock of [hooksLock], waiting while another install or
// uninstall of the repository holds it (until ctx is done), and returns
// the function that releases it.
func (r *repo) lock(ctx context.Context) (unlock func(), err error) {
	root, err := confined.Open(r.common)
	if err != nil {
		return nil, err
	}
	release, err := root.Lock(ctx, hooksLock)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", r.common, err)
	}
	return func() {
		_ = release()
		_ = root.Close()
	}, nil
}

// step is one planned change of an install, with its undo. A step with no
// do changes nothing.
type step struct {
	res  Result
	do   func() error
	undo func()
}

// Install installs the named hooks ([PreCommit], [MergeIndex]) for the
// project at root, in the folders git uses (core.hooksPath honoured). It
// plans every hook first and then applies them, undoing what it applied if
// a later one fails, so a failed install changes nothing. Foundry's
// pre-commit hook serves every project of the repository: installing it
// for another project adds that project's check ([Added]). A pre-commit hook
// Foundry did not write is chained, never lost: it is moved to
// "<hook>.pre-foundry", Foundry's hook runs it first and its failure blocks
// the commit, and [Uninstall] puts it back. Installs and uninstalls of the
// repository's projects take turns, so none loses another's change.
func Install(ctx context.Context, root string, names []string, opts Options) ([]Result, error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("install hooks: %w", err)
	}
	unlock, err := r.lock(ctx)
	if err != nil {
		return nil, fmt.Errorf("install hooks: %w", err)
	}
	defer unlock()
	var steps []step
	for _, name := range names {
		var s step
		switch name {
		case PreCommit:
			s, err = r.planPreCommit(opts)
		case MergeIndex:
			s, err = r.planMergeDriver(ctx, opts)
		default:
			err = fmt.Errorf("%q: %w", name, ErrUnknownHook)
		}
		if err != nil {
			return nil, fmt.Errorf("install %s hook: %w", name, err)
		}
		steps = append(steps, s)
	}
	for i, s := range steps {
		if s.do == nil {
			continue
		}
		if err := s.do(); err != nil {
			for _, d := range slices.Backward(steps[:i]) {
				if d.undo != nil {
					d.undo()
				}
			}
			return nil, fmt.Errorf("install %s hook: %w", s.res.Hook, err)
		}
	}
	out := make([]Result, len(steps))
	for i, s := range steps {
		out[i] = s.res
	}
	return out, nil
}

// Uninstall removes what [Install] added for the named hooks: the
// project's check from Foundry's pre-commit hook ([Dropped]), and the hook
// itself when no other project is left in it (putting back the hook it
// chained); the merge driver's .gitattributes line of the project, and its
// git config once no attributes file of the working tree names it
// ([Dropped] while others do). Each hook is handled even when another
// cannot be, so a foreign pre-commit hook (left in place, with an
// error matching [ErrForeignHook]) does not keep the merge driver
// registered. It returns the results of the hooks it handled and the first
// error. It takes turns with the repository's other installs and
// uninstalls, as [Install] does.
func Uninstall(ctx context.Context, root string, names []string) ([]Result, error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("uninstall hooks: %w", err)
	}
	unlock, err := r.lock(ctx)
	if err != nil {
		return nil, fmt.Errorf("uninstall hooks: %w", err)
	}
	defer unlock()
	var out []Result
	var first error
	for _, name := range names {
		var res Result
		switch name {
		case PreCommit:
			res, err = r.uninstallPreCommit()
		case MergeIndex:
			res, err = r.unregisterMergeDriver(ctx)
		default:
			err = fmt.Errorf("%q: %w", name, ErrUnknownHook)
		}
		if err != nil {
			if first == nil {
				first = fmt.Errorf("uninstall %s hook: %w", name, err)
			}
			continue
		}
		out = append(out, res)
	}
	return out, first
}
