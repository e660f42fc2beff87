package git

import (
	"path"
	"sort"
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
// HEAD, sorted by path. Its cost grows with the number of index entries under
// dir, not with the size of the repository: the index is sorted, so the range
// under dir is found by binary search, and only HEAD's subtree at dir is read.
// In a repository with no commits every staged file is added.
func (r *Repo) StagedChanges(dir string) ([]Change, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx, err := r.index()
	if err != nil {
		return nil, err
	}
	prefix := ""
	if dir != "" {
		prefix = strings.TrimSuffix(dir, "/") + "/"
	}
	es := idx.Entries
	lo := sort.Search(len(es), func(i int) bool { return es[i].Name >= prefix })
	staged := map[string]plumbing.Hash{}
	for i := lo; i < len(es) && strings.HasPrefix(es[i].Name, prefix); i++ {
		p := strings.TrimPrefix(es[i].Name, prefix)
		if _, dup := staged[p]; !dup {
			staged[p] = es[i].Hash
		}
	}

	head := map[string]plumbing.Hash{}
	if ref, err := r.repo.Head(); err == nil {
		c, err := r.repo.CommitObject(ref.Hash())
		if err != nil {
			return nil, err
		}
		t := &treeLister{repo: r, root: c.TreeHash, prefix: strings.TrimSuffix(prefix, "/"), cache: map[string][]entry{}}
		if err := walkTree(t, ".", head); err != nil {
			return nil, err
		}
	}

	var out []Change
	for p, h := range staged {
		old, ok := head[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Kind: Added})
		case old != h:
			out = append(out, Change{Path: p, Kind: Modified})
		}
	}
	for p := range head {
		if _, ok := staged[p]; !ok {
			out = append(out, Change{Path: p, Kind: Deleted})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

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
