package facts

// This file defines the figures of the fact files that the token report
// takes from a store: kept as the live state changes, file by file, so that
// a report costs what changed since the last one, not a listing of the
// memory folder and a stat of every fact file.

import (
	"context"
	"path"
	"slices"

	"github.com/foundryhq/foundry/tokens"
)

// count adds the file c to the figures (sign 1) or takes it out (sign -1).
// The caller holds s.mu.
func (s *Store) count(c *cachedFile, sign int) {
	if !c.regular {
		return
	}
	n := int(c.key.size)
	s.sizes.Count += sign
	s.sizes.Bytes += sign * n
	s.sizes.Tokens += sign * tokens.Estimate(n)
}

// rekey records that the file c of s.files, its content unchanged, now has
// the identity key and is a regular file or not. The caller holds s.mu.
func (s *Store) rekey(c *cachedFile, key fileKey, regular bool) {
	s.count(c, -1)
	c.key, c.regular = key, regular
	s.count(c, 1)
}

// FactFiles measures the fact files of the memory folder for the token
// report (see [tokens.FactFiles]) from the live state, brought up to date
// first: with a working watcher (Options.Watch) that costs the events since
// the last call and the fact files that are links, read on every call
// anyway (see sync), not a listing of the folder. The regular files are
// measured by the sizes their last stat gave; the others (symbolic links,
// named pipes) are named, for the report to measure through its own
// checks. A store that does not watch lists the folder on every call, as
// every call of it does.
func (s *Store) FactFiles(ctx context.Context) (tokens.FactFiles, error) {
	if err := ctx.Err(); err != nil {
		return tokens.FactFiles{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sync(ctx); err != nil {
		return tokens.FactFiles{}, err
	}
	ff := tokens.FactFiles{Regular: s.sizes}
	s.odd = shrunk(s.odd, &s.oddPeak)
	for p := range s.odd {
		ff.Others = append(ff.Others, path.Base(p))
	}
	slices.Sort(ff.Others)
	return ff, nil
}
