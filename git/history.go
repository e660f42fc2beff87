// This file defines the history walk: one pass over the commits reachable
// from a revision that records, for the paths a caller cares about, every
// commit that changed them and the blob each change left behind.

package git

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// HistoryOptions selects what one history walk records.
type HistoryOptions struct {
	// Sub is the folder every path is relative to (the project root that
	// project.Project.Git returns); "" is the working tree root.
	Sub string
	// Prefixes limit the walk to the paths under them, relative to Sub.
	// "dir/" selects a folder; a prefix without a trailing slash selects
	// that exact path and, when it is a folder, everything under it. An
	// empty list selects every path.
	Prefixes []string
	// Latest are exact file paths, relative to Sub, of which only the
	// latest change is wanted: each is recorded by the first commit of the
	// walk that changes it (what [History.LastChange] returns when the path
	// is followed in full), and from then on the walk no longer descends
	// toward it. A path also under Prefixes is followed in full.
	Latest []string
	// Progress, when set, is called after each commit with the number of
	// commits walked so far.
	Progress func(commits int)
}

// PathChange is one commit's change to one path.
type PathChange struct {
	Commit Commit
	// Seq is the position of Commit in the walk, newest first: 0 is the
	// revision the walk started from. A smaller Seq is a later commit.
	Seq  int
	Path string // slash path relative to HistoryOptions.Sub
	// Blob is the object id of the path's content after the commit, or ""
	// when the commit deleted it.
	Blob string
}

// Deleted reports whether the change removed the path.
func (c PathChange) Deleted() bool { return c.Blob == "" }

// History is the result of one walk: for every selected path that some
// commit changed, the changes, newest first.
type History struct {
	// Head is the commit the walk started from.
	Head Commit
	// Commits is the number of commits walked.
	Commits int
	// Truncated is true when the walk stopped at the boundary of a shallow
	// clone: the changes recorded are complete only back to there.
	Truncated bool

	changes map[string][]PathChange
	seq     map[plumbing.Hash]int // each commit's place in the walk
	// unordered is true when the walk placed some commit before one of
	// its children (see Topological).
	unordered bool
	repo      *Repo
}

// Topological reports whether the walk placed every commit after all of
// its children, so that a smaller Seq is never an ancestor of a larger
// one. Commit dates order the walk: dates that go back in time across a
// merge, or commits of one second on two branches, can break it.
func (h *History) Topological() bool { return !h.unordered }

// Changes returns the commits that changed p (relative to Sub), newest first.
func (h *History) Changes(p string) []PathChange { return h.changes[p] }

// LastChange returns the latest commit that changed p.
func (h *History) LastChange(p string) (PathChange, bool) {
	cs := h.changes[p]
	if len(cs) == 0 {
		return PathChange{}, false
	}
	return cs[0], true
}

// Paths lists every path with at least one change, sorted.
func (h *History) Paths() []string {
	out := make([]string, 0, len(h.changes))
	for p := range h.changes {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// History walks every commit reachable from rev once, newest first by
// committer date (the order of git log), and diffs each commit's tree with
// its parents' once, descending only into the folders that hold a selected
// path and skipping every subtree whose object id did not change. A merge
// changes a path only when the path differs from every parent, as in git's
// combined diff, so a change made on a branch is attributed to the branch
// commit, not to the merge that brought it in. Renames are a deletion and an
// addition.
func (r *Repo) History(ctx context.Context, rev string, opts HistoryOptions) (*History, error) {
	r.mu.Lock()
	start, err := r.resolveLocked(rev)
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("walk history of %s: %w", rev, err)
	}
	w := &walker{
		repo:    r,
		filter:  newPathFilter(opts.Sub, opts.Prefixes),
		latest:  newLatestPaths(opts.Sub, opts.Latest),
		sub:     strings.Trim(opts.Sub, "/"),
		trees:   map[plumbing.Hash][]treeEntry{},
		changes: map[string][]PathChange{},
	}
	r.mu.Lock()
	shallow, _ := r.st.Shallow()
	r.mu.Unlock()
	boundary := make(map[plumbing.Hash]bool, len(shallow))
	for _, h := range shallow {
		boundary[h] = true
	}

	h := &History{Head: describe(start), repo: r}
	q := &commitQueue{}
	// seq is each commit's place in the walk, -1 while it is queued.
	seq := map[plumbing.Hash]int{start.Hash: -1}
	heap.Push(q, queued{c: start})
	for q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := heap.Pop(q).(queued).c
		n := h.Commits
		seq[c.Hash] = n
		h.Commits++
		r.mu.Lock()
		err := w.commit(c, n, boundary[c.Hash], func(p *object.Commit) {
			switch s, seen := seq[p.Hash]; {
			case !seen:
				seq[p.Hash] = -1
				heap.Push(q, queued{c: p, order: len(seq)})
			case s >= 0:
				// A parent placed before this child: dates that go back in
				// time, or ties of one second taken in queue order.
				h.unordered = true
			}
		})
		r.mu.Unlock()
		switch {
		case errors.Is(err, errTruncated):
			h.Truncated = true
		case err != nil:
			return nil, fmt.Errorf("walk history of %s: %w", rev, err)
		}
		if opts.Progress != nil {
			opts.Progress(h.Commits)
		}
	}
	h.changes, h.seq = w.changes, seq
	return h, nil
}

// IsAncestor reports whether commit a is commit b or in b's history, as
// [Repo.IsAncestor] does. Where the walk was topological it does so
// without searching all of b's history when the answer is no: no commit
// the walk placed after a (a larger Seq) has a in its history, so the
// search goes no further back than a.
func (h *History) IsAncestor(a, b string) (bool, error) {
	limit, ok := h.seq[plumbing.NewHash(a)]
	if !ok || h.unordered || !plumbing.IsHash(a) { // a commit the walk has not placed
		return h.repo.IsAncestor(a, b)
	}
	return h.repo.isAncestor(plumbing.NewHash(a), b, func(p plumbing.Hash) bool {
		s, ok := h.seq[p]
		return ok && s > limit
	})
}

// InHistoryOf returns a test of whether a commit is b or in b's history,
// for many questions about one b: its history is searched once, in full
// (to a shallow clone's boundary), where [History.IsAncestor] searches
// again for each question.
func (h *History) InHistoryOf(b string) (func(a string) bool, error) {
	set, err := h.repo.ancestors(b)
	if err != nil {
		return nil, err
	}
	return func(a string) bool { return plumbing.IsHash(a) && set[plumbing.NewHash(a)] }, nil
}

// errTruncated marks a commit whose parents are missing (a shallow clone).
var errTruncated = errors.New("history truncated")

// walker holds the state of one history walk. Its methods run with the
// repository lock held.
type walker struct {
	repo    *Repo
	filter  pathFilter
	latest  latestPaths
	sub     string
	trees   map[plumbing.Hash][]treeEntry
	cached  int // entries held in trees
	changes map[string][]PathChange
}

// treeEntry is one decoded tree entry.
type treeEntry struct {
	name  string
	hash  plumbing.Hash
	isDir bool
}

// maxCachedTrees and maxCachedEntries bound the decoded-tree cache, by
// trees and by their entries together; consecutive commits share most
// trees, so a small cache gives most of the benefit. The bound on entries
// (about 55 MB of decoded trees, raw bytes included) is what holds when
// folders are large: a memory folder of 50,000 facts decodes to about 6 MB
// a version, and a walk of 300 commits that each change it kept every
// version, 1.8 GB.
const (
	maxCachedTrees   = 4096
	maxCachedEntries = 1 << 19
)

// commit records the changes c made and queues its parents.
func (w *walker) commit(c *object.Commit, seq int, shallow bool, queue func(*object.Commit)) error {
	var parents []plumbing.Hash
	truncated := shallow
	if !shallow {
		for _, ph := range c.ParentHashes {
			p, err := w.repo.commitObject(ph)
			if err != nil {
				if errors.Is(err, plumbing.ErrObjectNotFound) {
					truncated = true
					continue
				}
				return fmt.Errorf("read commit %s: %w", ph.String()[:7], err)
			}
			queue(p)
			parents = append(parents, p.TreeHash)
		}
	}
	if truncated {
		// What a boundary commit changed is unknown: recording its whole
		// tree as added would blame it for every file.
		return errTruncated
	}
	var changed map[string]plumbing.Hash
	if len(parents) == 0 {
		changed = map[string]plumbing.Hash{}
		if err := w.diff("", plumbing.ZeroHash, c.TreeHash, changed); err != nil {
			return err
		}
	} else {
		for i, pt := range parents {
			d := map[string]plumbing.Hash{}
			if err := w.diff("", pt, c.TreeHash, d); err != nil {
				return err
			}
			if i == 0 {
				changed = d
			} else {
				for p := range changed {
					if _, ok := d[p]; !ok {
						delete(changed, p)
					}
				}
			}
			if len(changed) == 0 {
				break
			}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	info := describe(c)
	for p := range changed {
		w.latest.found(p)
	}
	for p, blob := range changed {
		rel := p
		if w.sub != "" {
			rel = strings.TrimPrefix(p, w.sub+"/")
		}
		b := ""
		if !blob.IsZero() {
			b = blob.String()
		}
		w.changes[rel] = append(w.changes[rel], PathChange{Commit: info, Seq: seq, Path: rel, Blob: b})
	}
	return nil
}

// diff records in out every selected file under dir whose blob differs
// between the trees a and b (either may be zero: absent), mapped to its blob
// in b (zero when b lacks it).
func (w *walker) diff(dir string, a, b plumbing.Hash, out map[string]plumbing.Hash) error {
	if a == b {
		return nil
	}
	ea, err := w.tree(a)
	if err != nil {
		return err
	}
	eb, err := w.tree(b)
	if err != nil {
		return err
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		var x, y *treeEntry
		cmp := 0
		switch {
		case j == len(eb):
			cmp = -1
		case i == len(ea):
			cmp = 1
		default:
			cmp = gitCompare(&ea[i], &eb[j])
		}
		switch {
		case cmp < 0:
			x = &ea[i]
			i++
		case cmp > 0:
			y = &eb[j]
			j++
		default:
			x, y = &ea[i], &eb[j]
			i++
			j++
		}
		name := x
		if name == nil {
			name = y
		}
		if x != nil && y != nil && x.hash == y.hash {
			continue // same key and same object: nothing below changed
		}
		full := name.name
		if dir != "" {
			full = dir + "/" + full
		}
		sel := w.filter.match(full)
		if sel != selected {
			sel = max(sel, w.latest.match(full))
		}
		if sel == skip {
			continue
		}
		// A folder on either side is descended; a file is compared.
		var da, db, fa, fb plumbing.Hash
		if x != nil {
			if x.isDir {
				da = x.hash
			} else {
				fa = x.hash
			}
		}
		if y != nil {
			if y.isDir {
				db = y.hash
			} else {
				fb = y.hash
			}
		}
		if da != db {
			if err := w.diff(full, da, db, out); err != nil {
				return err
			}
		}
		if sel == selected && fa != fb {
			out[full] = fb
		}
	}
	return nil
}

// tree returns the entries of a tree (none for the zero hash) in git's
// order. It parses the raw object itself: the walk decodes about a thousand
// entries per commit, and go-git's decoder allocates a string for each.
func (w *walker) tree(h plumbing.Hash) ([]treeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	if es, ok := w.trees[h]; ok {
		return es, nil
	}
	obj, err := w.repo.st.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h.String()[:7], err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h.String()[:7], err)
	}
	// Read into a builder, whose String is the bytes read without a copy
	// (every entry name is a substring of it); an object in memory writes
	// itself there in one copy.
	var raw strings.Builder
	raw.Grow(int(obj.Size()))
	n, err := io.Copy(&raw, rd)
	rd.Close()
	if err == nil && n != obj.Size() {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h.String()[:7], err)
	}
	es, err := parseTree(raw.String())
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h.String()[:7], err)
	}
	if len(w.trees) >= maxCachedTrees || w.cached+len(es) > maxCachedEntries {
		clear(w.trees)
		w.cached = 0
	}
	w.trees[h] = es
	w.cached += len(es)
	return es, nil
}

// parseTree decodes a raw tree object: entries of "<octal mode> <name>\0"
// followed by a 20-byte object id. Submodules are left out.
func parseTree(s string) ([]treeEntry, error) {
	es := make([]treeEntry, 0, strings.Count(s, "\x00"))
	for len(s) > 0 {
		sp := strings.IndexByte(s, ' ')
		nul := strings.IndexByte(s, 0)
		if sp <= 0 || nul < sp || len(s) < nul+1+hashLen {
			return nil, errors.New("malformed tree object")
		}
		mode := s[:sp]
		var e treeEntry
		e.name = s[sp+1 : nul]
		copy(e.hash[:], s[nul+1:nul+1+hashLen])
		s = s[nul+1+hashLen:]
		switch mode {
		case "40000", "040000":
			e.isDir = true
		case "160000":
			continue
		}
		es = append(es, e)
	}
	return es, nil
}

// hashLen is the size of a SHA-1 object id.
const hashLen = 20

// gitCompare orders tree entries as git does: a folder's name compares as if
// it ended in "/".
func gitCompare(a, b *treeEntry) int {
	n := min(len(a.name), len(b.name))
	if c := strings.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	ca, cb := nextChar(a, n), nextChar(b, n)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

func nextChar(e *treeEntry, n int) byte {
	if n < len(e.name) {
		return e.name[n]
	}
	if e.isDir {
		return '/'
	}
	return 0
}

// match results of a pathFilter.
const (
	skip     = iota // neither selected nor on the way to a selected path
	descend         // a folder that leads to selected paths
	selected        // selected: record it, and everything under it
)

// pathFilter decides which paths a walk looks at, as full paths from the
// working tree root.
type pathFilter struct {
	all      bool
	prefixes []string // each either "a/b/" (folder) or "a/b" (exact path)
}

func newPathFilter(sub string, prefixes []string) pathFilter {
	sub = strings.Trim(sub, "/")
	if len(prefixes) == 0 {
		if sub == "" {
			return pathFilter{all: true}
		}
		return pathFilter{prefixes: []string{sub + "/"}}
	}
	f := pathFilter{}
	for _, p := range prefixes {
		dirOnly := strings.HasSuffix(p, "/")
		p = path.Join(sub, strings.Trim(p, "/"))
		if p == "." || p == "" {
			return pathFilter{all: true}
		}
		if dirOnly {
			p += "/"
		}
		f.prefixes = append(f.prefixes, p)
	}
	return f
}

func (f pathFilter) match(full string) int {
	if f.all {
		return selected
	}
	res := skip
	for _, p := range f.prefixes {
		if folder, ok := strings.CutSuffix(p, "/"); ok {
			switch {
			case strings.HasPrefix(full, p):
				return selected
			case full == folder || strings.HasPrefix(folder, full+"/"):
				res = descend
			}
			continue
		}
		switch {
		case full == p || strings.HasPrefix(full, p+"/"):
			return selected
		case strings.HasPrefix(p, full+"/"):
			res = descend
		}
	}
	return res
}

// latestPaths are the paths of [HistoryOptions.Latest] whose latest change
// the walk has not met yet, as full paths from the working tree root, and
// how many of them lie under each folder, so that matching an entry costs
// a map lookup however many paths there are.
type latestPaths struct {
	files map[string]bool
	dirs  map[string]int
}

func newLatestPaths(sub string, paths []string) latestPaths {
	l := latestPaths{files: map[string]bool{}, dirs: map[string]int{}}
	for _, p := range paths {
		full := path.Join(strings.Trim(sub, "/"), strings.Trim(p, "/"))
		if full == "." || l.files[full] {
			continue
		}
		l.files[full] = true
		for d := path.Dir(full); d != "."; d = path.Dir(d) {
			l.dirs[d]++
		}
	}
	return l
}

// match says whether full is a pending path (selected) or a folder on the
// way to one (descend).
func (l latestPaths) match(full string) int {
	switch {
	case l.files[full]:
		return selected
	case l.dirs[full] > 0:
		return descend
	}
	return skip
}

// found marks the latest change of full as recorded, if it was pending.
func (l latestPaths) found(full string) {
	if !l.files[full] {
		return
	}
	delete(l.files, full)
	for d := path.Dir(full); d != "."; d = path.Dir(d) {
		if l.dirs[d]--; l.dirs[d] == 0 {
			delete(l.dirs, d)
		}
	}
}

// queued is a commit waiting in the walk, ordered newest first by committer
// date, then by discovery.
type queued struct {
	c     *object.Commit
	order int
}

type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	ti, tj := q[i].c.Committer.When, q[j].c.Committer.When
	if !ti.Equal(tj) {
		return ti.After(tj)
	}
	return q[i].order < q[j].order
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// ReadBlob returns the content of the blob with object id id (as in
// [PathChange.Blob] or [FileInfo.Hash]), a version of the file name (a
// slash path relative to the project), whose size limit applies (see
// [confined.LimitFor]).
func (r *Repo) ReadBlob(name, id string) ([]byte, error) {
	if !plumbing.IsHash(id) {
		return nil, fmt.Errorf("read blob %q: %w", id, ErrPathNotFound)
	}
	f := &objectFS{repo: r}
	data, err := f.readBlob(name, plumbing.NewHash(id))
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: %w", err, ErrPathNotFound)
	}
	return data, err
}

// BlobID returns the git object id content would have as a blob, so a file
// in the working tree can be compared with a committed version without
// reading it from git.
func BlobID(content []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, content).String()
}
