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
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/atomicfile"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
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

// createdKey lists, in the driver's git config section, the projects
// (relative to the working tree root, "." at the top) whose .gitattributes
// install created, so uninstall may remove such a file once it is empty
// again, and never a file the user had. The value "true" is the record of
// an install of the previous format, which kept one flag for the whole
// repository: uninstall honours it only when it removes the driver itself,
// for the last project that uses it.
const createdKey = "attributescreated"

// newlineKey lists the projects whose .gitattributes lacked a final newline
// that install added before appending its line, so uninstall takes it away
// again and gives the user's file back byte for byte ("true": as for
// [createdKey]).
const newlineKey = "attributesnewline"

// legacyRecord is the value of [createdKey] or [newlineKey] an install of
// the previous format wrote.
const legacyRecord = "true"

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
// each clone registers it with foundry hook install). The driver serves
// every project of the repository; what install did to this project's
// .gitattributes is recorded under the project's own name ([createdKey],
// [newlineKey]), so another project's uninstall leaves it alone.
func (r *repo) planMergeDriver(ctx context.Context, opts Options) (step, error) {
	attrs := filepath.Join(r.dir, ".gitattributes")
	s := step{res: Result{Hook: MergeIndex, Path: attrs, Action: Unchanged}}
	old, err := r.readAttributes()
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return step{}, err
	}
	_, found := attributesLineAt(old)
	section := "merge." + DriverName + "."
	type change struct {
		key   string
		prior []string // the key's values before
		apply []string // the git config arguments that make the change
	}
	var changes []change
	for _, kv := range [][2]string{{section + "name", driverTitle}, {section + "driver", DriverCommandFor(opts.Executable)}} {
		prior, err := r.configGetAll(ctx, kv[0])
		if err != nil {
			return step{}, err
		}
		if len(prior) != 1 || prior[0] != kv[1] {
			changes = append(changes, change{kv[0], prior, []string{"--replace-all", kv[0], kv[1]}})
		}
	}
	proj := projectName(r.rel)
	for _, rec := range []struct {
		key  string
		need bool
	}{
		{section + createdKey, !existed},
		{section + newlineKey, !found && len(old) > 0 && old[len(old)-1] != '\n'},
	} {
		if !rec.need {
			continue
		}
		prior, err := r.configGetAll(ctx, rec.key)
		if err != nil {
			return step{}, err
		}
		if !slices.Contains(prior, proj) {
			changes = append(changes, change{rec.key, prior, []string{"--add", rec.key, proj}})
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
		for _, c := range changes {
			if _, err := r.git(ctx, append([]string{"config", "--local"}, c.apply...)...); err != nil {
				return err
			}
		}
		if found {
			return nil
		}
		return atomicfile.Rewrite(attrs, appendLine(old, AttributesLine), 0o644)
	}
	s.undo = func() {
		for _, c := range changes {
			_ = r.configSetAll(ctx, c.key, c.prior)
		}
		switch {
		case found:
		case existed:
			_ = atomicfile.Rewrite(attrs, old, 0o644)
		default:
			_ = atomicfile.Remove(attrs)
		}
	}
	return s, nil
}

// unregisterMergeDriver removes [AttributesLine] from the project's
// .gitattributes, and the driver from the repository's git config once no
// project uses it: when no .gitattributes of the working tree (tracked, or
// untracked and not ignored) and not .git/info/attributes names it any
// more. While others do, they are the result's Attributes and the config
// stays, less this project's records. The file itself is removed only when
// install created it and nothing else is left in it. Other attributes and
// config are untouched.
func (r *repo) unregisterMergeDriver(ctx context.Context) (Result, error) {
	attrs := filepath.Join(r.dir, ".gitattributes")
	res := Result{Hook: MergeIndex, Path: attrs, Action: Absent}
	section := "merge." + DriverName
	created, err := r.configGetAll(ctx, section+"."+createdKey)
	if err != nil {
		return Result{}, err
	}
	newline, err := r.configGetAll(ctx, section+"."+newlineKey)
	if err != nil {
		return Result{}, err
	}
	_, registered, err := r.configGet(ctx, section+".driver")
	if err != nil {
		return Result{}, err
	}
	old, err := r.readAttributes()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, err
	}
	i, found := attributesLineAt(old)
	var lines []string
	rest := old
	if found {
		lines = strings.SplitAfter(string(old), "\n")
		rest = []byte(strings.Join(append(lines[:i:i], lines[i+1:]...), ""))
	}
	others, err := r.driverUsers(ctx, attrs, rest)
	if err != nil {
		return Result{}, err
	}
	last := len(others) == 0
	proj := projectName(r.rel)
	mine := func(records []string) bool {
		return slices.Contains(records, proj) || last && slices.Contains(records, legacyRecord)
	}
	if found {
		if mine(newline) && strings.Join(lines[i+1:], "") == "" { // our line still the last
			rest = bytes.TrimSuffix(rest, []byte(ctrl.LineEnd(old)))
		}
		if len(rest) == 0 && mine(created) {
			err = atomicfile.Remove(attrs)
		} else {
			err = atomicfile.Rewrite(attrs, rest, 0o644)
		}
		if err != nil {
			return Result{}, err
		}
		res.Action = Removed
	}
	switch {
	case last && registered:
		if _, err := r.git(ctx, "config", "--local", "--remove-section", section); err != nil {
			return Result{}, err
		}
		res.Action = Removed
	case last:
	default:
		res.Attributes = others
		if found {
			res.Action = Dropped
		}
		for _, rec := range []struct {
			key    string
			values []string
		}{{section + "." + createdKey, created}, {section + "." + newlineKey, newline}} {
			if !slices.Contains(rec.values, proj) {
				continue
			}
			if err := r.configSetAll(ctx, rec.key, slices.DeleteFunc(slices.Clone(rec.values), func(v string) bool { return v == proj })); err != nil {
				return Result{}, err
			}
		}
	}
	return res, nil
}

// driverUsers lists the attributes files that name the driver (a
// "merge=foundry-index" attribute on any line): every .gitattributes of the
// working tree git lists (tracked, or untracked and not ignored), self (the
// project's own, listed or not) read as selfData, and the repository's
// info/attributes; absolute paths, sorted.
// A .gitattributes that is a symbolic link is skipped, as git skips it.
func (r *repo) driverUsers(ctx context.Context, self string, selfData []byte) ([]string, error) {
	out, err := r.git(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--", ":(top,glob)**/.gitattributes")
	if err != nil {
		return nil, err
	}
	top, err := confined.Open(r.top)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	var users []string
	seen := map[string]bool{}
	selfListed := false
	for _, name := range strings.Split(out, "\x00") {
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		p := filepath.Join(r.top, filepath.FromSlash(name))
		data := selfData
		if p == self {
			selfListed = true
		} else {
			if fi, err := top.Lstat(name); err != nil || !fi.Mode().IsRegular() {
				continue // deleted in the working tree, or a link
			}
			if data, err = confined.ReadFile(top.FS(), name); errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return nil, err
			}
		}
		if namesDriver(data) {
			users = append(users, p)
		}
	}
	// Git reads the project's own file even where it is ignored.
	if !selfListed && namesDriver(selfData) {
		users = append(users, self)
	}
	info, err := r.git(ctx, "rev-parse", "--git-path", "info/attributes")
	if err != nil {
		return nil, err
	}
	p := inDir(r.dir, filepath.FromSlash(strings.TrimRight(info, "\n")))
	if data, err := readBounded(p); err == nil && namesDriver(data) {
		users = append(users, p)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	slices.Sort(users)
	return users, nil
}

// namesDriver reports whether an attributes file gives any pattern the
// merge attribute of the driver.
func namesDriver(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if slices.Contains(f[1:], "merge="+DriverName) {
			return true
		}
	}
	return false
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
	eol := ctrl.LineEnd(data)
	out := bytes.Clone(data)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, eol...)
	}
	return append(out, line+eol...)
}

// MergeIndexFiles is the merge driver: it merges the INDEX.md versions in the
// files base, ours and theirs (names relative to dir unless absolute, as
// git passes %O %A %B) with [facts.MergeIndex] under budget tokens (0: the
// default) and writes the result over ours, as git expects. An error names
// a version as given, a missing one [artifacts.ErrNotFound] and a folder
// [artifacts.ErrFolder], in the words validate uses: "merge memory index:
// ours.md: no such file". On error ours is left as it was, and git records
// a conflict.
func MergeIndexFiles(dir, base, ours, theirs string, budget int) error {
	var data [3][]byte
	for i, name := range []string{base, ours, theirs} {
		b, err := readVersion(inDir(dir, name))
		if err != nil {
			return fmt.Errorf("merge memory index: %s: %w", name, err)
		}
		data[i] = b
	}
	merged, err := facts.MergeIndex(data[0], data[1], data[2], budget)
	if err != nil {
		return err
	}
	p := inDir(dir, ours)
	if err := atomicfile.Rewrite(p, merged, 0o644); err != nil {
		return fmt.Errorf("merge memory index: %w", err)
	}
	return nil
}

// inDir returns name resolved against dir, unless it is absolute.
func inDir(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// readVersion reads the version of a merge at p with [readBounded]; a
// file that is not there (nor the folder it would be in) is
// [artifacts.ErrNotFound], a folder [artifacts.ErrFolder], and any other
// error of the system's is given without the path, which the caller names
// as it was given.
func readVersion(p string) ([]byte, error) {
	b, err := readBounded(p)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, artifacts.ErrNotFound
	case errors.Is(err, syscall.EISDIR):
		return nil, artifacts.ErrFolder
	case errors.As(err, &pe):
		return nil, pe.Err
	}
	return b, err
}

// readBounded reads the file at p through a confined root of its folder,
// held to the size confined allows a file of its name (see
// [confined.LimitFor]): checked before it is read.
func readBounded(p string) ([]byte, error) {
	r, err := confined.Open(filepath.Dir(p))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return confined.ReadFile(r.FS(), filepath.Base(p))
}
