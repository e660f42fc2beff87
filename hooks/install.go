package hooks

// This file defines Install and Uninstall: every hook planned before any is
// changed, so an install that fails changes nothing.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
)

// lock takes the turn of the repository's installs and uninstalls, waiting
// while another holds it (until ctx is done), and returns the function
// that releases it: two at once, for two projects, would otherwise each
// plan from what the other had not yet written, and the second write would
// lose the first one's project. The turn is held from before the shared
// pre-commit hook and git config are read until after they are written.
// On unix it is a lock on the folders themselves ([lockFolders]), so
// nothing is created for it: the repository's common git folder, which
// holds the git config, and with hook (the pre-commit hook handled) the
// hooks folder, which other repositories may share (an absolute
// core.hooksPath). The folders are those git uses, links followed as git
// follows them, so every repository naming one folder locks the same.
//
// A hooks folder that does not exist cannot be locked. With mkdir (an
// install) it is created first, and the folders created are returned for
// [repo.removeCreated] to take away again if the install fails. Without
// mkdir (an uninstall) it is not locked, and [repo.hooksHeld] stays false:
// the pre-commit hook is then left alone, as absent, even if another
// repository's install creates the folder meanwhile.
func (r *repo) lock(ctx context.Context, hook, mkdir bool) (unlock func(), created []string, err error) {
	common, err := filepath.EvalSymlinks(r.common)
	if err != nil {
		return nil, nil, err
	}
	for {
		hooks, held := "", hook
		if hook {
			_, err := os.Lstat(r.hook)
			switch {
			case err == nil:
				hooks, err = filepath.EvalSymlinks(r.hook)
				if errors.Is(err, fs.ErrNotExist) {
					// A link to nothing: no folder to lock or share, and
					// nothing is written through it (the plan says why).
					hooks, err = "", nil
				}
				if err != nil {
					return nil, created, err
				}
			case !errors.Is(err, fs.ErrNotExist):
				return nil, created, err
			case mkdir:
				c, err := r.mkHooks()
				for _, p := range c {
					if !slices.Contains(created, p) {
						created = append(created, p)
					}
				}
				if err != nil {
					return nil, created, err
				}
				continue
			default:
				held = false
			}
		}
		unlock, err := lockFolders(ctx, common, hooks)
		if errors.Is(err, fs.ErrNotExist) && hooks != "" {
			continue // removed by a failed install meanwhile
		} else if err != nil {
			return nil, created, err
		}
		if hook && !held {
			// Not locked because not there: so it must still not be.
			if _, err := os.Lstat(r.hook); !errors.Is(err, fs.ErrNotExist) {
				unlock()
				continue
			}
		}
		r.hooksHeld = held
		return unlock, created, nil
	}
}

// mkHooks creates the hooks folder as [repo.inHooks] does, and returns the
// folders it created, deepest first.
func (r *repo) mkHooks() ([]string, error) {
	var missing []string
	for p := r.hook; ; {
		if _, err := os.Lstat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	err := r.inHooks(true, func(*confined.Root) error { return nil })
	return missing, err
}

// removeCreated removes the folders [repo.lock] created, deepest first, as
// long as they are empty (another install may have written to them): a
// failed install leaves no hooks folder behind. It runs under the lock, so
// an install waiting on a removed folder opens it anew.
func (r *repo) removeCreated(created []string) {
	if r.hookRel == "." {
		// The configured folder itself: the user chose it, links and all.
		for _, p := range created {
			if os.Remove(p) != nil {
				return
			}
		}
		return
	}
	root, err := confined.Open(r.anchor)
	if err != nil {
		return
	}
	defer root.Close()
	for _, p := range created {
		rel, ok := within(r.anchor, p)
		if !ok || rel == "." || root.Remove(rel) != nil {
			return
		}
	}
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
// repository's projects, and of repositories sharing the hooks folder,
// take turns, so none loses another's change; on unix nothing is created
// for that ([repo.lock]).
func Install(ctx context.Context, root string, names []string, opts Options) (_ []Result, err error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("install hooks: %w", err)
	}
	for _, name := range names {
		if !slices.Contains(Names, name) {
			return nil, fmt.Errorf("install %s hook: %q: %w", name, name, ErrUnknownHook)
		}
	}
	if slices.Contains(names, PreCommit) {
		// The hook reads what is staged with Foundry's own reader: where
		// that cannot read the repository, it would refuse every commit.
		g, err := git.Open(root)
		if errors.Is(err, git.ErrUnsupportedFormat) {
			return nil, fmt.Errorf("install pre-commit hook: %w; the hook could not read what a commit stages, and would refuse every commit", err)
		}
		if err == nil {
			g.Close()
		}
	}
	// A hooks folder created by a lock that then failed (ctx done) is
	// left: removed without the lock, it could be one another install
	// has just locked.
	unlock, created, err := r.lock(ctx, slices.Contains(names, PreCommit), true)
	if err != nil {
		return nil, fmt.Errorf("install hooks: %w", err)
	}
	defer unlock()
	defer func() {
		// Before the unlock: after it, another install could have taken
		// the folder this one removes.
		if err != nil {
			r.removeCreated(created)
		}
	}()
	var steps []step
	for _, name := range names {
		var planned []step
		switch name {
		case PreCommit:
			planned, err = r.planPreCommit(opts)
		case MergeIndex:
			var s step
			s, err = r.planMergeDriver(ctx, opts)
			planned = []step{s}
		default:
			err = fmt.Errorf("%q: %w", name, ErrUnknownHook)
		}
		if err != nil {
			return nil, fmt.Errorf("install %s hook: %w", name, err)
		}
		steps = append(steps, planned...)
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
// ([Dropped] while others do). A hook Foundry did not write is left in
// place ([Foreign]). Each hook is handled even when another cannot be, so
// a hook that cannot be read does not keep the merge driver registered. It returns the results of the hooks it handled and the first
// error. It takes turns with the repository's other installs and
// uninstalls, as [Install] does.
func Uninstall(ctx context.Context, root string, names []string) ([]Result, error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("uninstall hooks: %w", err)
	}
	unlock, _, err := r.lock(ctx, slices.Contains(names, PreCommit), false)
	if err != nil {
		return nil, fmt.Errorf("uninstall hooks: %w", err)
	}
	defer unlock()
	var out []Result
	var first error
	for _, name := range names {
		files := []string{name}
		if name == PreCommit {
			files = checkHooks
		}
		for _, file := range files {
			var res Result
			switch file {
			case PreCommit, PreMergeCommit:
				res, err = r.uninstallHookFile(file)
			case MergeIndex:
				res, err = r.unregisterMergeDriver(ctx)
			default:
				err = fmt.Errorf("%q: %w", file, ErrUnknownHook)
			}
			if err != nil {
				if first == nil {
					first = fmt.Errorf("uninstall %s hook: %w", file, err)
				}
				continue
			}
			out = append(out, res)
		}
	}
	return out, first
}
