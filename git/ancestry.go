package git

// This file defines the questions about the commit graph that a repair of
// merged memory asks: a commit's parents and whether one commit lies in the
// history of another.

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Parents returns the full hashes of the parents of the commit with hash h,
// first parent first.
func (r *Repo) Parents(h string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.commitLocked(h)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(c.ParentHashes))
	for _, p := range c.ParentHashes {
		out = append(out, p.String())
	}
	return out, nil
}

// IsAncestor reports whether the commit with hash a is the commit with hash
// b or one of its ancestors. The walk stops at a shallow clone's boundary.
func (r *Repo) IsAncestor(a, b string) (bool, error) {
	if a == b {
		return true, nil
	}
	r.mu.Lock()
	ca, err := r.commitLocked(a)
	r.mu.Unlock()
	if err != nil {
		return false, err
	}
	return r.isAncestor(ca.Hash, b, func(plumbing.Hash) bool { return false })
}

// isAncestor is IsAncestor of the commit a, searching b's history but for
// the commits skip says cannot have a in theirs.
func (r *Repo) isAncestor(a plumbing.Hash, b string, skip func(plumbing.Hash) bool) (bool, error) {
	found := false
	err := r.eachAncestor(b, skip, func(h plumbing.Hash) bool {
		found = h == a
		return !found
	})
	return found, err
}

// ancestors returns b and every commit in its history, to a shallow
// boundary.
func (r *Repo) ancestors(b string) (map[plumbing.Hash]bool, error) {
	set := map[plumbing.Hash]bool{}
	err := r.eachAncestor(b, func(plumbing.Hash) bool { return false }, func(h plumbing.Hash) bool {
		set[h] = true
		return true
	})
	return set, err
}

// eachAncestor calls visit with b and the commits of its history, breadth
// first, until visit returns false; the history of a commit skip names is
// not searched, nor beyond a shallow boundary.
func (r *Repo) eachAncestor(b string, skip func(plumbing.Hash) bool, visit func(plumbing.Hash) bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	cb, err := r.commitLocked(b)
	if err != nil {
		return err
	}
	seen := map[plumbing.Hash]bool{cb.Hash: true}
	queue := []*object.Commit{cb}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if !visit(c.Hash) {
			return nil
		}
		for _, p := range c.ParentHashes {
			if seen[p] || skip(p) {
				continue
			}
			seen[p] = true
			pc, err := r.commitObject(p)
			if err != nil {
				continue // beyond a shallow boundary
			}
			queue = append(queue, pc)
		}
	}
	return nil
}

func (r *Repo) commitLocked(h string) (*object.Commit, error) {
	if !plumbing.IsHash(h) {
		return nil, fmt.Errorf("read commit %q: %w", h, ErrRevisionNotFound)
	}
	c, err := r.commitObject(plumbing.NewHash(h))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, ErrRevisionNotFound)
	}
	return c, nil
}
