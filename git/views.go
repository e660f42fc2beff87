package git

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
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
	obj, err := t.repo.st.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, false, fmt.Errorf("read tree %s: %w", full, err)
	}
	tree, err := object.DecodeTree(t.repo.st, obj)
	if err != nil {
		return nil, false, fmt.Errorf("read tree %s: %w", full, err)
	}
	es := make([]entry, 0, len(tree.Entries))
	for _, te := range tree.Entries {
		if te.Mode == filemode.Submodule {
			continue
		}
		es = append(es, entry{name: te.Name, hash: te.Hash, isDir: te.Mode == filemode.Dir, exec: isExec(te.Mode), link: te.Mode == filemode.Symlink})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	t.cache[full] = es
	return es, true, nil
}

// Index is one reading of the git index. Its views and its staged changes
// all come from that reading, so a caller that lists the staged files and
// then reads them sees one consistent index even while git rewrites it.
type Index struct {
	repo *Repo
	ix   *indexFile
}

// ReadIndex reads the git index. Like git itself it honours GIT_INDEX_FILE,
// which git sets for hooks: `git commit -a` and `git commit <paths>` stage
// into a temporary index, and that index is what is about to be committed.
// A repository without an index (nothing staged yet) has an empty one.
//
// The file is read once and its entries are decoded only as they are looked
// up (by binary search over the sorted entries), so reading a few files or
// the staged changes costs little more than reading the file, however many
// files the index holds. A split index (core.splitIndex) is merged with its
// shared file first. An index it does not read (a sparse index, a damaged
// file) is an error wrapping [ErrIndexUnsupported] that says what it holds.
func (r *Repo) ReadIndex() (*Index, error) {
	data, file, err := r.indexBytes()
	if err != nil {
		return nil, err
	}
	if data == nil {
		return &Index{repo: r, ix: &indexFile{}}, nil
	}
	ix, link, err := parseIndexParts(data)
	if err == nil && link != nil {
		ix, err = readSplitIndex(ix, link, r.sharedIndexLoader())
	}
	if err != nil {
		return nil, fmt.Errorf("read git index%s: %w", file, err)
	}
	return &Index{repo: r, ix: ix}, nil
}

// Repo returns the repository whose index this is a reading of.
func (x *Index) Repo() *Repo { return x.repo }

// Unmerged returns the paths under the folder dir (slash-separated,
// relative to the top of the worktree; "" for all) that the index holds
// unmerged: stages 1 to 3 of a merge in progress, in place of one staged
// version. Each path is listed once, sorted.
func (x *Index) Unmerged(dir string) []string {
	prefix := ""
	if dir != "" {
		prefix = strings.TrimSuffix(dir, "/") + "/"
	}
	var out []string
	for i := x.ix.search(prefix); i < x.ix.len(); i++ {
		name := x.ix.name(i)
		if !strings.HasPrefix(name, prefix) {
			break
		}
		if x.ix.stage(i) != 0 && (len(out) == 0 || out[len(out)-1] != name) {
			out = append(out, name)
		}
	}
	return out
}

// Links returns the paths (slash form, relative to the top of the
// worktree) of the symbolic links the index holds whose last component
// is base: with ".foundry", every .foundry that is a link, wherever it
// is. Each is listed once, sorted. As in [Index.FS], a conflicted path is
// its lowest stage, and an intent-to-add entry, which git does not
// commit, is left out. It reads the name of every entry, and the mode of
// those so named: one pass over the index, whatever is staged.
func (x *Index) Links(base string) []string {
	var out []string
	for i := range x.ix.len() {
		name := x.ix.name(i)
		if name != base && !strings.HasSuffix(name, "/"+base) || i > 0 && x.ix.name(i-1) == name {
			continue // not so named, or a higher stage of a conflicted path
		}
		if x.ix.mode(i) == filemode.Symlink && !x.ix.intentToAdd(i) {
			out = append(out, name)
		}
	}
	return out
}

// IndexFS returns a read-only view of the folder sub as it is in the git
// index: a partly staged file reads as staged, not as on disk. It is
// ReadIndex then [Index.FS].
func (r *Repo) IndexFS(sub string) (fs.FS, error) {
	x, err := r.ReadIndex()
	if err != nil {
		return nil, err
	}
	return x.FS(sub), nil
}

// FS returns a read-only view of the folder sub (slash path relative to the
// working tree root, "" for the root) as it is in this index. Submodules are
// left out, as in [Repo.RevFS]; a conflicted path reads as its lowest stage.
func (x *Index) FS(sub string) fs.FS {
	prefix := ""
	if sub = strings.Trim(sub, "/"); sub != "" {
		prefix = sub + "/"
	}
	return &objectFS{repo: x.repo, dirs: &indexLister{ix: x.ix, prefix: prefix}, label: "index"}
}

// sharedIndexLoader returns how a split index's shared file is read, where
// git looks for it: in the git folder, else beside GIT_INDEX_FILE.
func (r *Repo) sharedIndexLoader() func(name string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		data, err := func() ([]byte, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			return readAll(r.st.Filesystem(), name)
		}()
		if p := os.Getenv("GIT_INDEX_FILE"); p != "" && errors.Is(err, fs.ErrNotExist) {
			data, err = readRegular(filepath.Join(filepath.Dir(p), name))
		}
		return data, err
	}
}

// indexBytes returns the content of the index file, nil when there is
// none, and, for messages, " " and GIT_INDEX_FILE where that names it.
func (r *Repo) indexBytes() (data []byte, file string, err error) {
	if p := os.Getenv("GIT_INDEX_FILE"); p != "" {
		// Relative to the working directory, as for git.
		data, err = readRegular(p)
		file = " " + p
	} else {
		r.mu.Lock()
		defer r.mu.Unlock()
		data, err = readAll(r.st.Filesystem(), "index")
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, file, nil
	}
	if err != nil {
		return nil, file, fmt.Errorf("read git index%s: %w", file, err)
	}
	return data, file, nil
}

// readRegular is os.ReadFile for a regular file only (links followed),
// its kind checked on the open file (see openRegular).
func readRegular(name string) ([]byte, error) {
	f, fi, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readWhole(f, fi.Size())
}
