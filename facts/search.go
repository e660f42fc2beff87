package facts

// This file defines memory_search: BM25 ranking over stemmed title, body and
// tags of active facts, and the seed's rendering of the hits.

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
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
}

// searchIndex holds postings for every fact that is not superseded; expiry
// and the type filter apply at query time because they depend on the clock
// and the query.
type searchIndex struct {
	docs     []int // index into snapshot.facts
	lengths  []float64
	avgLen   float64
	postings map[string][]posting
}

type posting struct {
	doc int // index into searchIndex.docs
	tf  float64
}

func buildSearchIndex(facts []Fact, memo map[string]string) *searchIndex {
	idx := &searchIndex{postings: map[string][]posting{}}
	total := 0.0
	for i, f := range facts {
		if f.Status == Superseded {
			continue
		}
		tf := map[string]float64{}
		length := 0.0
		add := func(text string, w float64) {
			for _, t := range termsMemo(text, memo) {
				tf[t] += w
				length += w
			}
		}
		add(f.Title, titleWeight)
		add(strings.Join(f.Tags, " "), tagWeight)
		add(f.Body, bodyWeight)
		doc := len(idx.docs)
		idx.docs = append(idx.docs, i)
		idx.lengths = append(idx.lengths, length)
		total += length
		// Deterministic posting order: terms sorted.
		ts := make([]string, 0, len(tf))
		for t := range tf {
			ts = append(ts, t)
		}
		sort.Strings(ts)
		for _, t := range ts {
			idx.postings[t] = append(idx.postings[t], posting{doc: doc, tf: tf[t]})
		}
	}
	if len(idx.docs) > 0 {
		idx.avgLen = total / float64(len(idx.docs))
	}
	return idx
}

// Search ranks the active facts (not superseded, not expired) against the
// query with BM25 and returns at most Limit hits, best first; ties go to the
// lower id. Words are case-folded and stemmed, so "Migrations" finds
// "migration". A fact matches when it shares at least one term with the
// query. A search that runs records a memory_search event.
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
	snap, err := s.load(ctx)
	if err != nil {
		return SearchResult{}, err
	}
	s.mu.Lock()
	if snap.search == nil {
		snap.search = buildSearchIndex(snap.facts, s.stems)
	}
	idx := snap.search
	s.mu.Unlock()

	res := rankFacts(snap.facts, idx, q, s.today())
	s.record(eventSearch)
	return res, nil
}

// rankFacts scores facts (indexed by idx) against a validated query.
func rankFacts(facts []Fact, idx *searchIndex, q Query, today string) SearchResult {
	res := SearchResult{Query: q.Text, Hits: []Hit{}}
	for _, f := range facts {
		if isActive(f, today) {
			res.Active++
		}
	}
	n := float64(len(idx.docs))
	scores := map[int]float64{}
	seen := map[string]bool{}
	for _, t := range terms(q.Text) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := idx.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			norm := bm25K1 * (1 - bm25B + bm25B*idx.lengths[p.doc]/idx.avgLen)
			scores[p.doc] += idf * p.tf * (bm25K1 + 1) / (p.tf + norm)
		}
	}
	for doc, score := range scores {
		f := facts[idx.docs[doc]]
		if !isActive(f, today) || (q.Type != "" && f.Type != q.Type) {
			continue
		}
		res.Hits = append(res.Hits, Hit{Fact: f, Score: math.Round(score*1e4) / 1e4})
	}
	sort.Slice(res.Hits, func(i, j int) bool {
		a, b := res.Hits[i], res.Hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if na, nb := IDNumber(a.ID), IDNumber(b.ID); na != nb {
			return na < nb
		}
		return a.Path < b.Path
	})
	if len(res.Hits) > q.Limit {
		res.Hits = res.Hits[:q.Limit]
	}
	return res
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
func (r SearchResult) Render() string {
	if len(r.Hits) == 0 {
		noun := "facts"
		if r.Active == 1 {
			noun = "fact"
		}
		return fmt.Sprintf("No stored fact matches %q. Memory holds %d active %s.\n", r.Query, r.Active, noun)
	}
	var b strings.Builder
	for i, h := range r.Hits {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(RenderFact(h.Fact))
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
