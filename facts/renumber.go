package facts

// This file defines the repair of duplicate fact ids that a git merge of two
// branches can produce.

import (
	"context"
	"fmt"
	"os"
	"path"
	"sort"

	"github.com/foundryhq/foundry/internal/atomicfile"
	"github.com/foundryhq/foundry/internal/pause"
)

// Renumbering records one fact that received a new id.
type Renumbering struct {
	OldID   string `json:"oldId"`
	NewID   string `json:"newId"`
	OldPath string `json:"oldPath"`
	NewPath string `json:"newPath"`
}

// FileChange is one fact file to rewrite after [Renumber]. When OldPath is
// set the fact moved there from OldPath, which must be removed.
type FileChange struct {
	Fact    Fact   // new content; Fact.Path is where it goes
	OldPath string // previous path when the file is renamed
}

// Renumber repairs duplicate ids in facts (as read from their files, with
// Path set). In each group sharing an id the earliest fact (by created date,
// then path) keeps it and every later one gets the next free id, in order.
// Supersession links follow the renumbered fact: a fact that says it is
// superseded by the old id, and that the renumbered fact says it supersedes,
// now names the new id, and the same for the other direction. It returns the
// files to write and the renumberings, both empty when no id is shared. The
// input is not modified.
func Renumber(facts []Fact) ([]FileChange, []Renumbering) { return renumber(facts, 0) }

// renumber is [Renumber] with new ids above maxID as well: the highest id
// held by any fact file, including one that cannot be parsed, so no id is
// ever handed out twice.
func renumber(facts []Fact, maxID int) ([]FileChange, []Renumbering) {
	all := append([]Fact(nil), facts...)
	groups := map[string][]int{}
	for i, f := range all {
		groups[f.ID] = append(groups[f.ID], i)
		if n := IDNumber(f.ID); n > maxID {
			maxID = n
		}
	}
	ids := make([]string, 0, len(groups))
	for id, g := range groups {
		if len(g) > 1 {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return IDNumber(ids[i]) < IDNumber(ids[j]) })

	changed := map[int]string{} // index → old path when renamed, "" otherwise
	var renumbered []Renumbering
	for _, id := range ids {
		g := groups[id]
		sort.Slice(g, func(i, j int) bool {
			a, b := all[g[i]], all[g[j]]
			if a.Created != b.Created {
				return a.Created < b.Created
			}
			return a.Path < b.Path
		})
		for _, i := range g[1:] {
			maxID++
			r := &all[i]
			newID := FormatID(maxID)
			oldPath := r.Path
			newPath := path.Join(path.Dir(oldPath), FileName(newID, r.Title))
			if oldPath == "" || path.Dir(oldPath) == "." {
				newPath = path.Join(Dir, FileName(newID, r.Title))
			}
			for j := range all {
				if j == i {
					continue
				}
				o := &all[j]
				if o.SupersededBy == id && r.Supersedes == o.ID {
					o.SupersededBy = newID
					markChanged(changed, j)
				}
				if o.Supersedes == id && r.SupersededBy == o.ID {
					o.Supersedes = newID
					markChanged(changed, j)
				}
			}
			r.ID, r.Path = newID, newPath
			changed[i] = oldPath
			renumbered = append(renumbered, Renumbering{OldID: id, NewID: newID, OldPath: oldPath, NewPath: newPath})
		}
	}
	idx := make([]int, 0, len(changed))
	for i := range changed {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]FileChange, 0, len(idx))
	for _, i := range idx {
		out = append(out, FileChange{Fact: all[i], OldPath: changed[i]})
	}
	return out, renumbered
}

func markChanged(changed map[int]string, i int) {
	if _, ok := changed[i]; !ok {
		changed[i] = ""
	}
}

// FixDuplicateIDs applies [Renumber] to the fact files on disk under the
// memory lock: it writes each renumbered fact under its new name, removes
// the old file, rewrites facts whose links changed and rebuilds INDEX.md.
// It returns what it renumbered (nothing, and writes nothing, when no id is
// shared).
func (s *Store) FixDuplicateIDs(ctx context.Context) ([]Renumbering, error) {
	var done []Renumbering
	err := s.locked(ctx, func() error {
		snap, err := s.load(ctx)
		if err != nil {
			return err
		}
		changes, renumbered := renumber(snap.raw, snap.maxID)
		if len(renumbered) == 0 {
			return nil
		}
		for _, c := range changes {
			// The fact moves to its new name first and is rewritten there,
			// so a repair killed at any step leaves it in one file; its
			// old id, still in the front matter, is repaired again next time.
			if c.OldPath != "" && c.OldPath != c.Fact.Path {
				if err := os.Rename(s.osPath(c.OldPath), s.osPath(c.Fact.Path)); err != nil {
					return fmt.Errorf("move %s: %w", c.OldPath, err)
				}
			}
			if err := atomicfile.WriteFile(s.osPath(c.Fact.Path), Format(c.Fact), 0o644); err != nil {
				return err
			}
			pause.Point(ctx, "facts.after-renumber-write")
		}
		if _, err := s.writeIndex(ctx); err != nil {
			return err
		}
		done = renumbered
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("renumber duplicate fact ids: %w", err)
	}
	return done, nil
}
