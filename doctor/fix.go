// This file defines the repairs doctor makes with --fix: only those that
// are safe without judgement.

package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/confined"
)

// Change is one repair [Fix] made.
type Change struct {
	Check   string `json:"check"`
	Path    string `json:"path"`              // file written, project-relative
	OldPath string `json:"oldPath,omitempty"` // file it replaced, when renamed
	Message string `json:"message"`
}

// String renders the change as --fix prints it.
func (c Change) String() string { return c.Message }

// Fix repairs what is safe to repair in the working tree and returns what
// it changed, nothing when all is in order: what a merge leaves in memory is
// repaired with [facts.Store.Repair] (a fact file with conflict markers
// becomes the facts of both sides, duplicate ids are renumbered, the fact
// that held an id first in git history keeping it, and every supersedes
// link follows the fact it meant, settled from git history when the id it
// names is shared or its other end does not link back, so each chain
// agrees at both ends), and a stale or missing INDEX.md is rebuilt;
// temporary files a killed writer left more than [confined.StaleAge] ago
// are removed. Nothing else is touched: conflict markers in other files
// are reported, not resolved. Fix refuses a project opened on a revision
// or the index, and a link history cannot settle
// ([facts.ErrAmbiguousLink]), changing nothing.
func Fix(ctx context.Context, env Env) ([]Change, error) {
	p := env.Project
	if err := p.CheckWritable(); err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	now := env.Now
	if now == nil {
		now = time.Now
	}
	store := facts.Open(p, facts.Options{Now: now})
	indexBefore, err := fs.ReadFile(p.FS, facts.IndexPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("fix: %w", err)
	}
	var changes []Change

	prov, err := newProvenance(ctx, p)
	if err != nil {
		return nil, err
	}
	rep, err := store.Repair(ctx, prov)
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	for _, sp := range rep.Splits {
		changes = append(changes, Change{Check: CheckConflicts, Path: sp.Path, Message: sp.String()})
	}
	for _, rn := range rep.Renumbered {
		changes = append(changes, Change{Check: CheckFactsDuplicate, Path: rn.NewPath, OldPath: rn.OldPath,
			Message: fmt.Sprintf("renumbered %s to %s: %s → %s", rn.OldID, rn.NewID, rn.OldPath, rn.NewPath)})
	}
	for _, rl := range rep.Relinked {
		changes = append(changes, Change{Check: CheckFactsSupersedes, Path: rl.Path,
			Message: fmt.Sprintf("updated the supersedes links of %s in %s", rl.ID, rl.Path)})
	}

	raw, err := store.RawFacts(ctx)
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	idx, err := store.Index(ctx)
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	current, err := fs.ReadFile(p.FS, facts.IndexPath)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, fmt.Errorf("fix: %w", err)
	}
	if !bytes.Equal(current, idx.Content) && (!missing || len(raw) > 0) {
		if idx, err = store.RebuildIndex(ctx); err != nil {
			return nil, fmt.Errorf("fix: %w", err)
		}
		current = idx.Content
	}
	if !bytes.Equal(indexBefore, current) {
		changes = append(changes, Change{Check: CheckFactsIndex, Path: facts.IndexPath,
			Message: fmt.Sprintf("rebuilt %s: %s", facts.IndexPath, idx.Summary())})
	}
	// A temp file this old has no live writer (see confined.StaleAge), so
	// removing it needs no lock.
	for _, tmp := range staleTemps(p.FS, now().Add(-confined.StaleAge)) {
		if err := p.Files.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changes, fmt.Errorf("fix: remove %s: %w", tmp, err)
		}
		changes = append(changes, Change{Check: CheckStaleTemp, Path: tmp,
			Message: fmt.Sprintf("removed %s, a temporary file left by a killed writer", tmp)})
	}
	return changes, nil
}
