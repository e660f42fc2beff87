package facts

// This file defines memory_search: BM25 ranking over stemmed title, body and
// tags of active facts, and the seed's rendering of the hits.

import (
	"context"
	"fmt"
	"strings"

	"github.com/foundryhq/foundry/internal/gcpace"
	"github.com/foundryhq/foundry/internal/pause"
)

// Search limits: a store's default comes from config
// memoryRetrieval.maxFacts ([Options.SearchLimit]), DefaultLimit without one.
const (
	DefaultLimit = 8
	MaxLimit     = 25
)

// Field weights of the ranking: a query word in the title counts three times
// as much as one in the body, a tag twice.
const (
	titleWeight = 3
	tagWeight   = 2
	bodyWeight  = 1
	bm25K1      = 1.2
	bm25B       = 0.75
)

// Query is a memory_search request.
type Query struct {
	Text  string `json:"query"`
	Type  Type   `json:"type,omitempty"`  // only facts of this type; empty for all
	Limit int    `json:"limit,omitempty"` // 1–25; 0 means the store's SearchLimit
}

// Hit is one fact found by a search, with its score (higher is better).
type Hit struct {
	Fact
	Score float64 `json:"score"`
}

// SearchResult is the answer to a [Query].
type SearchResult struct {
	Query  string `json:"query"`
	Hits   []Hit  `json:"hits"`
	Active int    `json:"active"` // active facts in memory
	// Type is the type filter of the query, if any; Unfiltered counts the
	// active facts the query matches without it, when it found none.
	Type       Type `json:"type,omitempty"`
	Unfiltered int  `json:"unfiltered,omitempty"`
}

// Search ranks the active facts (not superseded, not expired) against the
// query with BM25 and returns at most Limit hits, best first; ties go to the
// lower id. Words are case-folded and stemmed, so "Migrations" finds
// "migration". A fact matches when it shares at least one term with the
// query, or a term a query word is a prefix of or one typo away from (see
// [liveIndex.expand]); those count for less. A query that is a fact's id
// returns that fact when it is active and of the type asked for, and no hit
// otherwise; an id no fact has is searched as words. A search that runs
// records a memory_search event.
func (s *Store) Search(ctx context.Context, q Query) (SearchResult, error) {
	q.Text = strings.TrimSpace(q.Text)
	switch {
	case q.Text == "":
		return SearchResult{}, ruleErr("query", "query is required")
	case q.Limit == 0:
		q.Limit = s.opts.SearchLimit
	case q.Limit < 1 || q.Limit > MaxLimit:
		return SearchResult{}, ruleErr("limit", "limit %d is out of range; use 1 to %d", q.Limit, MaxLimit)
	}
	if q.Type != "" && !q.Type.Valid() {
		return SearchResult{}, ruleErr("type", "unknown type %q; use one of %s", q.Type, typeList)
	}
	if err := ctx.Err(); err != nil {
		return SearchResult{}, err
	}
	res, err := s.rank(ctx, q)
	if err != nil {
		return SearchResult{}, err
	}
	s.record(eventSearch)
	return res, nil
}

// rank brings the live index up to date and ranks a validated query. When
// the watcher has no pending event and the index is ready for the query,
// nothing needs changing: the search ranks under the lock held for reading,
// side by side with other searches. Otherwise it brings the live state up
// to date and ranks under the lock held for writing.
func (s *Store) rank(ctx context.Context, q Query) (SearchResult, error) {
	s.mu.RLock()
	if s.current(q.Text) {
		defer s.mu.RUnlock()
		pause.Point(ctx, "facts.ranking")
		return s.rankOn(q, s.idx.rankReady), nil
	}
	s.mu.RUnlock()
	s.mu.Lock()
	if s.opts.Cache && !s.cacheTried && s.idx == nil && !ValidID(strings.ToLower(q.Text)) {
		return s.rankFirst(ctx, q)
	}
	defer s.mu.Unlock()
	if s.idx == nil { // the first search builds the live state and the index
		defer gcpace.Linger(gcpace.Pause())
	}
	if err := s.sync(ctx); err != nil {
		return SearchResult{}, err
	}
	s.indexAll()
	return s.rankLocked(q), nil
}

// rankFirst is the first search of a store that keeps the persisted
// cache, by id number or not: it builds the live state on a goroutine of
// its own, which holds s.mu, taken by the caller, until the state is
// complete. When the cache proves to be the live state as it stands (see
// Store.whole), the search is answered from the cache's index as soon as
// the listing of the memory folder proves that; linking the facts by id,
// supersession and order follows the answer, while every other call waits
// for the lock. A search by id reads those links, so rank never comes here
// for one.
func (s *Store) rankFirst(ctx context.Context, q Query) (SearchResult, error) {
	type outcome struct {
		res      SearchResult
		err      error
		panicked any
	}
	answered := make(chan outcome, 1)
	sent := false
	s.early = func() {
		o := outcome{res: s.rankLocked(q)} // may panic: then no answer has gone
		sent = true
		answered <- o
		pause.Point(ctx, "facts.early-answered")
	}
	go func() {
		defer s.mu.Unlock()
		defer func() {
			if p := recover(); p != nil {
				// The live state is half built: the next call scans
				// the folder again, from nothing. The caller panics as
				// rank would have, unless the answer has gone.
				s.forget()
				if !sent {
					answered <- outcome{panicked: p}
				}
			}
		}()
		// The pause ends when the live state is complete. An answer
		// given early was written without waiting for it: lingering
		// then would outlast it until the server's next message, which
		// may never come. Otherwise the pause lingers, and must be
		// lingering before the answer leaves: the server releases what
		// lingers once it has written the answer.
		resume, lingering := gcpace.Pause(), false
		defer func() {
			if !lingering {
				resume()
			}
		}()
		err := s.sync(ctx)
		s.early = nil
		if sent {
			pause.Point(ctx, "facts.after-early-answer")
			s.saveCache(context.WithoutCancel(ctx))
			return
		}
		var o outcome
		if o.err = err; err == nil {
			s.indexAll()
			o.res = s.rankLocked(q)
			s.saveCache(ctx)
		}
		lingering = true
		gcpace.Linger(resume)
		answered <- o
		pause.Point(ctx, "facts.after-answer")
	}()
	o := <-answered
	if o.panicked != nil {
		panic(o.panicked)
	}
	return o.res, o.err
}

// current reports whether the live state is up to date and a search for
// query q would change nothing: a working watcher with no pending event
// and no scan owed for events a failed sync drained, no fact file that
// is a link or has other names (read on every call, see sync), the index
// built and prepared for q, no cache left to save. The caller holds s.mu,
// for reading at least.
func (s *Store) current(query string) bool {
	return s.w != nil && s.synced && !s.resync && len(s.pending) == 0 && len(s.links) == 0 && s.idx != nil && s.idx.ready(query) &&
		!s.cacheDue() && s.w.quiet()
}

// rankLocked ranks q on the live index, preparing it for q; the caller
// holds s.mu for writing.
func (s *Store) rankLocked(q Query) SearchResult {
	return s.rankOn(q, s.idx.rank)
}

// rankOn ranks q by id, or with rank: s.idx.rank under s.mu held for
// writing, s.idx.rankReady under s.mu held for reading once s.current(q)
// said so.
func (s *Store) rankOn(q Query, rank func(Query, string) SearchResult) SearchResult {
	today := s.today()
	if id := strings.ToLower(q.Text); ValidID(id) {
		if list := s.byID[id]; len(list) > 0 {
			// The query names a fact: it answers that fact or nothing, not
			// the facts that contain the word "fact". Only an active fact
			// answers: a superseded, retired or expired one is out of
			// search however it is asked for.
			res := SearchResult{Query: q.Text, Hits: []Hit{}, Active: s.idx.active(today), Type: q.Type}
			for _, e := range list {
				switch {
				case !e.active(today):
				case q.Type == "" || e.raw.Type == q.Type:
					res.Hits, res.Unfiltered = []Hit{{Fact: e.fact()}}, 0
					return res
				default:
					res.Unfiltered = 1 // without the filter the id answers its fact
				}
			}
			return res
		}
	}
	return rank(q, today)
}

// indexAll builds the search index on first use; from then on every change
// updates it. The caller holds s.mu.
func (s *Store) indexAll() {
	if s.idx != nil {
		return
	}
	s.idx = newLiveIndex()
	s.idx.postings = make(map[string]*postingList, len(s.stems)+len(s.sorted))
	s.idx.docs = make([]*entry, 0, len(s.sorted))
	for _, list := range s.byID {
		for _, e := range list {
			if e.current() {
				s.idx.add(e, s.stems)
			}
		}
	}
}

// Vocabulary returns the search terms of the facts that are not superseded,
// sorted: what a query word can match after case folding and stemming.
func (s *Store) Vocabulary(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	s.indexAll()
	return s.idx.terms(), nil
}

// Render returns the seed's text answer: one block per hit, blank lines
// between blocks,
//
//	### fact-0004 · decision · confidence high
//	**Persistence layer uses Flyway, not Liquibase**
//	Chosen for the plain-SQL migration format the team already reads.
//	_source: adr-0007 · scope: project_
//
// or, with no hits, `No stored fact matches "<query>". Memory holds N active
// facts.` The text ends with a newline.
func (r SearchResult) Render() string { return r.RenderWith(RenderFact) }

// RenderWith is [SearchResult.Render] with block rendering each hit's block
// (RenderFact, or a cached form of it).
func (r SearchResult) RenderWith(block func(Fact) string) string {
	if len(r.Hits) == 0 {
		noun := "facts"
		if r.Active == 1 {
			noun = "fact"
		}
		if r.Type != "" {
			return fmt.Sprintf("No stored %s fact matches %q; without the type filter %d %s. Memory holds %d active %s.\n",
				r.Type, r.Query, r.Unfiltered, plural(r.Unfiltered, "fact matches", "facts match"), r.Active, noun)
		}
		return fmt.Sprintf("No stored fact matches %q. Memory holds %d active %s.\n", r.Query, r.Active, noun)
	}
	var b strings.Builder
	for i, h := range r.Hits {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(block(h.Fact))
	}
	return b.String()
}

// RenderFact returns the seed's block for one fact, ending with a newline.
func RenderFact(f Fact) string {
	conf := f.Confidence
	if conf == "" {
		conf = DefaultConfidence
	}
	scope := f.Scope
	if scope == "" {
		scope = DefaultScope
	}
	source := f.Source
	if source == "" {
		source = DefaultSource
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### %s · %s · confidence %s\n", f.ID, f.Type, conf)
	fmt.Fprintf(&b, "**%s**\n", strings.Join(strings.Fields(f.Title), " "))
	if f.Body != "" {
		b.WriteString(f.Body + "\n")
	}
	fmt.Fprintf(&b, "_source: %s · scope: %s_\n", source, scope)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
