package git

import (
	"bytes"
	"fmt"
	"os/exec"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
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
// only into folders whose ids differ. When the index holds something the
// fast reader does not read (a split or sparse index…), git diff-index
// answers when the git binary is on PATH, else a full walk of HEAD's tree.
func (r *Repo) StagedChanges(dir string) ([]Change, error) {
	if r.staged != stagedAuto {
		return r.stagedPinned(dir)
	}
	x, err := r.ReadIndex()
	if err != nil {
		return nil, err
	}
	return x.StagedChanges(dir)
}

// StagedChanges is [Repo.StagedChanges] for this reading of the index.
func (x *Index) StagedChanges(dir string) ([]Change, error) {
	dir = strings.Trim(dir, "/")
	if x.ix != nil {
		return x.repo.stagedFromIndex(x.ix, dir)
	}
	if out, ok := x.repo.stagedWithGitBinary(dir); ok {
		return out, nil
	}
	return x.repo.stagedByWalk(x.idx, dir)
}

// stagedPinned answers StagedChanges the way a test pinned.
func (r *Repo) stagedPinned(dir string) ([]Change, error) {
	dir = strings.Trim(dir, "/")
	if r.staged == stagedBinary {
		if out, ok := r.stagedWithGitBinary(dir); ok {
			return out, nil
		}
	}
	idx, err := r.decodeIndex()
	if err != nil {
		return nil, err
	}
	return r.stagedByWalk(idx, dir)
}

// stagedMethod chooses how StagedChanges answers; tests pin one.
type stagedMethod int

const (
	stagedAuto   stagedMethod = iota // the index file, else git diff-index, else the walk
	stagedBinary                     // git diff-index, else the walk
	stagedWalk                       // go-git's decoder and a walk of HEAD's whole tree
)

// decodeIndex reads the index with go-git's decoder alone.
func (r *Repo) decodeIndex() (*index.Index, error) {
	data, name, err := r.indexBytes()
	if err != nil || data == nil {
		return &index.Index{}, err
	}
	idx := &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return nil, fmt.Errorf("read git index %s: %w", name, err)
	}
	return idx, nil
}

// stagedByWalk compares the decoded index with the whole of HEAD's tree
// under dir.
func (r *Repo) stagedByWalk(idx *index.Index, dir string) ([]Change, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	es := idx.Entries
	lo := sort.Search(len(es), func(i int) bool { return es[i].Name >= prefix })
	staged := map[string]plumbing.Hash{}
	conflicted := map[string]bool{}
	for i := lo; i < len(es) && strings.HasPrefix(es[i].Name, prefix); i++ {
		if es[i].Mode == filemode.Submodule || es[i].IntentToAdd {
			continue
		}
		p := strings.TrimPrefix(es[i].Name, prefix)
		if es[i].Stage != 0 {
			conflicted[p] = true
		}
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
		t := &treeLister{repo: r, root: c.TreeHash, prefix: dir, cache: map[string][]entry{}}
		if err := walkTree(t, ".", head); err != nil {
			return nil, err
		}
	}

	var out []Change
	for p, h := range staged {
		old, ok := head[p]
		switch {
		case conflicted[p]:
			out = append(out, Change{Path: p, Kind: Modified})
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

// emptyTree is the id of the tree with no entries, what an unborn HEAD is
// compared as.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// stagedWithGitBinary lists the staged changes under dir with
// `git diff-index --cached`, which honours GIT_INDEX_FILE as the go-git path
// does. ok is false when git is not on PATH or fails; the caller then walks
// the trees itself.
func (r *Repo) stagedWithGitBinary(dir string) (out []Change, ok bool) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	base := "HEAD"
	if !r.HasCommits() {
		base = emptyTree
	}
	spec := ":(top,literal)" + dir
	if dir == "" {
		spec = ":(top)"
	}
	cmd := exec.Command(bin, "diff-index", "--cached", "-z", "--no-renames", "--ignore-submodules", "--ita-invisible-in-index", base, "--", spec)
	cmd.Dir = r.root
	raw, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	prefix := ""
	if dir != "" {
		prefix = strings.TrimSuffix(dir, "/") + "/"
	}
	// Each change is ":<mode> <mode> <id> <id> <status>" NUL <path> NUL.
	fields := strings.Split(string(raw), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		rel, found := strings.CutPrefix(fields[i+1], prefix)
		if len(meta) != 5 || meta[4] == "" || !found {
			return nil, false
		}
		if meta[2] == meta[3] && meta[4][0] != 'U' {
			continue // a mode change only: the content is what HEAD has
		}
		kind := Modified // M, T (type change), U (unmerged)
		switch meta[4][0] {
		case 'A':
			kind = Added
		case 'D':
			kind = Deleted
		}
		out = append(out, Change{Path: rel, Kind: kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, true
}
