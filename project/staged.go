package project

// This file defines how the projects a commit changes are found in one
// reading of the git index, and opened on it: the check that serves every
// project of a repository at once (foundry hook pre-commit
// --all-projects).

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/foundryhq/foundry/git"
)

// Staged is one project whose .foundry/ a commit changes, as [FindStaged]
// finds it.
type Staged struct {
	// Rel is the project's root relative to the working tree root, in
	// slash form ("" at the top).
	Rel string
	// Changes are the files the index adds, modifies or deletes under the
	// project's .foundry/ relative to HEAD, sorted, each path relative to
	// the project root (".foundry/memory/INDEX.md"), as doctor's staged
	// check takes them.
	Changes []git.Change
	// Removed says the index holds no .foundry folder there any more (nor
	// a link to one): the commit takes the project away, every change is
	// a deletion, and nothing of the project is left to check.
	Removed bool
}

// FindStaged returns the projects whose .foundry/ the index idx changes
// relative to HEAD, sorted by [Staged.Rel], from one listing of its staged
// changes. A staged path belongs to the project of the first folder named
// .foundry on its way: the folder holding that .foundry is the project's
// root, as [Find] would find it from there. So each of two nested projects
// (services/ and services/api/) has its own files, and a path below a
// .foundry folder is never a project of its own. A project whose .foundry
// the index holds as a symbolic link to a folder (the commit turns the
// folder into a link) has the changes where the link leads, as git stages
// them and [Open] reads them; the files of a .foundry that was a link
// already are staged where it leads, under no .foundry of theirs, and are
// not found.
func FindStaged(idx *git.Index) ([]Staged, error) {
	changes, err := idx.StagedChanges("")
	if err != nil {
		return nil, err
	}
	var out []Staged
	at := map[string]int{}
	for _, c := range changes {
		rel, below, ok := cutDir(c.Path)
		if !ok {
			continue
		}
		i, seen := at[rel]
		if !seen {
			i = len(out)
			at[rel] = i
			out = append(out, Staged{Rel: rel})
		}
		out[i].Changes = append(out[i].Changes, git.Change{Path: Dir + "/" + below, Kind: c.Kind})
	}
	slices.SortFunc(out, func(a, b Staged) int { return strings.Compare(a.Rel, b.Rel) })
	for i := range out {
		if err := out[i].settle(idx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cutDir splits a staged path (slash form, relative to the working tree
// root) at its first folder named .foundry: the folder holding it (""
// at the top) and the path below it. ok is false when no folder of the
// path is a .foundry.
func cutDir(p string) (rel, below string, ok bool) {
	if below, ok := strings.CutPrefix(p, Dir+"/"); ok {
		return "", below, true
	}
	i := strings.Index(p, "/"+Dir+"/")
	if i < 0 {
		return "", "", false
	}
	return p[:i], p[i+len(Dir)+2:], true
}

// settle looks at what the index holds at s's .foundry: a folder, whose
// changes s has; a symbolic link to a folder, whose changes are where it
// leads; or nothing of the kind (a file, a link to a file or to a folder
// the index does not hold), and s is [Staged.Removed].
func (s *Staged) settle(idx *git.Index) error {
	fsys := idx.FS(s.Rel)
	fi, err := fs.Lstat(fsys, Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.Removed = true
		return nil
	case err != nil:
		return fmt.Errorf("read %s in the index: %w", path.Join(s.Rel, Dir), err)
	case fi.IsDir():
		return nil
	case fi.Mode()&fs.ModeSymlink == 0:
		s.Removed = true // a file: no project
		return nil
	}
	// A link the commit holds nothing at the end of (its target
	// gitignored, or a file) leaves no project: as if it were a file.
	fi, err = fs.Stat(fsys, Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err == nil && !fi.IsDir():
		s.Removed = true
		return nil
	case err != nil:
		return fmt.Errorf("follow %s in the index: %w", path.Join(s.Rel, Dir), err)
	}
	real, err := git.RealPath(fsys, Dir)
	if err != nil {
		return fmt.Errorf("follow %s in the index: %w", path.Join(s.Rel, Dir), err)
	}
	s.Changes, err = stagedUnder(idx, s.Rel, real)
	return err
}

// stagedUnder returns the files idx adds, modifies or deletes relative to
// HEAD under dir, the folder (relative to the project root rel, slash
// form) where the project's .foundry is staged: .foundry itself, or where
// a link at .foundry leads. Each is named as doctor's staged check takes
// it, from the project root through .foundry (".foundry/memory/INDEX.md").
func stagedUnder(idx *git.Index, rel, dir string) ([]git.Change, error) {
	staged, err := idx.StagedChanges(path.Join(rel, dir))
	if err != nil {
		return nil, err
	}
	changes := make([]git.Change, len(staged))
	for i, c := range staged {
		changes[i] = git.Change{Path: Dir + "/" + c.Path, Kind: c.Kind}
	}
	return changes, nil
}

// StagedChanges returns the files the index adds, modifies or deletes
// relative to HEAD under p's .foundry, as [stagedUnder] names them; a
// linked .foundry has its files staged where the link leads. p reads the
// index (--staged).
func (p *Project) StagedChanges() ([]git.Change, error) {
	if p.Index == nil {
		return nil, fmt.Errorf("%s is read from the %s, not the index", p.Root, p.Source)
	}
	_, rel, err := p.Git()
	if err != nil {
		return nil, err
	}
	dir := Dir
	if real, err := git.RealPath(p.FS, Dir); err == nil {
		dir = real
	}
	return stagedUnder(p.Index, rel, dir)
}

// OpenStaged opens the project rooted at rel (relative to the working
// tree root, slash form, "" at the top) on idx, a reading of the index, as
// [OpenLenient] opens one on the index (--staged): each project
// [FindStaged] finds in one reading of the index is opened on it. The
// project borrows idx's repository, which its Close leaves open for the
// caller to close once every project opened on it is done. An index
// holding unmerged files of the project is refused with [ErrUnmerged].
func OpenStaged(idx *git.Index, rel string) (*Project, error) {
	repo := idx.Repo()
	p := &Project{
		Root:   filepath.Join(repo.Root(), filepath.FromSlash(rel)),
		Source: Source{Staged: true},
		git:    &lazyGit{done: true, repo: repo, rel: rel, borrowed: true},
	}
	if err := p.onIndex(idx, rel); err != nil {
		return nil, err
	}
	if err := p.loadConfig(true); err != nil {
		return nil, err
	}
	return p, nil
}
