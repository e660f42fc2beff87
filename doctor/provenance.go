// This file defines how --fix asks git history which fact a link meant.

package doctor

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/project"
)

// provenance answers [facts.Provenance] from the history of HEAD, walked
// once over the memory folder on the first question.
type provenance struct {
	ctx  context.Context
	repo *git.Repo
	rel  string // the project root in repo's working tree
	hist *git.History
	ids  map[string][]string // commit → fact file names at that commit
	// views holds the view of each commit ReadAt read, whose folders
	// it lists once: a repair reads a file of each duplicate id at the
	// same few commits (the bases, a merge's sides), and a view made
	// anew for each decodes the memory folder's whole tree again.
	views map[string]fs.FS
}

// maxViews bounds provenance.views: past it, the views start over.
const maxViews = 8

// newProvenance returns the history of the project's repository, or nil
// outside git, in a repository whose format is not supported, or before the
// first commit.
func newProvenance(ctx context.Context, p *project.Project) (facts.Provenance, error) {
	repo, rel, err := p.Git()
	if errors.Is(err, git.ErrUnsupportedFormat) {
		return nil, nil
	}
	if err != nil || repo == nil || !repo.HasCommits() {
		return nil, err
	}
	return &provenance{ctx: ctx, repo: repo, rel: rel, ids: map[string][]string{}, views: map[string]fs.FS{}}, nil
}

func (pv *provenance) history() (*git.History, error) {
	if pv.hist != nil {
		return pv.hist, nil
	}
	h, err := pv.repo.History(pv.ctx, "HEAD", git.HistoryOptions{Sub: pv.rel, Prefixes: []string{facts.Dir + "/"}})
	if err != nil {
		return nil, err
	}
	pv.hist = h
	return h, nil
}

// change returns the latest commit that left content at p, and its place
// in the changes of p.
func (pv *provenance) change(p string, content []byte) (git.PathChange, int, error) {
	h, err := pv.history()
	if err != nil {
		return git.PathChange{}, -1, err
	}
	blob := git.BlobID(content)
	for i, c := range h.Changes(p) {
		if c.Blob == blob {
			return c, i, nil
		}
	}
	return git.PathChange{}, -1, nil
}

func (pv *provenance) Writes(p string, content []byte) ([]facts.Write, error) {
	_, at, err := pv.change(p, content)
	if err != nil || at < 0 {
		return nil, err
	}
	changes := pv.hist.Changes(p)
	var out []facts.Write
	for i := len(changes) - 1; i >= at; i-- {
		c := changes[i]
		if c.Deleted() {
			continue
		}
		data, err := pv.repo.ReadBlob(p, c.Blob)
		if err != nil {
			return nil, err
		}
		out = append(out, facts.Write{Commit: c.Commit.Hash, Content: data})
	}
	return out, nil
}

func (pv *provenance) IDPaths(commit, id string) ([]string, error) {
	names, ok := pv.ids[commit]
	if !ok {
		fsys, _, err := pv.repo.RevFS(commit, pv.rel)
		if err != nil {
			return nil, err
		}
		es, err := fs.ReadDir(fsys, facts.Dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range es {
			names = append(names, e.Name())
		}
		pv.ids[commit] = names
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, id+"-") && strings.HasSuffix(n, ".md") {
			out = append(out, path.Join(facts.Dir, n))
		}
	}
	return out, nil
}

func (pv *provenance) Sides(p string, content []byte) (string, string, bool, error) {
	c, at, err := pv.change(p, content)
	if err != nil || at < 0 {
		return "", "", false, err
	}
	parents, err := pv.repo.Parents(c.Commit.Hash)
	if err != nil || len(parents) != 2 {
		return "", "", false, err
	}
	return parents[0], parents[1], true, nil
}

func (pv *provenance) IsAncestor(a, b string) (bool, error) { return pv.repo.IsAncestor(a, b) }

func (pv *provenance) Bases() ([]string, error) {
	var out []string
	// The remote's default branch first: merging it into a branch whose
	// own upstream holds a fact of the same id, the trunk's keeps it.
	// Without those (or a branch: HEAD detached) the first parent alone
	// is a base.
	for _, rev := range []string{"origin/HEAD", "@{u}"} {
		c, err := pv.repo.Resolve(rev)
		if err == nil {
			out = append(out, c.Hash)
		} else if !errors.Is(err, git.ErrRevisionNotFound) {
			return nil, err
		}
	}
	head, err := pv.repo.Resolve("HEAD")
	if err != nil {
		return nil, err
	}
	parents, err := pv.repo.Parents(head.Hash)
	if err != nil {
		return nil, err
	}
	if len(parents) < 2 {
		return append(out, head.Hash), nil
	}
	// A shallow clone can lack the parents of the merge it holds.
	if _, err := pv.repo.Resolve(parents[0]); errors.Is(err, git.ErrRevisionNotFound) {
		return out, nil
	} else if err != nil {
		return nil, err
	}
	return append(out, parents[0]), nil
}

func (pv *provenance) Added(p string) (int, bool, error) {
	h, err := pv.history()
	if err != nil {
		return 0, false, err
	}
	place, ok := 0, false
	for _, c := range h.Changes(p) { // newest first
		if c.Deleted() {
			break
		}
		place, ok = c.Seq, true
	}
	return place, ok, nil
}

func (pv *provenance) ReadAt(commit, p string) ([]byte, bool, error) {
	fsys, ok := pv.views[commit]
	if !ok {
		var err error
		if fsys, _, err = pv.repo.RevFS(commit, pv.rel); err != nil {
			return nil, false, err
		}
		if len(pv.views) >= maxViews {
			clear(pv.views)
		}
		pv.views[commit] = fsys
	}
	data, err := fs.ReadFile(fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

func (pv *provenance) ChangedIn(commit, p string) (bool, error) {
	h, err := pv.history()
	if err != nil {
		return false, err
	}
	for _, c := range h.Changes(p) {
		if c.Commit.Hash == commit {
			return true, nil
		}
	}
	return false, nil
}
