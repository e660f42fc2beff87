package git

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// RevFS returns a read-only view of the folder sub (slash path relative to
// the working tree root, "" for the root) as it is at revision rev, and the
// commit rev resolved to. A folder absent at that revision gives an empty
// view, not an error.
func (r *Repo) RevFS(rev, sub string) (fs.FS, Commit, error) {
	r.mu.Lock()
	c, err := r.resolveLocked(rev)
	r.mu.Unlock()
	if err != nil {
		return nil, Commit{}, err
	}
	info := describe(c)
	fsys := &objectFS{
		repo:    r,
		dirs:    &treeLister{repo: r, root: c.TreeHash, prefix: sub, cache: map[string][]entry{}},
		label:   fmt.Sprintf("%s (%s)", rev, info.Short),
		modTime: c.Committer.When,
	}
	return fsys, info, nil
}

// treeLister lists directories of a commit's tree lazily, decoding each tree
// object once.
type treeLister struct {
	repo   *Repo
	root   plumbing.Hash
	prefix string
	cache  map[string][]entry // by full path from the tree root; nil slice = absent
}

func (t *treeLister) list(dir string) ([]entry, bool, error) {
	full := path.Join(t.prefix, dir)
	if full == "." || full == "" {
		full = "."
	}
	return t.listFull(full)
}

func (t *treeLister) listFull(full string) ([]entry, bool, error) {
	if es, ok := t.cache[full]; ok {
		return es, es != nil, nil
	}
	var h plumbing.Hash
	if full == "." {
		h = t.root
	} else {
		parent, base := path.Split(full)
		parent = strings.TrimSuffix(parent, "/")
		if parent == "" {
			parent = "."
		}
		pes, ok, err := t.listFull(parent)
		if err != nil || !ok {
			return nil, false, err
		}
		i := sort.Search(len(pes), func(i int) bool { return pes[i].name >= base })
		if i == len(pes) || pes[i].name != base || !pes[i].isDir {
			t.cache[full] = nil
			return nil, false, nil
		}
		h = pes[i].hash
	}
	obj, err := t.repo.repo.Storer.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, false, fmt.Errorf("read tree %s: %w", full, err)
	}
	tree, err := object.DecodeTree(t.repo.repo.Storer, obj)
	if err != nil {
		return nil, false, fmt.Errorf("read tree %s: %w", full, err)
	}
	es := make([]entry, 0, len(tree.Entries))
	for _, te := range tree.Entries {
		if te.Mode == filemode.Submodule {
			continue
		}
		es = append(es, entry{name: te.Name, hash: te.Hash, isDir: te.Mode == filemode.Dir, exec: isExec(te.Mode)})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	t.cache[full] = es
	return es, true, nil
}

// IndexFS returns a read-only view of the folder sub as it is in the git
// index: a partly staged file reads as staged, not as on disk. A repository
// without an index (nothing staged yet) gives an empty view.
func (r *Repo) IndexFS(sub string) (fs.FS, error) {
	r.mu.Lock()
	idx, err := r.index()
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	dirs := map[string][]entry{".": nil}
	prefix := ""
	if sub != "" {
		prefix = sub + "/"
	}
	seen := map[string]bool{}
	dirSeen := map[string]bool{}
	for _, e := range idx.Entries {
		if !strings.HasPrefix(e.Name, prefix) || seen[e.Name] {
			continue
		}
		seen[e.Name] = true // the first stage of a conflicted path wins
		rel := strings.TrimPrefix(e.Name, prefix)
		dir, base := path.Split(rel)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		dirs[dir] = append(dirs[dir], entry{name: base, hash: e.Hash, exec: isExec(e.Mode)})
		// Make every ancestor folder exist, each listed once in its parent.
		for d := dir; d != "." && !dirSeen[d]; {
			dirSeen[d] = true
			parent, name := path.Split(d)
			parent = strings.TrimSuffix(parent, "/")
			if parent == "" {
				parent = "."
			}
			dirs[parent] = append(dirs[parent], entry{name: name, isDir: true})
			d = parent
		}
	}
	for k := range dirs {
		es := dirs[k]
		sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	}
	return &objectFS{repo: r, dirs: mapLister(dirs), label: "index"}, nil
}

type mapLister map[string][]entry

func (m mapLister) list(dir string) ([]entry, bool, error) {
	es, ok := m[dir]
	return es, ok, nil
}

// index reads the git index. Like git itself it honours GIT_INDEX_FILE,
// which git sets for hooks: `git commit -a` and `git commit <paths>` stage
// into a temporary index, and that index is what is about to be committed.
func (r *Repo) index() (*index.Index, error) {
	if p := os.Getenv("GIT_INDEX_FILE"); p != "" {
		return readIndexFile(p)
	}
	idx, err := r.repo.Storer.Index()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &index.Index{}, nil
		}
		return nil, fmt.Errorf("read git index: %w", err)
	}
	return idx, nil
}

// readIndexFile decodes the index file at p (relative paths are relative to
// the working directory, as for git); a missing file is an empty index.
func readIndexFile(p string) (*index.Index, error) {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &index.Index{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	idx := &index.Index{}
	err = index.NewDecoder(bufio.NewReader(f)).Decode(idx)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read git index %s: %w", p, err)
	}
	return idx, nil
}
