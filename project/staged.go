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
// changes and one pass over its entries for the .foundry links. A staged
// path belongs to the project of the first folder named .foundry on its
// way: the folder holding that .foundry is the project's root, as [Find]
// would find it from there. So each of two nested projects (services/
// and services/api/) has its own files, and a path below a .foundry
// folder is never a project of its own.
//
// A project whose .foundry the index holds as a symbolic link to a folder
// of the index has its files where the link leads, as git stages them and
// [Open] reads them (the link committed already, or made by the commit in
// place of the folder, whose files are then deleted and not the
// project's): a staged path on which no folder named .foundry lies
// belongs to the project whose link leads to the nearest folder above it.
// So a link never takes a file from the project whose .foundry folder
// holds it: a link to services/api/.foundry leaves api's files to api.
// Of two links to one folder, the nearer project's has it. A link that
// leads to no folder of the index (to a file, to nothing staged, out of
// its project, round in a loop) has no files, as the project's own check
// finds none; its project is found only when the commit deletes the
// files of the folder it took the place of, and is [Staged.Removed], or
// an error when the link cannot be followed.
func FindStaged(idx *git.Index) ([]Staged, error) {
	changes, err := idx.StagedChanges("")
	if err != nil {
		return nil, err
	}
	links := map[string]linked{} // by the project's Rel
	leads := map[string]string{} // a folder a link leads to: whose link
	for _, name := range idx.Links(Dir) {
		if _, _, ok := cutDir(name); ok {
			continue // a file of the project whose .foundry holds it
		}
		rel := strings.TrimSuffix(strings.TrimSuffix(name, Dir), "/")
		l := follow(idx, rel)
		links[rel] = l
		// Two links to one folder: the nearer one's project has it.
		if r, ok := leads[l.dir]; l.dir != "" && (!ok || len(rel) > len(r)) {
			leads[l.dir] = rel
		}
	}
	var out []Staged
	at := map[string]int{}
	project := func(rel string) int {
		i, seen := at[rel]
		if !seen {
			i = len(out)
			at[rel] = i
			out = append(out, Staged{Rel: rel})
		}
		return i
	}
	for _, c := range changes {
		rel, below, ok := cutDir(c.Path)
		switch {
		case ok && links[rel].dir != "":
			// The folder the link took the place of: its files are
			// deleted, and the project's are where the link leads.
			project(rel)
			continue
		case !ok && len(leads) > 0:
			rel, below, ok = cutLinked(c.Path, leads)
		}
		if !ok {
			continue
		}
		i := project(rel)
		out[i].Changes = append(out[i].Changes, git.Change{Path: Dir + "/" + below, Kind: c.Kind})
	}
	slices.SortFunc(out, func(a, b Staged) int { return strings.Compare(a.Rel, b.Rel) })
	for i := range out {
		l, isLink := links[out[i].Rel]
		if err := out[i].settle(idx, l, isLink); err != nil {
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

// cutLinked splits a staged path at the nearest folder above it that a
// linked .foundry leads to (leads, by the folder, the project whose link
// it is): the project and the path below that folder. ok is false when
// no link leads to a folder above it.
func cutLinked(p string, leads map[string]string) (rel, below string, ok bool) {
	for dir := p; ; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			return "", "", false
		}
		dir = dir[:i]
		if rel, ok := leads[dir]; ok {
			return rel, p[i+1:], true
		}
	}
}

// linked is where a .foundry the index holds as a symbolic link leads.
type linked struct {
	// dir is the folder of the index it leads to, relative to the working
	// tree root; "" when it leads to none (to a file, to nothing staged),
	// or cannot be followed.
	dir string
	// err says why it cannot be followed (it leads out of the project,
	// loops), for the project the commit changes; nil when it can.
	err error
}

// follow returns where the .foundry of the project rel, a link in idx,
// leads.
func follow(idx *git.Index, rel string) linked {
	fsys := idx.FS(rel)
	fi, err := fs.Stat(fsys, Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err == nil && !fi.IsDir():
		return linked{}
	case err != nil:
		return linked{err: fmt.Errorf("follow %s in the index: %w", path.Join(rel, Dir), err)}
	}
	real, err := git.RealPath(fsys, Dir)
	if err != nil {
		return linked{err: fmt.Errorf("follow %s in the index: %w", path.Join(rel, Dir), err)}
	}
	return linked{dir: path.Join(rel, real)}
}

// settle looks at what the index holds at s's .foundry: a folder, whose
// changes s has; a symbolic link to a folder (l, as isLink says), whose
// changes [FindStaged] found where it leads; or nothing of the kind (a
// file, a link to a file or to a folder the index does not hold), and s
// is [Staged.Removed]. A link that cannot be followed is an error: the
// commit changes the project, and its check could not read it.
func (s *Staged) settle(idx *git.Index, l linked, isLink bool) error {
	if isLink {
		switch {
		case l.dir != "":
			return nil
		case l.err != nil:
			return l.err
		}
		s.Removed = true
		return nil
	}
	fi, err := fs.Lstat(idx.FS(s.Rel), Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.Removed = true
	case err != nil:
		return fmt.Errorf("read %s in the index: %w", path.Join(s.Rel, Dir), err)
	case !fi.IsDir():
		s.Removed = true // a file: no project
	}
	return nil
}

// StagedChanges returns the files the index adds, modifies or deletes
// relative to HEAD under p's .foundry, or where a linked .foundry leads,
// as git stages its files. Each is named as doctor's staged check takes
// it, from the project root through .foundry (".foundry/memory/INDEX.md").
// p reads the index (--staged).
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
	staged, err := p.Index.StagedChanges(path.Join(rel, dir))
	if err != nil {
		return nil, err
	}
	changes := make([]git.Change, len(staged))
	for i, c := range staged {
		changes[i] = git.Change{Path: Dir + "/" + c.Path, Kind: c.Kind}
	}
	return changes, nil
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
