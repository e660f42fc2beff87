// This file defines the staged diff read from the index file: HEAD's trees
// against the index, pruned by the index's cache-tree the way git prunes
// `git diff --cached`.

package git

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// cacheTree is one folder of the index's cache-tree extension. A valid
// folder's hash is the id of the tree its index entries would be written
// as; git invalidates a folder (and its ancestors) whenever an entry under
// it changes.
type cacheTree struct {
	valid    bool
	hash     plumbing.Hash
	children map[string]*cacheTree
}

// maxCacheTreeDepth bounds the nesting parseCacheTree accepts; git paths
// are far shallower.
const maxCacheTreeDepth = 1024

// parseCacheTree reads the TREE extension's payload: folders in pre-order,
// each "<name> NUL <entry count> SP <subtree count> LF", then its tree id
// unless the entry count is negative (invalidated), then its subtrees. A
// payload that does not parse gives nil: like git, the caller then does
// without it.
func parseCacheTree(b []byte) *cacheTree {
	root, rest, ok := parseCacheTreeNode(b, 0)
	if !ok || len(rest) != 0 {
		return nil
	}
	return root
}

func parseCacheTreeNode(b []byte, depth int) (*cacheTree, []byte, bool) {
	if depth > maxCacheTreeDepth {
		return nil, nil, false
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil, false
	}
	b = b[nul+1:]
	count, b, ok := cacheTreeInt(b, ' ')
	if !ok || count < -1 {
		return nil, nil, false
	}
	subtrees, b, ok := cacheTreeInt(b, '\n')
	if !ok || subtrees < 0 || subtrees > len(b)/5 { // a subtree takes at least 5 bytes
		return nil, nil, false
	}
	t := &cacheTree{valid: count >= 0}
	if t.valid {
		if len(b) < len(t.hash) {
			return nil, nil, false
		}
		copy(t.hash[:], b)
		b = b[len(t.hash):]
	}
	if subtrees > 0 {
		t.children = make(map[string]*cacheTree, subtrees)
	}
	for range subtrees {
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return nil, nil, false
		}
		name := string(b[:nul])
		child, rest, ok := parseCacheTreeNode(b, depth+1)
		if !ok || name == "" || t.children[name] != nil {
			return nil, nil, false
		}
		t.children[name] = child
		b = rest
	}
	return t, b, true
}

// cacheTreeInt reads a decimal integer (with an optional minus sign) ended
// by stop.
func cacheTreeInt(b []byte, stop byte) (int, []byte, bool) {
	neg := len(b) > 0 && b[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	n, digits := 0, 0
	for ; i < len(b) && b[i] != stop; i++ {
		if b[i] < '0' || b[i] > '9' || digits == 9 {
			return 0, nil, false
		}
		n = n*10 + int(b[i]-'0')
		digits++
	}
	if i == len(b) || digits == 0 {
		return 0, nil, false
	}
	if neg {
		n = -n
	}
	return n, b[i+1:], true
}

// stagedDiff compares the index with HEAD under one folder.
type stagedDiff struct {
	ix     *indexFile
	head   *treeLister // nil when HEAD is unborn
	prefix string      // the folder asked for, with a trailing slash; "" for the root
	out    []Change
}

// stagedFromIndex answers StagedChanges from the index file.
func (r *Repo) stagedFromIndex(ix *indexFile, dir string) ([]Change, error) {
	d, err := r.diffIndex(ix, dir)
	if err != nil {
		return nil, err
	}
	return d.out, nil
}

// diffIndex runs the staged diff; its result keeps the trees it read.
func (r *Repo) diffIndex(ix *indexFile, dir string) (*stagedDiff, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := &stagedDiff{ix: ix}
	if dir != "" {
		d.prefix = dir + "/"
	}
	ref, err := r.head()
	switch {
	case err == nil:
		c, err := r.commitObject(ref.Hash())
		if err != nil {
			return nil, fmt.Errorf("read HEAD commit: %w", err)
		}
		d.head = &treeLister{repo: r, root: c.TreeHash, cache: map[string][]entry{}}
	case errors.Is(err, plumbing.ErrReferenceNotFound):
	default:
		return nil, fmt.Errorf("read HEAD: %w", err)
	}

	// The cache-tree summarises a folder only when every entry under it is
	// an ordinary stage-0 entry: git leaves intent-to-add entries out of
	// the trees it records, and conflicted paths have no tree at all.
	var ct *cacheTree
	if ix.tree != nil && !ix.unusual {
		ct = parseCacheTree(ix.tree)
	}
	full := dir
	if full == "" {
		full = "."
	}
	for elem := range strings.SplitSeq(dir, "/") {
		if ct != nil && elem != "" {
			ct = ct.children[elem]
		}
	}
	headHash, inHead, err := d.headFolder(full)
	if err != nil {
		return nil, err
	}
	if err := d.folder(full, headHash, inHead, ct); err != nil {
		return nil, err
	}
	sort.Slice(d.out, func(i, j int) bool { return d.out[i].Path < d.out[j].Path })
	return d, nil
}

// headFolder finds the tree of folder full ("." for the root) in HEAD.
func (d *stagedDiff) headFolder(full string) (plumbing.Hash, bool, error) {
	if d.head == nil {
		return plumbing.ZeroHash, false, nil
	}
	if full == "." {
		return d.head.root, true, nil
	}
	parent, base := path.Split(full)
	parent = strings.TrimSuffix(parent, "/")
	if parent == "" {
		parent = "."
	}
	es, ok, err := d.head.listFull(parent)
	if err != nil || !ok {
		return plumbing.ZeroHash, false, err
	}
	i := sort.Search(len(es), func(i int) bool { return es[i].name >= base })
	for ; i < len(es) && es[i].name == base; i++ {
		if es[i].isDir {
			return es[i].hash, true, nil
		}
	}
	return plumbing.ZeroHash, false, nil
}

// folder compares folder full ("." for the root) of HEAD (headHash, when
// inHead) with the index entries under it. ct is the folder's cache-tree
// node, nil when unknown.
func (d *stagedDiff) folder(full string, headHash plumbing.Hash, inHead bool, ct *cacheTree) error {
	if inHead && ct != nil && ct.valid && ct.hash == headHash {
		return nil // the index would write exactly HEAD's tree here
	}
	var headFiles, headDirs map[string]entry
	if inHead {
		es, _, err := d.head.listFull(full)
		if err != nil {
			return err
		}
		headFiles, headDirs = make(map[string]entry, len(es)), map[string]entry{}
		for _, e := range es {
			if e.isDir {
				headDirs[e.name] = e
			} else {
				headFiles[e.name] = e
			}
		}
	}

	ix := d.ix
	p := ""
	if full != "." {
		p = full + "/"
	}
	n := ix.len()
	seenDirs := map[string]bool{}
	for i := ix.search(p); i < n; {
		name := ix.name(i)
		if !strings.HasPrefix(name, p) {
			break
		}
		rest := name[len(p):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub := rest[:j]
			seenDirs[sub] = true
			var child *cacheTree
			if ct != nil {
				child = ct.children[sub]
			}
			h, ok := headDirs[sub]
			if err := d.folder(name[:len(p)+j], h.hash, ok, child); err != nil {
				return err
			}
			i = ix.searchFrom(i+1, name[:len(p)+j]+"0") // past the subfolder
			continue
		}
		i = d.file(i, name, headFiles)
	}
	for name := range headFiles {
		d.change(path.Join(full, name), Deleted)
	}
	for name := range headDirs {
		if seenDirs[name] {
			continue
		}
		gone := map[string]plumbing.Hash{}
		if err := walkTree(d.head, path.Join(full, name), gone); err != nil {
			return err
		}
		for p := range gone {
			d.change(p, Deleted)
		}
	}
	return nil
}

// file compares the index entry at i (and the later stages of its path)
// with HEAD's files of the same folder, removing the match from headFiles,
// and returns the index of the next path.
func (d *stagedDiff) file(i int, name string, headFiles map[string]entry) int {
	ix := d.ix
	base := name[strings.LastIndexByte(name, '/')+1:]
	h, inHead := headFiles[base]
	delete(headFiles, base)
	// A submodule, or a path added with `git add -N`, is not a file the
	// commit holds.
	absent := ix.mode(i) == filemode.Submodule || ix.intentToAdd(i)
	hash, conflicted := ix.hash(i), ix.stage(i) != 0
	for i++; i < ix.len() && ix.name(i) == name; i++ {
		conflicted = true
	}
	switch {
	case absent:
		if inHead {
			d.change(name, Deleted)
		}
	case conflicted:
		d.change(name, Modified)
	case !inHead:
		d.change(name, Added)
	case h.hash != hash:
		d.change(name, Modified)
	}
	return i
}

func (d *stagedDiff) change(full string, kind ChangeKind) {
	d.out = append(d.out, Change{Path: strings.TrimPrefix(full, d.prefix), Kind: kind})
}
