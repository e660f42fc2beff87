package hooks

// This file defines how the package asks git about a repository: through the
// git binary, which knows every rule of its own configuration.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/git"
)

// repo is the git working tree that holds a project, as git sees it.
type repo struct {
	bin  string // the git binary
	dir  string // the project root, where every git command runs
	top  string // the working tree root
	rel  string // the project root relative to top, slash form, "" at the top
	hook string // the hooks folder git runs hooks from (honours core.hooksPath)
	// anchor is the folder hook files are confined to, and hookRel the
	// hooks folder relative to it (slash form, "." for the folder itself):
	// no symbolic link is followed below anchor. It is the working tree
	// root when the hooks folder lies inside it (.git/hooks, or a
	// core.hooksPath in the tree); the git folder of a linked worktree or
	// a submodule, whose .git file leads there; otherwise the configured
	// hooks folder itself.
	anchor  string
	hookRel string
	// common is the repository's git folder shared by all its working
	// trees (.git, for a linked worktree the main one's), which holds its
	// git config; [repo.lock] locks it.
	common string
	// hooksHeld is whether the pre-commit hook may be changed under
	// [repo.lock]: false when an uninstall found no hooks folder to lock,
	// and then the hook is left alone, as absent.
	hooksHeld bool
}

// openRepo asks git where the working tree holding dir and its hooks folder
// are.
func openRepo(ctx context.Context, dir string) (*repo, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGitBinary
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// Git's paths are physical (the top it prints has no link in it, a
	// relative path climbs from the real folder): so is the project root.
	// (Git's own absolute paths would resolve the very links a hook write
	// must refuse, so relative ones are joined here.)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := &repo{bin: bin, dir: abs}
	out, err := r.git(ctx, "rev-parse", "--is-inside-work-tree", "--show-toplevel", "--show-prefix", "--git-path", "hooks", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("find repository at %s: %w", dir, git.ErrNotRepository)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 5 || lines[0] != "true" {
		return nil, fmt.Errorf("find repository at %s: %w", dir, git.ErrNotRepository)
	}
	r.top = filepath.FromSlash(lines[1])
	r.rel = strings.TrimSuffix(lines[2], "/")
	r.hook = filepath.FromSlash(lines[3])
	if !filepath.IsAbs(r.hook) {
		r.hook = filepath.Join(abs, r.hook)
	}
	common := filepath.FromSlash(lines[4])
	if !filepath.IsAbs(common) {
		common = filepath.Join(abs, common)
	}
	r.common = common
	r.anchor, r.hookRel = r.hook, "."
	for _, a := range []string{r.top, common} {
		if rel, ok := within(a, r.hook); ok {
			r.anchor, r.hookRel = a, rel
			break
		}
	}
	return r, nil
}

// within returns p relative to dir in slash form when p is dir or lies
// below it.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// git runs the git binary in the project root and returns its stdout.
func (r *repo) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = r.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), &gitError{args: args, msg: msg, err: err}
	}
	return stdout.String(), nil
}

// configGet reads one key of the repository's own (--local) git config; ok
// is false when the key is not set.
func (r *repo) configGet(ctx context.Context, key string) (value string, ok bool, err error) {
	out, err := r.git(ctx, "config", "--local", "--get", key)
	var ge *gitError
	var ee *exec.ExitError
	if errors.As(err, &ge) && errors.As(ge.err, &ee) && ee.ExitCode() == 1 {
		return "", false, nil // git config exits 1 for a key that is not set
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimRight(out, "\n"), true, nil
}

// configGetAll reads every value of one key of the repository's own
// (--local) git config, in order; none when the key is not set.
func (r *repo) configGetAll(ctx context.Context, key string) ([]string, error) {
	out, err := r.git(ctx, "config", "--local", "-z", "--get-all", key)
	var ge *gitError
	var ee *exec.ExitError
	if errors.As(err, &ge) && errors.As(ge.err, &ee) && ee.ExitCode() == 1 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"), nil
}

// configSetAll makes values the values of key in the repository's own git
// config: the key is unset when there are none.
func (r *repo) configSetAll(ctx context.Context, key string, values []string) error {
	cur, err := r.configGetAll(ctx, key)
	if err != nil {
		return err
	}
	if slices.Equal(cur, values) {
		return nil
	}
	if len(cur) > 0 {
		if _, err := r.git(ctx, "config", "--local", "--unset-all", key); err != nil {
			return err
		}
	}
	for _, v := range values {
		if _, err := r.git(ctx, "config", "--local", "--add", key, v); err != nil {
			return err
		}
	}
	return nil
}

// gitError is a git command that failed, with git's own message.
type gitError struct {
	args []string
	msg  string
	err  error
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), e.msg)
}

func (e *gitError) Unwrap() error { return e.err }
