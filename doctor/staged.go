// This file defines the staged check the pre-commit hook runs: the checks
// of a doctor sweep of the index, restricted to the files the commit adds
// or changes under .foundry/ and what they touch.

package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
)

// stagedSkip is why a check does not run in the staged check.
const stagedSkip = "the staged check reads the staged files only"

// stagedPasses are the passes of the staged check, in order; the others
// need the whole project and are skipped.
func (r *run) stagedPasses() []func(context.Context) error {
	for _, id := range []string{CheckAgentsContract, CheckAgentsArtifact, CheckContractsLock, CheckBlackboardStale} {
		r.skip(id, stagedSkip)
	}
	r.rep.History.Skipped = stagedSkip
	return []func(context.Context) error{
		r.checkConflicts,
		r.checkConfig,
		r.checkLocalContracts,
		r.checkBlackboard,
		r.checkFacts,
		r.checkRunbooks,
		r.checkStoredSecrets,
		r.checkStagedBreaking,
	}
}

// checkStagedIndex is the INDEX.md check of the staged check (see
// checkFacts), which cannot rebuild INDEX.md (that reads every fact): it
// looks for the one way it is most often left behind, facts staged
// without the INDEX.md the working tree has rebuilt for them (a memory
// write, then git add of the fact file alone). The commit would hold facts
// its index does not list, for every clone. Elsewhere the check is
// skipped.
func (r *run) checkStagedIndex() error {
	factsStaged, indexStaged := false, false
	for _, c := range r.changes {
		switch {
		case c.Path == facts.IndexPath:
			indexStaged = true // staged with them: doctor's sweep checks its content
		case path.Dir(c.Path) == facts.Dir && isFactFile(path.Base(c.Path)):
			factsStaged = true
		}
	}
	if !factsStaged || indexStaged || r.p.Root == "" {
		r.skip(CheckFactsIndex, stagedSkip)
		return nil
	}
	r.checked(CheckFactsIndex, 1)
	worktree, err := fs.ReadFile(confined.OpenFS(r.p.Root), facts.IndexPath)
	if err != nil {
		return nil // none there: nothing rebuilt to stage
	}
	staged, err := fs.ReadFile(r.all, facts.IndexPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil && bytes.Equal(staged, worktree) {
		return nil
	}
	r.add(CheckFactsIndex, Finding{File: facts.IndexPath,
		Message: "facts are staged without INDEX.md, which the working tree has rebuilt for them: git add it too, or the commit's INDEX.md will not list them",
		Fix:     "git add " + facts.IndexPath})
	return nil
}

// restrict makes the run see, through r.p.FS, only the changed files that
// still exist (and the folders above them); r.all keeps the whole view.
func (r *run) restrict(changes []git.Change) {
	only := &onlyFS{FS: r.p.FS, files: map[string]bool{}, kids: map[string]*children{".": {}}}
	for _, c := range changes {
		if c.Kind == git.Deleted {
			continue
		}
		only.add(c.Path)
	}
	p := *r.p
	p.FS = only
	r.all, r.p, r.only, r.changes = r.p.FS, &p, only.files, changes
}

// inScope reports whether the run reports on a file: every file, or in the
// staged check a changed one.
func (r *run) inScope(p string) bool { return r.only == nil || r.only[p] }

// factUniverse returns the facts to check links and ids against, by id. A
// sweep has them all in raw. The staged check has the staged facts; the
// others are known by file name alone (a fact file's name starts with its
// id, so no blob is read), except the facts a staged fact links to, which
// are read to check that both ends agree.
func (r *run) factUniverse(raw []facts.Fact) (map[string][]facts.Fact, error) {
	byID := map[string][]facts.Fact{}
	for _, f := range raw {
		byID[f.ID] = append(byID[f.ID], f)
	}
	if r.only == nil {
		return byID, nil
	}
	es, err := fs.ReadDir(r.all, facts.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// Only the ids a staged fact has or names matter (a clash, a link), and
	// those a deleted fact file has (checkDeletedFacts follows its links).
	want, read := map[string]bool{}, map[string]bool{}
	for _, f := range raw {
		want[f.ID] = true
		for _, id := range []string{f.Supersedes, f.SupersededBy} {
			want[id], read[id] = true, true
		}
	}
	gone, err := r.deletedFacts()
	if err != nil {
		return nil, err
	}
	for _, g := range gone {
		want[g.ID] = true
		for _, id := range []string{g.Supersedes, g.SupersededBy} {
			want[id], read[id] = true, true
		}
	}
	for _, e := range es {
		name := e.Name()
		if !isFactFile(name) {
			continue
		}
		id := "fact-" + strings.SplitN(strings.TrimSuffix(strings.TrimPrefix(name, "fact-"), ".md"), "-", 2)[0]
		if !want[id] || e.IsDir() {
			continue
		}
		p := facts.Dir + "/" + name
		if r.only[p] {
			continue
		}
		f := facts.Fact{ID: id, Path: p}
		if read[id] {
			data, err := fs.ReadFile(r.all, p)
			if err != nil {
				return nil, err
			}
			if parsed, err := facts.Parse(p, data); err == nil {
				parsed.Path = p
				f = parsed
			}
		}
		byID[f.ID] = append(byID[f.ID], f)
	}
	return byID, nil
}

// checkStagedBreaking compares every staged change of a contract file that
// HEAD has with HEAD's version: a published contract is never edited in a
// breaking way, nor deleted.
func (r *run) checkStagedBreaking(ctx context.Context) error {
	if r.repo == nil || !r.repo.HasCommits() {
		r.skip(CheckContractsBreaking, "the repository has no commits yet")
		return nil
	}
	var head fs.FS
	var found []int // the findings, whose notes name the commit that published the file
	for _, c := range r.changes {
		if c.Kind == git.Added || !isContractFile(c.Path) {
			continue
		}
		if head == nil {
			var err error
			if head, _, err = r.repo.RevFS("HEAD", r.rel); err != nil {
				return err
			}
		}
		r.checked(CheckContractsBreaking, 1)
		old, err := fs.ReadFile(head, c.Path)
		if err != nil {
			return fmt.Errorf("read %s at HEAD: %w", c.Path, err)
		}
		if c.Kind == git.Deleted {
			found = append(found, r.add(CheckContractsBreaking, Finding{File: c.Path, Message: deletedMessage}))
			continue
		}
		cur, err := fs.ReadFile(r.p.FS, c.Path)
		if err != nil {
			return err
		}
		changes, err := BreakingChanges(old, cur)
		if err != nil {
			continue // contracts.local reports a version that is not JSON
		}
		for _, bc := range changes {
			found = append(found, r.add(CheckContractsBreaking, Finding{File: c.Path, Message: bc.String()}))
		}
	}
	if len(found) == 0 {
		return nil
	}
	published, err := r.publishers(ctx, head, found)
	if err != nil {
		return err
	}
	for _, i := range found {
		f := &r.rep.Findings[i]
		f.Note = editNote(f.File, "the index (staged)", published[f.File], f.Message == deletedMessage)
	}
	return nil
}

// publishers returns, by file, the commit that published each contract file
// the findings are on (head is HEAD's tree), as the history pass names it:
// the oldest commit of HEAD's history that added the file. Only a commit
// the hook refuses pays for the walk, which reads every commit once but
// only the trees on the way to those files, as the history pass does. It
// stops at a shallow clone's boundary: when no commit it reached added the
// file, the note says the version was published at or beyond it.
func (r *run) publishers(ctx context.Context, head fs.FS, found []int) (map[string]string, error) {
	// A linked .foundry has its files committed where the link leads.
	real := map[string]string{}
	var paths []string
	for _, i := range found {
		p := r.rep.Findings[i].File
		if _, ok := real[p]; ok {
			continue
		}
		rp, err := git.RealPath(head, p)
		if err != nil {
			return nil, err
		}
		real[p] = rp
		paths = append(paths, rp)
	}
	h, err := r.repo.History(ctx, "HEAD", git.HistoryOptions{Sub: r.rel, Prefixes: paths})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for p, rp := range real {
		out[p] = "a commit at or beyond the shallow clone's boundary"
		if c, ok := publication(h.Changes(rp)); ok {
			out[p] = c.Short
		}
	}
	return out, nil
}

// onlyFS shows the files of a set, and the folders above them, of the
// fs.FS it wraps; everything else does not exist.
type onlyFS struct {
	fs.FS
	files map[string]bool
	// kids holds the visible children of each visible folder, and only
	// of those: "." and the folders above the files. So listing one costs
	// its children, not every file of the set: a commit that adds a whole
	// memory stages tens of thousands of files in hundreds of folders.
	kids map[string]*children
}

// children are the paths of a folder's visible files and folders.
type children struct{ files, dirs []string }

// add makes the file p visible, and the folders above it.
func (o *onlyFS) add(p string) {
	if o.files[p] {
		return
	}
	o.files[p] = true
	c := o.folder(path.Dir(p))
	c.files = append(c.files, p)
}

// folder returns the children of the folder dir, making it visible, and
// the folders above it, on first use.
func (o *onlyFS) folder(dir string) *children {
	c := o.kids[dir]
	if c == nil {
		c = &children{}
		o.kids[dir] = c
		parent := o.folder(path.Dir(dir))
		parent.dirs = append(parent.dirs, dir)
	}
	return c
}

func (o *onlyFS) visible(name string) bool { return o.files[name] || o.kids[name] != nil }

func (o *onlyFS) Open(name string) (fs.File, error) {
	if !o.visible(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.FS.Open(name)
}

func (o *onlyFS) Stat(name string) (fs.FileInfo, error) {
	if !o.visible(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fs.Stat(o.FS, name)
}

func (o *onlyFS) ReadFile(name string) ([]byte, error) {
	if !o.files[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return fs.ReadFile(o.FS, name)
}

// ReadDir lists the visible children of a visible folder from the sets
// alone, so a folder of thousands of files is never listed for the few a
// commit changes.
func (o *onlyFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c := o.kids[name]
	if c == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for _, p := range c.dirs {
		out = append(out, dirEntry(path.Base(p)))
	}
	for _, p := range c.files {
		// Lstat: a staged link that leads nowhere or out of the
		// project is listed, so the check that reads it reports it.
		fi, err := fs.Lstat(o.FS, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fs.FileInfoToDirEntry(fi))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// dirEntry is a folder onlyFS lists without reading it.
type dirEntry string

func (d dirEntry) Name() string               { return string(d) }
func (d dirEntry) IsDir() bool                { return true }
func (d dirEntry) Type() fs.FileMode          { return fs.ModeDir }
func (d dirEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrInvalid }

// deletedFacts returns, in the staged check, HEAD's version of each fact
// file the commit deletes (one blob each).
func (r *run) deletedFacts() ([]facts.Fact, error) {
	var head fs.FS
	var out []facts.Fact
	for _, c := range r.changes {
		if c.Kind != git.Deleted || path.Dir(c.Path) != facts.Dir || !strings.HasPrefix(path.Base(c.Path), "fact-") {
			continue
		}
		if head == nil {
			var err error
			if head, _, err = r.repo.RevFS("HEAD", r.rel); err != nil {
				return nil, err
			}
		}
		data, err := fs.ReadFile(head, c.Path)
		if err != nil {
			return nil, fmt.Errorf("read %s at HEAD: %w", c.Path, err)
		}
		if f, err := facts.Parse(c.Path, data); err == nil {
			f.Path = c.Path
			out = append(out, f)
		}
	}
	return out, nil
}

// checkDeletedFacts reports, in the staged check, a fact that still links
// to a fact file the commit deletes: HEAD's version of the deleted file
// names the other end of each of its links, and only those facts are read.
func (r *run) checkDeletedFacts(byID map[string][]facts.Fact) error {
	gone, err := r.deletedFacts()
	if err != nil {
		return err
	}
	for _, g := range gone {
		if len(byID[g.ID]) > 0 {
			continue // another fact still has the id
		}
		for _, id := range []string{g.Supersedes, g.SupersededBy} {
			for _, f := range byID[id] {
				for _, l := range []struct{ key, id string }{{"supersedes", f.Supersedes}, {"supersededBy", f.SupersededBy}} {
					if l.id == g.ID {
						r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("%s: %s does not exist: this commit deletes %s", l.key, g.ID, g.Path)})
					}
				}
			}
		}
	}
	return nil
}
