package git

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	billy "github.com/go-git/go-billy/v5"
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

// Index is one reading of the git index. Its views and its staged changes
// all come from that reading, so a caller that lists the staged files and
// then reads them sees one consistent index even while git rewrites it.
type Index struct {
	repo *Repo
	ix   *indexFile   // the fast reader's result, or
	idx  *index.Index // go-git's, for an index only it reads
}

// ReadIndex reads the git index. Like git itself it honours GIT_INDEX_FILE,
// which git sets for hooks: `git commit -a` and `git commit <paths>` stage
// into a temporary index, and that index is what is about to be committed.
// A repository without an index (nothing staged yet) has an empty one.
//
// The file is read once and its entries are decoded only as they are looked
// up (by binary search over the sorted entries), so reading a few files or
// the staged changes costs little more than reading the file, however many
// files the index holds.
func (r *Repo) ReadIndex() (*Index, error) {
	ix, idx, err := r.readIndex()
	if err != nil {
		return nil, err
	}
	return &Index{repo: r, ix: ix, idx: idx}, nil
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
	if x.ix != nil {
		return &objectFS{repo: x.repo, dirs: &indexLister{ix: x.ix, prefix: prefix}, label: "index"}
	}
	return &objectFS{repo: x.repo, dirs: mapIndex(x.idx.Entries, prefix), label: "index"}
}

// mapIndex lists the folders of a decoded index under prefix, the way
// indexLister does from the file: every folder holding an entry exists,
// gitlinks are left out, the first stage of a path wins.
func mapIndex(entries []*index.Entry, prefix string) mapLister {
	dirs := map[string][]entry{".": nil}
	seen := map[string]bool{}
	dirSeen := map[string]bool{}
	for _, e := range entries {
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
		if e.Mode != filemode.Submodule && !e.IntentToAdd {
			dirs[dir] = append(dirs[dir], entry{name: base, hash: e.Hash, exec: isExec(e.Mode)})
		} else if dirs[dir] == nil {
			dirs[dir] = []entry{}
		}
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
	for _, es := range dirs {
		sortEntries(es)
	}
	return mapLister(dirs)
}

type mapLister map[string][]entry

func (m mapLister) list(dir string) ([]entry, bool, error) {
	es, ok := m[dir]
	return es, ok, nil
}

// readIndex reads the git index once (see ReadIndex). The fast reader
// answers (ix) unless the file holds something only go-git's decoder reads
// (idx); exactly one of the two is non-nil.
func (r *Repo) readIndex() (ix *indexFile, idx *index.Index, err error) {
	data, name, err := r.indexBytes()
	if err != nil || data == nil {
		return &indexFile{}, nil, err
	}
	if ix, err := parseIndex(data); err == nil {
		return ix, nil, nil
	}
	idx = &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		// A split or sparse index: git itself reads it whole.
		if idx, ok := r.indexWithGitBinary(); ok {
			return nil, idx, nil
		}
		return nil, nil, fmt.Errorf("read git index %s: %w", name, err)
	}
	return nil, idx, nil
}

// indexWithGitBinary lists the index with `git ls-files --stage`, which
// reads what go-git's decoder does not (a split index's shared part, a
// sparse index's folders expanded). ok is false when git is not on PATH or
// fails.
func (r *Repo) indexWithGitBinary() (*index.Index, bool) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	cmd := exec.Command(bin, "ls-files", "--stage", "-z", "--full-name")
	cmd.Dir = r.root
	if p := os.Getenv("GIT_INDEX_FILE"); p != "" {
		// The file indexBytes read, whatever folder git runs in.
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, false
		}
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+abs)
	}
	raw, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	idx := &index.Index{Version: 2}
	// Each entry is "<mode> <id> <stage>" TAB <path> NUL.
	for rec := range strings.SplitSeq(strings.TrimSuffix(string(raw), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || !plumbing.IsHash(f[1]) || len(f[2]) != 1 || f[2][0] < '0' || f[2][0] > '3' {
			return nil, false
		}
		mode, err := filemode.New(f[0])
		if err != nil {
			return nil, false
		}
		idx.Entries = append(idx.Entries, &index.Entry{Name: name, Hash: plumbing.NewHash(f[1]), Mode: mode, Stage: index.Stage(f[2][0] - '0')})
	}
	return idx, true
}

// indexBytes returns the content of the index file and its name for
// messages; nil content when there is no index file.
func (r *Repo) indexBytes() ([]byte, string, error) {
	if p := os.Getenv("GIT_INDEX_FILE"); p != "" {
		// Relative to the working directory, as for git.
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, p, nil
		}
		if err != nil {
			return nil, p, fmt.Errorf("read git index: %w", err)
		}
		return data, p, nil
	}
	st, ok := r.repo.Storer.(interface{ Filesystem() billy.Filesystem })
	if !ok {
		return nil, "", fmt.Errorf("read git index: storage %T has no index file", r.repo.Storer)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	data, err := readAll(st.Filesystem(), "index")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "index", nil
	}
	if err != nil {
		return nil, "index", fmt.Errorf("read git index: %w", err)
	}
	return data, "index", nil
}
