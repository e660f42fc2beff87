package facts

// This file defines the store of one opened project and the usage events
// that the store records itself, so that the CLI and the MCP server only
// parse, call and render.

import (
	"github.com/foundryhq/foundry/project"
	"github.com/foundryhq/foundry/tokens"
)

// Recorder receives one event per recorded operation; *tokens.Log is one.
type Recorder interface{ Record(kind string) }

// Open returns the store of project p with the project's configuration
// (memory.indexBudgetTokens, memoryRetrieval.maxFacts): writable on the
// working tree, read-only on a revision or the git index. opts supplies the
// rest (Warn, Now, Events); its Root, IndexBudget and SearchLimit are
// replaced by the project's.
func Open(p *project.Project, opts Options) *Store {
	opts.IndexBudget = p.Config.Memory.IndexBudgetTokens
	opts.SearchLimit = p.Config.MemoryRetrieval.MaxFacts
	if p.Writable() {
		opts.Cache = true
		return OpenDir(p.Root, opts)
	}
	opts.Root = ""
	return NewStore(p.FS, opts)
}

// SearchLimit is the number of hits a [Query] without a Limit returns.
func (s *Store) SearchLimit() int { return s.opts.SearchLimit }

func (s *Store) record(kind string) {
	if s.opts.Events != nil {
		s.opts.Events.Record(kind)
	}
}

// The kinds the store records, named here so the dependency on package
// tokens is visible in one place.
const (
	eventSearch = tokens.KindMemorySearch
	eventWrite  = tokens.KindMemoryWrite
)
