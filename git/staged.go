package git

import (
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ChangeKind says how a staged path differs from HEAD.
type ChangeKind int

const (
	Added ChangeKind = iota
	Modified
	Deleted
)

func (k ChangeKind) String() string {
	switch k {
	case Added:
		return "added"
	case Modified:
		return "modified"
	}
	return "deleted"
}

// Change is one path that differs between HEAD and the index. A rename shows
// as the old path deleted and the new one added.
type Change struct {
	Path string // slash path relative to the folder asked for
	Kind ChangeKind
}

// StagedChanges lists the files under dir (a slash path relative to the
// working tree root) that the index adds, modifies or deletes relative to
// HEAD, sorted by path. In a repository with no commits every staged file is
// added. A conflicted path is modified; submodules and mode-only changes are
// left out, as `git diff-index --cached --ignore-submodules` does.
//
// Its cost grows with the number of staged changes, not with the size of
// the repository: like git, it compares HEAD's trees with the index's
// cache-tree (the TREE extension, which records the tree id of every folder
// whose entries have not changed since it was last written) and descends
// only into folders whose ids differ. An index it does not read (a sparse
// index) is an error wrapping [ErrIndexUnsupported].
func (r *Repo) StagedChanges(dir string) ([]Change, error) {
	x, err := r.ReadIndex()
	if err != nil {
		return nil, err
	}
	return x.StagedChanges(dir)
}

// StagedChanges is [Repo.StagedChanges] for this reading of the index.
func (x *Index) StagedChanges(dir string) ([]Change, error) {
	return x.repo.stagedFromIndex(x.ix, strings.Trim(dir, "/"))
}

// walkTree records in into every file under folder dir of t, by path from
// t's root.
func walkTree(t *treeLister, dir string, into map[string]plumbing.Hash) error {
	es, ok, err := t.list(dir)
	if err != nil || !ok {
		return err
	}
	for _, e := range es {
		p := path.Join(dir, e.name)
		if e.isDir {
			if err := walkTree(t, p, into); err != nil {
				return err
			}
			continue
		}
		into[p] = e.hash
	}
	return nil
}
