package hooks

// This file defines the merge driver of .foundry/memory/INDEX.md: its
// registration (a .gitattributes line plus [merge "foundry-index"] in the
// repository's git config) and the merge it performs.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/atomicfile"
)

// DriverName is the merge driver's name in .gitattributes and git config.
const DriverName = "foundry-index"

// DriverCommand is the command git runs for a merge of INDEX.md: %O, %A and
// %B are the base, ours (also the result) and theirs; %P is the path in the
// tree, from which the driver finds the project's index budget.
const DriverCommand = "foundry hook merge-index %O %A %B %P"

// driverTitle is the human name git shows for the driver.
const driverTitle = "Foundry memory index (union of both sides' facts)"

// AttributesLine routes INDEX.md to the driver; it lives in the
// .gitattributes of the project root, where the pattern is relative to.
const AttributesLine = ".foundry/memory/INDEX.md merge=" + DriverName

// RegisterMergeDriver makes git merge the project's INDEX.md with
// [MergeIndexFiles] instead of leaving conflict markers: it adds
// [AttributesLine] to the project root's .gitattributes (committed, so every
// clone routes the file) and defines the driver in the repository's own git
// config (not committed: each clone registers it with foundry hook install).
func RegisterMergeDriver(ctx context.Context, root string) (Result, error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return Result{}, fmt.Errorf("register merge driver: %w", err)
	}
	path := filepath.Join(r.dir, ".gitattributes")
	res := Result{Hook: MergeIndex, Path: path, Action: Unchanged}

	changed, err := r.setConfig(ctx,
		"merge."+DriverName+".name", driverTitle,
		"merge."+DriverName+".driver", DriverCommand)
	if err != nil {
		return Result{}, fmt.Errorf("register merge driver: %w", err)
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, fmt.Errorf("register merge driver: %w", err)
	}
	_, found := attributesLineAt(old)
	if !found {
		if err := atomicfile.WriteFile(path, appendLine(old, AttributesLine), 0o644); err != nil {
			return Result{}, fmt.Errorf("register merge driver: %w", err)
		}
		changed = true
	}
	switch {
	case !changed:
	case old == nil && !found:
		res.Action = Installed
	default:
		res.Action = Updated
	}
	return res, nil
}

// UnregisterMergeDriver removes the driver from the repository's git config
// and [AttributesLine] from .gitattributes (the file itself is removed when
// nothing else is left in it). Other attributes and config are untouched.
func UnregisterMergeDriver(ctx context.Context, root string) (Result, error) {
	r, err := openRepo(ctx, root)
	if err != nil {
		return Result{}, fmt.Errorf("unregister merge driver: %w", err)
	}
	path := filepath.Join(r.dir, ".gitattributes")
	res := Result{Hook: MergeIndex, Path: path, Action: Absent}
	if _, ok, err := r.configGet(ctx, "merge."+DriverName+".driver"); err != nil {
		return Result{}, fmt.Errorf("unregister merge driver: %w", err)
	} else if ok {
		if _, err := r.git(ctx, "config", "--local", "--remove-section", "merge."+DriverName); err != nil {
			return Result{}, fmt.Errorf("unregister merge driver: %w", err)
		}
		res.Action = Removed
	}
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	} else if err != nil {
		return Result{}, fmt.Errorf("unregister merge driver: %w", err)
	}
	i, found := attributesLineAt(old)
	if !found {
		return res, nil
	}
	lines := strings.SplitAfter(string(old), "\n")
	rest := strings.Join(append(lines[:i:i], lines[i+1:]...), "")
	if strings.TrimSpace(rest) == "" {
		err = os.Remove(path)
	} else {
		err = atomicfile.WriteFile(path, []byte(rest), 0o644)
	}
	if err != nil {
		return Result{}, fmt.Errorf("unregister merge driver: %w", err)
	}
	res.Action = Removed
	return res, nil
}

// setConfig sets key, value pairs in the repository's own git config and
// reports whether any value changed.
func (r *repo) setConfig(ctx context.Context, kv ...string) (bool, error) {
	changed := false
	for i := 0; i+1 < len(kv); i += 2 {
		k, v := kv[i], kv[i+1]
		cur, set, err := r.configGet(ctx, k)
		if err != nil {
			return false, err
		}
		if set && cur == v {
			continue
		}
		if _, err := r.git(ctx, "config", "--local", k, v); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// attributesLineAt finds [AttributesLine] in a .gitattributes file, ignoring
// surrounding blanks; i is its line number from 0.
func attributesLineAt(data []byte) (i int, ok bool) {
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Join(strings.Fields(line), " ") == AttributesLine {
			return i, true
		}
	}
	return 0, false
}

// appendLine adds line to data, after a newline when data lacks its final one.
func appendLine(data []byte, line string) []byte {
	out := bytes.Clone(data)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, line+"\n"...)
}

// MergeIndexFiles is the merge driver: it merges the INDEX.md versions in the
// files base, ours and theirs with [facts.MergeIndex] under budget tokens
// (0: the default) and writes the result over ours, as git expects. On error
// ours is left as it was, and git records a conflict.
func MergeIndexFiles(base, ours, theirs string, budget int) error {
	var data [3][]byte
	for i, p := range []string{base, ours, theirs} {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("merge memory index: %w", err)
		}
		data[i] = b
	}
	merged, err := facts.MergeIndex(data[0], data[1], data[2], budget)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(ours); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := atomicfile.WriteFile(ours, merged, mode); err != nil {
		return fmt.Errorf("merge memory index: %w", err)
	}
	return nil
}
