package facts

// This file keeps the ranking as it was before the live index, as the
// reference the live index must agree with: it copies every matching fact
// and sorts them all.

import (
	"math"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/internal/textdist"
)

// searchIndex holds postings for every fact that is not superseded; expiry
// and the type filter apply at query time because they depend on the clock
// and the query.
type refSearchIndex struct {
	docs     []int // index into snapshot.facts
	lengths  []float64
	avgLen   float64
	postings map[string][]refPosting
	stemOf   map[string]string // words as written that differ from their stem
}

type refPosting struct {
	doc int // index into searchIndex.docs
	tf  float64
}

func refBuildSearchIndex(facts []Fact, memo map[string]string) *refSearchIndex {
	idx := &refSearchIndex{postings: map[string][]refPosting{}, stemOf: map[string]string{}}
	total := 0.0
	for i, f := range facts {
		if f.Status == Superseded {
			continue
		}
		tf := map[string]float64{}
		length := 0.0
		add := func(text string, w float64) {
			eachTerm(text, memo, func(word, t string) {
				tf[t] += w
				length += w
				if word != t {
					idx.stemOf[word] = t
				}
			})
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
			idx.postings[t] = append(idx.postings[t], refPosting{doc: doc, tf: tf[t]})
		}
	}
	if len(idx.docs) > 0 {
		idx.avgLen = total / float64(len(idx.docs))
	}
	return idx
}

// refRankFacts scores facts (indexed by idx) against a validated query.
func refRankFacts(facts []Fact, idx *refSearchIndex, q Query, today string) SearchResult {
	res := SearchResult{Query: q.Text, Hits: []Hit{}, Type: q.Type}
	for _, f := range facts {
		if isActive(f, today) {
			res.Active++
		}
	}
	n := float64(len(idx.docs))
	scores := map[int]float64{}
	for _, qt := range refExpand(idx, q.Text) {
		ps := idx.postings[qt.term]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			// Rounded before it is added, as the live ranking rounds it:
			// no fused multiply-add on either side.
			norm := float64(bm25K1 * (1 - bm25B + bm25B*idx.lengths[p.doc]/idx.avgLen))
			scores[p.doc] += qt.weight * idf * p.tf * (bm25K1 + 1) / (p.tf + norm)
		}
	}
	unfiltered := 0
	for doc, score := range scores {
		f := facts[idx.docs[doc]]
		if !isActive(f, today) {
			continue
		}
		if q.Type != "" && f.Type != q.Type {
			unfiltered++
			continue
		}
		res.Hits = append(res.Hits, Hit{Fact: f, Score: math.Round(score*1e4) / 1e4})
	}
	if len(res.Hits) == 0 {
		res.Unfiltered = unfiltered
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

// The derivation of status the live state replaced, on a whole folder.

// refExpand is liveIndex.expand over the reference index, by brute force:
// the query's stems at weight 1, then the term of every vocabulary word (a
// term or a word as written) a query word (as typed or stemmed, of 4 runes
// or more) is a prefix of, then for each query word of 5 runes or more that
// matches no term, the term of every vocabulary word one edit away.
func refExpand(idx *refSearchIndex, q string) []queryTerm {
	var vocab []string
	for t := range idx.postings {
		vocab = append(vocab, t)
	}
	for w := range idx.stemOf {
		if _, ok := idx.postings[w]; !ok {
			vocab = append(vocab, w)
		}
	}
	sort.Strings(vocab)
	seen := map[string]bool{}
	var out []queryTerm
	add := func(v string, w float64) {
		for _, t := range []string{v, idx.stemOf[v]} {
			if len(idx.postings[t]) > 0 && !seen[t] {
				seen[t] = true
				out = append(out, queryTerm{t, w})
			}
		}
	}
	qws := queryWords(q)
	for _, w := range qws {
		if !seen[w.stem] {
			seen[w.stem] = true
			out = append(out, queryTerm{w.stem, 1})
		}
	}
	for _, w := range qws {
		for _, p := range []string{w.raw, w.stem} {
			if len([]rune(p)) < 4 {
				continue
			}
			for _, v := range vocab {
				if strings.HasPrefix(v, p) {
					add(v, prefixWeight)
				}
			}
		}
	}
	for _, w := range qws {
		if len(idx.postings[w.stem]) > 0 || len([]rune(w.raw)) < 5 || len([]rune(w.raw)) > maxTypoRunes {
			continue
		}
		for _, v := range vocab {
			if len([]rune(v)) > maxTypoRunes {
				continue
			}
			if textdist.Distance(w.stem, v, -1) <= 1 || textdist.Distance(w.raw, v, -1) <= 1 {
				add(v, typoWeight)
			}
		}
	}
	return out
}

func sortFacts(fs []Fact) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := IDNumber(fs[i].ID), IDNumber(fs[j].ID)
		if a != b {
			return a < b
		}
		return fs[i].Path < fs[j].Path
	})
}
