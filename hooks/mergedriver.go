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
	"github.com/foundryhq/foundry/internal/confined"
)

// DriverName is the merge driver's name in .gitattributes and git config.
const DriverName = "foundry-index"

// DriverCommand is the command git runs for a merge of INDEX.md when no
// binary path was recorded: %O, %A and %B are the base, ours (also the
// result) and theirs; %P is the path in the tree, from which the driver
// finds the project's index budget.
const DriverCommand = "foundry hook merge-index %O %A %B %P"

// DriverCommandFor is the driver command with executable recorded: the
// foundry on PATH when there is one, else executable, as the pre-commit hook
// chooses, so a merge works on a machine where foundry is not on PATH.
func DriverCommandFor(executable string) string {
	if executable == "" {
		return DriverCommand
	}
	return `sh -c 'if command -v foundry >/dev/null 2>&1; then exec foundry "$@"; fi; exec "$0" "$@"' ` +
		shellQuote(executable) + " hook merge-index %O %A %B %P"
}

// driverTitle is the human name git shows for the driver.
const driverTitle = "Foundry memory index (union of both sides' facts)"

// createdKey records, in the driver's git config section, that install
// created .gitattributes, so uninstall may remove the file once it is empty
// again, and never a file the user had.
const createdKey = "attributescreated"

// newlineKey records that install added a final newline to a .gitattributes
// that lacked one before appending its line, so uninstall takes it away
// again and gives the user's file back byte for byte.
const newlineKey = "attributesnewline"

// AttributesLine routes INDEX.md to the driver; it lives in the
// .gitattributes of the project root, where the pattern is relative to.
const AttributesLine = ".foundry/memory/INDEX.md merge=" + DriverName

// RegisterMergeDriver registers the merge driver alone, recording no
// binary path; see [Install].
func RegisterMergeDriver(ctx context.Context, root string) (Result, error) {
	res, err := Install(ctx, root, []string{MergeIndex}, Options{})
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

// UnregisterMergeDriver removes the merge driver alone; see [Uninstall].
func UnregisterMergeDriver(ctx context.Context, root string) (Result, error) {
	res, err := Uninstall(ctx, root, []string{MergeIndex})
	if len(res) == 0 {
		return Result{}, err
	}
	return res[0], err
}

// planMergeDriver plans making git merge the project's INDEX.md with
// [MergeIndexFiles] instead of leaving conflict markers: [AttributesLine] in
// the project root's .gitattributes (committed, so every clone routes the
// file) and the driver in the repository's own git config (not committed:
// each clone registers it with foundry hook install).
func (r *repo) planMergeDriver(ctx context.Context, opts Options) (step, error) {
	attrs := filepath.Join(r.dir, ".gitattributes")
	s := step{res: Result{Hook: MergeIndex, Path: attrs, Action: Unchanged}}
	old, err := r.readAttributes()
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return step{}, err
	}
	_, found := attributesLineAt(old)
	want := []string{"merge." + DriverName + ".name", driverTitle, "merge." + DriverName + ".driver", DriverCommandFor(opts.Executable)}
	if !existed {
		want = append(want, "merge."+DriverName+"."+createdKey, "true")
	}
	if !found && len(old) > 0 && old[len(old)-1] != '\n' {
		want = append(want, "merge."+DriverName+"."+newlineKey, "true")
	}
	type prior struct {
		key, value string
		set        bool
	}
	var changes []prior
	for i := 0; i+1 < len(want); i += 2 {
		cur, set, err := r.configGet(ctx, want[i])
		if err != nil {
			return step{}, err
		}
		if !set || cur != want[i+1] {
			changes = append(changes, prior{want[i], cur, set})
		}
	}
	if len(changes) == 0 && found {
		return s, nil
	}
	s.res.Action = Updated
	if !existed {
		s.res.Action = Installed
	}
	s.do = func() error {
		for i := 0; i+1 < len(want); i += 2 {
			if _, err := r.git(ctx, "config", "--local", want[i], want[i+1]); err != nil {
				return err
			}
		}
		if found {
			return nil
		}
		return atomicfile.WriteFile(attrs, appendLine(old, AttributesLine), 0o644)
	}
	s.undo = func() {
		for _, c := range changes {
			if c.set {
				_, _ = r.git(ctx, "config", "--local", c.key, c.value)
			} else {
				_, _ = r.git(ctx, "config", "--local", "--unset", c.key)
			}
		}
		switch {
		case found:
		case existed:
			_ = atomicfile.WriteFile(attrs, old, 0o644)
		default:
			_ = os.Remove(attrs)
		}
	}
	return s, nil
}

// unregisterMergeDriver removes the driver from the repository's git config
// and [AttributesLine] from .gitattributes. The file itself is removed only
// when install created it and nothing else is left in it. Other attributes
// and config are untouched.
func (r *repo) unregisterMergeDriver(ctx context.Context) (Result, error) {
	attrs := filepath.Join(r.dir, ".gitattributes")
	res := Result{Hook: MergeIndex, Path: attrs, Action: Absent}
	created, _, err := r.configGet(ctx, "merge."+DriverName+"."+createdKey)
	if err != nil {
		return Result{}, err
	}
	newline, _, err := r.configGet(ctx, "merge."+DriverName+"."+newlineKey)
	if err != nil {
		return Result{}, err
	}
	if _, ok, err := r.configGet(ctx, "merge."+DriverName+".driver"); err != nil {
		return Result{}, err
	} else if ok {
		if _, err := r.git(ctx, "config", "--local", "--remove-section", "merge."+DriverName); err != nil {
			return Result{}, err
		}
		res.Action = Removed
	}
	old, err := r.readAttributes()
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	} else if err != nil {
		return Result{}, err
	}
	i, found := attributesLineAt(old)
	if !found {
		return res, nil
	}
	lines := strings.SplitAfter(string(old), "\n")
	rest := strings.Join(append(lines[:i:i], lines[i+1:]...), "")
	if newline == "true" && strings.Join(lines[i+1:], "") == "" { // our line still the last
		rest = strings.TrimSuffix(rest, "\n")
	}
	if rest == "" && created == "true" {
		err = os.Remove(attrs)
	} else {
		err = atomicfile.WriteFile(attrs, []byte(rest), 0o644)
	}
	if err != nil {
		return Result{}, err
	}
	res.Action = Removed
	return res, nil
}

// readAttributes reads the project root's .gitattributes, following a
// symbolic link only while it stays inside the project, within the size
// limit of any file Foundry reads.
func (r *repo) readAttributes() ([]byte, error) {
	root, err := confined.Open(r.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return confined.ReadFile(root.FS(), ".gitattributes")
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
