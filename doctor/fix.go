// This file defines the repairs doctor makes with --fix: only those that
// are safe without judgement.

package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/foundryhq/foundry/facts"
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
// it changed, nothing when all is in order: duplicate fact ids left by a
// merge are renumbered (in each group the earliest fact keeps the id, every
// later one gets the next free id, and the supersedes links that named the
// renumbered fact follow it), and a stale or missing INDEX.md is rebuilt.
// Nothing else is touched. Fix refuses a project opened on a revision or
// the index.
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
	indexBefore, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(facts.IndexPath)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("fix: %w", err)
	}
	var changes []Change

	raw, err := store.RawFacts(ctx)
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	plan, planned := facts.Renumber(raw)
	if len(planned) > 0 {
		done, err := store.FixDuplicateIDs(ctx)
		if err != nil {
			return nil, fmt.Errorf("fix duplicate fact ids: %w", err)
		}
		for _, rn := range done {
			changes = append(changes, Change{Check: CheckFactsDuplicate, Path: rn.NewPath, OldPath: rn.OldPath,
				Message: fmt.Sprintf("renumbered %s to %s: %s → %s", rn.OldID, rn.NewID, rn.OldPath, rn.NewPath)})
		}
		// The plan lists the facts whose links followed a renumbered one;
		// it is what the store did when both agree on the renumbering.
		if sameRenumbering(planned, done) {
			for _, c := range plan {
				if c.OldPath == "" {
					changes = append(changes, Change{Check: CheckFactsDuplicate, Path: c.Fact.Path,
						Message: fmt.Sprintf("updated the supersedes links of %s in %s", c.Fact.ID, c.Fact.Path)})
				}
			}
		}
	}

	idx, err := store.Index(ctx)
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	current, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(facts.IndexPath)))
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
	return changes, nil
}

func sameRenumbering(a, b []facts.Renumbering) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
