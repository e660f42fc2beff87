package project

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
)

// InitResult says what Init created.
type InitResult struct {
	Root    string   `json:"root"`
	Created []string `json:"created"` // slash paths relative to Root, in creation order
	// OptIn is the config file init added the MCP opt-in to, in a project
	// whose config had no mcp block; empty when it added none.
	OptIn string `json:"optIn,omitempty"`
}

const gitignoreTemplate = "# Local event log behind `foundry tokens`, writers' lock files, and the temp\n# files a killed writer may leave; never committed.\nmetrics/\n.lock\n.foundry-tmp-*\n"

// InitOptions configures [Init].
type InitOptions struct {
	// Force creates a project below an existing one, which then shadows
	// it for every command run below.
	Force bool
}

// NestedError is [Init] refusing to create a project inside another.
type NestedError struct {
	Dir    string // where init was asked
	Parent string // the root of the enclosing project
}

func (e *NestedError) Error() string {
	return fmt.Sprintf("init %s: %v at %s: a .foundry/ here would shadow its memory for every command run below", e.Dir, ErrNested, e.Parent)
}

// Unwrap makes a *NestedError match [ErrNested].
func (e *NestedError) Unwrap() error { return ErrNested }

// Init creates .foundry/ and its layout in dir, without overwriting
// anything that exists. Below an existing project (a parent folder, up to
// the git worktree root, holding .foundry/) it refuses with a
// *[NestedError] unless opts.Force is set. ctx bounds the wait for the
// config's lock.
func Init(ctx context.Context, dir string, opts InitOptions) (InitResult, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return InitResult{}, err
	}
	if !opts.Force {
		if parent := Enclosing(root); parent != "" {
			return InitResult{}, &NestedError{Dir: root, Parent: parent}
		}
	}
	res := InitResult{Root: root, Created: []string{}}
	// Every write goes through the project folder's confined root, so no
	// component on the way (.foundry itself included) may be a symbolic
	// link: a clone that commits .foundry -> /elsewhere gets nothing
	// written there.
	files, err := confined.Open(root)
	if err != nil {
		return res, fmt.Errorf("init %s: %w", root, err)
	}
	defer files.Close()
	for _, d := range []string{Dir, Dir + "/memory", Dir + "/runbooks", Dir + "/blackboard", Dir + "/schemas"} {
		fi, err := files.Lstat(d)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil && fi.Mode().IsRegular():
			// Init turns nothing into a folder: the file may be someone's.
			return res, fmt.Errorf("init %s: %s is a file, not a folder: move it away, then run foundry init again", root, d)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return res, fmt.Errorf("init %s: %w", root, err)
		}
		if err := files.MkdirAll(d); err != nil {
			return res, fmt.Errorf("init %s: %w", root, err)
		}
		res.Created = append(res.Created, d+"/")
	}
	for _, f := range []struct{ path, content string }{
		{Dir + "/.gitignore", gitignoreTemplate},
		{config.Path, config.Template},
	} {
		_, err := files.Lstat(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			// WriteNew never replaces a file, so of two inits run at
			// once one writes and the other finds the file there.
			err = files.WriteNew(f.path, []byte(f.content), 0o644)
			if err == nil {
				res.Created = append(res.Created, f.path)
				continue
			}
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return res, fmt.Errorf("init %s: %w", root, err)
		}
		if f.path == config.Path {
			if res.OptIn, err = addOptIn(ctx, files); err != nil {
				return res, fmt.Errorf("init %s: %w", root, err)
			}
		}
	}
	return res, nil
}

// addOptIn adds the MCP opt-in to the project's config file when it has no
// mcp block (a project initialised before init wrote one) and returns its
// project-relative path, or "" when nothing changed.
func addOptIn(ctx context.Context, files *confined.Root) (string, error) {
	// Most configs have the block: that is decided without the lock, which
	// a project on a read-only file system could not take, and decided
	// again under it.
	if _, _, changed, err := withOptIn(files); err != nil || !changed {
		return "", err
	}
	unlock, err := files.Lock(ctx, config.LockPath)
	if err != nil {
		return "", err
	}
	defer func() { _ = unlock() }()
	out, perm, changed, err := withOptIn(files)
	if err != nil || !changed {
		return "", err
	}
	if err := files.WriteFile(config.Path, out, perm); err != nil {
		return "", err
	}
	return config.Path, nil
}

// withOptIn returns the project's config file with the MCP opt-in added,
// its permissions, and whether that changed it.
func withOptIn(files *confined.Root) (out []byte, perm fs.FileMode, changed bool, err error) {
	info, err := files.Lstat(config.Path)
	if err != nil {
		return nil, 0, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("add the mcp opt-in to %s: not a regular file", config.Path)
	}
	data, err := confined.ReadFile(files.FS(), config.Path)
	if err != nil {
		return nil, 0, false, fmt.Errorf("add the mcp opt-in: %w", err)
	}
	out, changed, err = config.AddMCPOptIn(config.Path, data)
	return out, info.Mode().Perm(), changed, err
}

// Enclosing returns the root of the project that dir lies inside — the
// nearest parent folder holding .foundry/, searched up to the root of the
// git worktree (or of the file system outside git) — or "" when there is
// none, or dir is a project root itself.
func Enclosing(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if fi, err := os.Stat(filepath.Join(abs, Dir)); err == nil && fi.IsDir() {
		return ""
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "" // the worktree root: a project above it is another repository's
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
		if fi, err := os.Stat(filepath.Join(d, Dir)); err == nil && fi.IsDir() {
			return d
		}
	}
}
