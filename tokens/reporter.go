package tokens

// This file defines the Reporter: the token report of a working tree built
// again and again by a long-running server, from figures it keeps.

import (
	"context"
	"io/fs"
	"sync"
)

// FactFiles is what a caller that follows the memory folder knows of its
// fact files (.foundry/memory/fact-*.md, folders left out).
type FactFiles struct {
	// Regular measures the fact files that are regular files, each as
	// [BuildReport] measures one: its size, and [Estimate] of it.
	Regular FactsCost
	// Others are the names in the memory folder of the fact files that
	// are not regular files (symbolic links, named pipes), sorted: what a
	// link leads to can change with no event in the folder, and whether it
	// may be followed is the report's to decide, so the report measures
	// them itself, as BuildReport does.
	Others []string
}

// FactSource gives the fact files as they are now; *facts.Store is one.
type FactSource interface {
	FactFiles(ctx context.Context) (FactFiles, error)
}

// Reporter builds the token report of one working tree again and again,
// for a long-running server, at a cost that does not grow with the memory:
// the fact files come from a [FactSource] that follows them, and the event
// log is counted once, then only in the lines appended since the last
// report (see eventTail). The memory index is stated and the blackboard
// listed and each artifact stated on every call, as [BuildReport] does.
// Its reports equal BuildReport's. A Reporter is safe for concurrent use.
type Reporter struct {
	src FactSource

	mu   sync.Mutex // guards tail
	tail eventTail
}

// NewReporter returns a Reporter whose fact files come from src; with a
// nil src, they are listed on every call, as BuildReport lists them.
func NewReporter(src FactSource) *Reporter {
	return &Reporter{src: src}
}

// readEvents counts the events of the log of eventsFS on from the last
// count (see eventTail).
func (rp *Reporter) readEvents(eventsFS fs.FS) (EventCounts, error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.tail.read(eventsFS)
}
