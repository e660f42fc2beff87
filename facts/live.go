package facts

// This file defines the live state of a Store: one entry per parsed fact
// file, supersession derived link by link, and an inverted index updated one
// fact at a time. A change costs work in proportion to the facts it touches;
// a search with no change costs nothing in proportion to the corpus.

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/textdist"
)

// entry is one parsed fact file.
type entry struct {
	raw Fact // as the file states it, with Path
	// status and supersededBy are derived (see Store.settle): fact() is
	// raw with them. Only they can differ, so they are all an entry keeps
	// of its derived fact.
	status       Status
	supersededBy string
	idnum        int
	slot         int32     // slot in the search index; -1 when not indexed
	an           *analysis // search terms, computed when first indexed

	ix      *keyedEntry // its INDEX.md line and order, computed when first needed
	inOrder bool        // in Store.ixOrder
	// Set when it joins Store.byTitle: normTitle of its title, its title
	// terms (sortedTerms) and its place in each of their lists.
	norm   string
	tterms []string
	tpos   []int32
}

func newEntry(f Fact) *entry {
	return &entry{raw: f, status: f.Status, supersededBy: f.SupersededBy, idnum: IDNumber(f.ID), slot: -1}
}

// fact returns the fact with its derived status.
func (e *entry) fact() Fact {
	f := e.raw
	f.Status, f.SupersededBy = e.status, e.supersededBy
	return f
}

// current reports whether the fact, as derived, is neither superseded nor
// retired (Fact.current of fact()).
func (e *entry) current() bool { return e.status.current() }

// active reports whether the fact, as derived, is current and not expired
// on today (isActive of fact()).
func (e *entry) active(today string) bool { return e.current() && !e.raw.Expired(today) }

// before is the order of facts everywhere: id number, then path.
func (e *entry) before(o *entry) bool {
	if e.idnum != o.idnum {
		return e.idnum < o.idnum
	}
	return e.raw.Path < o.raw.Path
}

// analysis is what the index keeps of one fact: weighted term frequencies,
// the document length, and the words of the fact as written whose stem is
// another string ("staging" of the term "stage"): people type a word's
// beginning or a typo of the word they see, not of its stem, so the
// forgiving matches compare against these and score their stems.
type analysis struct {
	terms  []termTF // sorted by term
	length float64
	forms  []form // sorted by word, distinct
}

// form is a word of a fact as written that differs from its term.
type form struct {
	word string
	term int32 // index of its term in analysis.terms
}

type termTF struct {
	term string
	tf   float64
}

func analyze(f Fact, memo map[string]string) *analysis {
	tf := map[string]float64{}
	forms := map[string]string{} // word → stem
	a := &analysis{}
	add := func(text string, w float64) {
		eachTerm(text, memo, func(word, stem string) {
			tf[stem] += w
			a.length += w
			if word != stem {
				forms[word] = stem
			}
		})
	}
	add(f.Title, titleWeight)
	add(strings.Join(f.Tags, " "), tagWeight)
	add(f.Body, bodyWeight)
	a.terms = make([]termTF, 0, len(tf))
	for t, n := range tf {
		a.terms = append(a.terms, termTF{t, n})
	}
	sort.Slice(a.terms, func(i, j int) bool { return a.terms[i].term < a.terms[j].term })
	if len(forms) > 0 {
		a.forms = make([]form, 0, len(forms))
		for w, stem := range forms {
			i, _ := slices.BinarySearchFunc(a.terms, stem, func(t termTF, s string) int { return strings.Compare(t.term, s) })
			a.forms = append(a.forms, form{w, int32(i)})
		}
		sort.Slice(a.forms, func(i, j int) bool { return a.forms[i].word < a.forms[j].word })
	}
	return a
}

// linkEntry adds a parsed entry to the id and supersession maps and marks the
// ids whose derived status it may change.
func (s *Store) linkEntry(e *entry) {
	id := e.raw.ID
	list := s.byID[id]
	switch {
	case list == nil && s.bulk != nil:
		s.byID[id] = s.bulk.one(e)
	default:
		i := sort.Search(len(list), func(i int) bool { return list[i].raw.Path >= e.raw.Path })
		s.byID[id] = slices.Insert(list, i, e)
	}
	if s.bulk != nil {
		s.sorted = append(s.sorted, e) // sorted once when the scan ends
		s.bulk.unsorted = true
	} else {
		j := sort.Search(len(s.sorted), func(j int) bool { return !s.sorted[j].before(e) })
		s.sorted = slices.Insert(s.sorted, j, e)
	}
	s.pending[id] = true
	if t := e.raw.Supersedes; t != "" && t != id {
		s.supers[t] = append(s.supers[t], e)
		s.pending[t] = true
	}
	if s.byTitle != nil {
		s.byTitle.add(e, s.title(e.raw.Title))
	}
}

// bulkLink is the state of a first scan, which links every fact of the
// folder at once: the facts by id number are sorted once at its end rather
// than inserted one by one, the facts unlinked are taken out of that order
// in one pass, and the one-fact lists of ids share arrays.
type bulkLink struct {
	slab     []*entry
	gone     map[*entry]bool // unlinked, still in Store.sorted
	unsorted bool            // Store.sorted has had facts appended
}

// endBulk ends a bulk link: Store.sorted loses the facts unlinked and is
// sorted. The caller holds s.mu.
func (s *Store) endBulk() {
	b := s.bulk
	if b == nil {
		return
	}
	s.bulk = nil
	if len(b.gone) > 0 {
		s.sorted = slices.DeleteFunc(s.sorted, func(e *entry) bool { return b.gone[e] })
	}
	if b.unsorted {
		slices.SortFunc(s.sorted, entryOrder)
	}
}

// one returns a list of e alone, with no room to grow in place.
func (b *bulkLink) one(e *entry) []*entry {
	if len(b.slab) == cap(b.slab) {
		b.slab = make([]*entry, 0, 4096)
	}
	b.slab = append(b.slab, e)
	k := len(b.slab)
	return b.slab[k-1 : k : k]
}

// unlinkEntry removes an entry that linkEntry added, and takes it out of the index.
func (s *Store) unlinkEntry(e *entry) {
	id := e.raw.ID
	s.byID[id] = slices.DeleteFunc(s.byID[id], func(x *entry) bool { return x == e })
	if s.bulk != nil {
		if s.bulk.gone == nil {
			s.bulk.gone = map[*entry]bool{}
		}
		s.bulk.gone[e] = true
	} else if j := sort.Search(len(s.sorted), func(j int) bool { return !s.sorted[j].before(e) }); j < len(s.sorted) && s.sorted[j] == e {
		s.sorted = slices.Delete(s.sorted, j, j+1)
	}
	if len(s.byID[id]) == 0 {
		delete(s.byID, id)
	}
	s.pending[id] = true
	if t := e.raw.Supersedes; t != "" && t != id {
		s.supers[t] = slices.DeleteFunc(s.supers[t], func(x *entry) bool { return x == e })
		if len(s.supers[t]) == 0 {
			delete(s.supers, t)
		}
		s.pending[t] = true
	}
	if s.byTitle != nil {
		s.byTitle.remove(e)
	}
	if s.idx != nil && e.slot >= 0 {
		s.idx.remove(e)
	}
	if e.inOrder {
		s.ixOrder.remove(e)
	}
}

// settle re-derives the status of every fact whose id a change touched and
// keeps the index to the facts that are not superseded. It is what
// [DeriveStatus] computes for the whole folder, restricted to the changed
// links.
func (s *Store) settle() {
	for id := range s.pending {
		winner := ""
		var best *entry
		for _, e := range s.supers[id] {
			if best == nil || e.before(best) {
				best = e
			}
		}
		if best != nil {
			winner = best.raw.ID
		}
		for _, e := range s.byID[id] {
			e.status, e.supersededBy = deriveStatus(e.raw.Status, e.raw.SupersededBy, winner)
			indexed := e.current()
			if s.ixOrder != nil && indexed != e.inOrder {
				if indexed {
					s.ixOrder.add(e)
				} else {
					s.ixOrder.remove(e)
				}
			}
			if s.idx == nil {
				continue
			}
			switch {
			case indexed && e.slot < 0:
				s.idx.add(e, s.stems)
			case !indexed && e.slot >= 0:
				s.idx.remove(e)
			}
		}
	}
	s.pending = emptied(s.pending)
}

// emptied returns m emptied. A map keeps the table its largest content
// needed, and ranging over it or clearing it costs the table's size, not
// its content's: a map that held every fact of a scan is replaced, so that
// the next small change is not charged for the whole memory.
func emptied[K comparable, V any](m map[K]V) map[K]V {
	if len(m) > emptiedInPlace {
		return make(map[K]V)
	}
	clear(m)
	return m
}

// emptiedInPlace is the most entries a map emptied by [emptied] may hold to
// keep its table.
const emptiedInPlace = 64

// shrunk returns m, or a copy of m when it holds under a quarter of the
// most entries it held (*peak, which it keeps up to date, as its callers
// do where a scan fills m): for a map that a call ranges over, so that a
// scan or a burst of events that once filled it does not charge every later
// call for a table sized for them (see [emptied]).
func shrunk[K comparable, V any](m map[K]V, peak *int) map[K]V {
	*peak = max(*peak, len(m))
	if *peak <= emptiedInPlace || len(m) >= *peak/4 {
		return m
	}
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	*peak = len(c)
	return c
}

// liveIndex is the inverted index of the facts that are not superseded.
// Slots of removed facts stay empty until enough of them pile up to be worth
// compacting, so a removal touches only the removed fact's terms.
type liveIndex struct {
	docs     []*entry // by slot; nil once removed
	dead     int      // nil slots
	postings map[string]*postingList
	n        int     // indexed facts
	total    float64 // sum of their lengths
	expiries map[string]int

	// lens is the document length by slot. A search computes each
	// touched fact's BM25 length norm from it and the average length as
	// they are then: norms kept by slot would all change with the average
	// on every change, and be recomputed for the whole memory by the next
	// search.
	lens []float64

	// forms maps each word of the indexed facts as written that differs
	// from its term to the term. Like postings, it keeps the words of
	// removed facts, with no live fact, until the next compaction.
	forms map[string]*formRef

	// vocab is every term with a posting list and every word of forms,
	// sorted: what a query word's prefix or typo is matched against. nil
	// when stale.
	vocab []string
	// memo is the word → stem memo of the store, for analysing facts.
	memo map[string]string

	// deletions maps each word of vocab, and each form of it with one rune
	// deleted, to the words it comes from: two words one edit apart share a
	// key (SymSpell), so a typo is looked up, not scanned for. Built by
	// prepare, under the store's lock held for writing, once
	// typoScansBeforeMap queries have scanned the vocabulary for their
	// typos; nil until then, and when stale.
	deletions map[string][]string
	// typoScans counts the queries that scanned the vocabulary for typos,
	// searches under the read lock among them. It is not reset when a
	// compaction drops the map: typos having proved common, the next query
	// with one builds it again.
	typoScans atomic.Int64
}

// formRef is the term of a word as written and the number of indexed facts
// that contain the word.
type formRef struct {
	term string
	live int
}

type postingList struct {
	ps   []posting
	live int // postings of slots still in use: the document frequency
}

type posting struct {
	slot int32
	tf   float32 // a sum of small integer field weights, exact in float32
}

func newLiveIndex() *liveIndex {
	return &liveIndex{postings: map[string]*postingList{}, forms: map[string]*formRef{}, expiries: map[string]int{}}
}

func (x *liveIndex) add(e *entry, memo map[string]string) {
	if x.memo == nil {
		x.memo = memo
	}
	x.analysis(e)
	e.slot = int32(len(x.docs))
	x.docs = append(x.docs, e)
	x.lens = append(x.lens, e.an.length)
	x.insert(e)
	x.n++
	x.total += e.an.length
	if e.raw.Expires != "" {
		x.expiries[e.raw.Expires]++
	}
}

func (x *liveIndex) insert(e *entry) {
	for _, t := range e.an.terms {
		pl := x.postings[t.term]
		if pl == nil {
			pl = &postingList{}
			x.postings[t.term] = pl
			x.addTerm(t.term)
		}
		pl.ps = append(pl.ps, posting{slot: e.slot, tf: float32(t.tf)})
		pl.live++
	}
	for _, f := range e.an.forms {
		r := x.forms[f.word]
		if r == nil {
			r = &formRef{term: e.an.terms[f.term].term}
			x.forms[f.word] = r
			x.addTerm(f.word)
		}
		r.live++
	}
}

// addTerm adds a new term or word as written to the sorted vocabulary and
// the typo lookup, where they are built, in the places a rebuild would give
// it: one fact's new words cost no rebuild of either. A string already
// there (a word that is also another word's term) is not added twice.
func (x *liveIndex) addTerm(term string) {
	if x.vocab != nil {
		i, found := slices.BinarySearch(x.vocab, term)
		if found {
			return
		}
		x.vocab = slices.Insert(x.vocab, i, term)
	}
	if x.deletions != nil && typoSized(term) {
		for _, d := range deletionForms(term) {
			list := x.deletions[d]
			if i, found := slices.BinarySearch(list, term); !found {
				x.deletions[d] = slices.Insert(list, i, term)
			}
		}
	}
}

// analysis returns the search terms of an indexed fact. A fact indexed
// from the persisted cache has none until it leaves the index: its terms
// are those of its unchanged text, computed again.
func (x *liveIndex) analysis(e *entry) *analysis {
	if e.an == nil {
		if x.memo == nil {
			x.memo = map[string]string{}
		}
		e.an = analyze(e.raw, x.memo)
	}
	return e.an
}

func (x *liveIndex) remove(e *entry) {
	an := x.analysis(e)
	// A posting list or word is missing only when a cache file was made to
	// disagree with its facts; that must not panic.
	for _, t := range an.terms {
		if pl := x.postings[t.term]; pl != nil {
			pl.live--
		}
	}
	for _, f := range an.forms {
		if r := x.forms[f.word]; r != nil {
			r.live--
		}
	}
	x.total -= x.lens[e.slot]
	x.docs[e.slot] = nil
	e.slot = -1
	x.dead++
	x.n--
	if e.raw.Expires != "" {
		if x.expiries[e.raw.Expires]--; x.expiries[e.raw.Expires] == 0 {
			delete(x.expiries, e.raw.Expires)
		}
	}
	if x.dead > 1024 && x.dead*2 > len(x.docs) {
		x.compact()
	}
}

// compact renumbers the slots densely and drops the postings of removed
// facts, keeping each list in slot order; no fact is analysed again.
func (x *liveIndex) compact() {
	remap := make([]int32, len(x.docs))
	docs, lens := make([]*entry, 0, x.n), make([]float64, 0, x.n)
	for slot, e := range x.docs {
		remap[slot] = -1
		if e != nil {
			remap[slot] = int32(len(docs))
			e.slot = int32(len(docs))
			docs = append(docs, e)
			lens = append(lens, x.lens[slot])
		}
	}
	x.docs, x.lens, x.dead = docs, lens, 0
	for t, pl := range x.postings {
		ps := pl.ps[:0]
		for _, p := range pl.ps {
			if r := remap[p.slot]; r >= 0 {
				ps = append(ps, posting{slot: r, tf: p.tf})
			}
		}
		if len(ps) == 0 {
			delete(x.postings, t)
			continue
		}
		pl.ps, pl.live = ps, len(ps)
	}
	for w, r := range x.forms {
		if r.live <= 0 {
			delete(x.forms, w)
		}
	}
	x.vocab, x.deletions = nil, nil // rebuilt by the next query that needs them, not word by word now
}

// active is the number of indexed facts not expired on today.
func (x *liveIndex) active(today string) int {
	n := x.n
	for d, c := range x.expiries {
		if d < today {
			n -= c
		}
	}
	return n
}

// terms returns the vocabulary of the indexed facts, sorted.
func (x *liveIndex) terms() []string {
	out := make([]string, 0, len(x.postings))
	for t, pl := range x.postings {
		if pl.live > 0 {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// hitRef is a candidate hit during ranking.
type hitRef struct {
	e     *entry
	score float64 // rounded as reported
}

// better is the order of hits: higher score, then lower id number, then
// path.
func better(a, b hitRef) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.e.before(b.e)
}

// prepare computes what ranking q reads but does not keep current as the
// index changes: the sorted vocabulary and, when a word of q can only match
// by a typo and typoScansBeforeMap queries have scanned for typos, the
// deletion map. After it, rankReady(q) only reads the index, so searches
// can run side by side under a read lock; a change keeps both current (see
// addTerm), until a compaction drops them. The caller holds the store's
// lock for writing.
func (x *liveIndex) prepare(q string) {
	x.buildVocab()
	if x.typoScans.Load() >= typoScansBeforeMap && x.needsTypos(queryWords(q)) {
		x.buildDeletions()
	}
}

// ready reports whether rankReady(q) may run under the store's lock held
// for reading: the vocabulary is current, and a typo in q is looked up in
// the deletion map, or scanned for until the map is due (see
// typoScansBeforeMap). The caller holds the store's lock.
func (x *liveIndex) ready(q string) bool {
	return x.vocab != nil && (x.deletions != nil || x.typoScans.Load() < typoScansBeforeMap || !x.needsTypos(queryWords(q)))
}

// rankScratch holds the per-search score arrays, so searches running side
// by side each have their own without allocating them on every call.
var rankScratch = sync.Pool{New: func() any { return new(scratch) }}

type scratch struct {
	scores  []float64 // by slot; all zero between searches
	touched []int32
}

// rank prepares the index for a validated query (see prepare) and ranks
// it (see rankReady). The caller holds the store's lock for writing.
func (x *liveIndex) rank(q Query, today string) SearchResult {
	x.prepare(q.Text)
	return x.rankReady(q, today)
}

// rankReady scores the indexed facts against a validated query with BM25
// and keeps the best q.Limit in a bounded heap. It only reads the index
// (the count of typo scans aside, an atomic), so a caller that found
// ready(q.Text) holding the store's lock for reading may call it under that
// lock: it never prepares, since what prepare would do can change while
// it holds the lock (another search's typo scan may take the count to
// typoScansBeforeMap).
func (x *liveIndex) rankReady(q Query, today string) SearchResult {
	res := SearchResult{Query: q.Text, Hits: []Hit{}, Active: x.active(today), Type: q.Type}
	if x.n == 0 {
		return res
	}
	sc := rankScratch.Get().(*scratch)
	defer rankScratch.Put(sc)
	if n := len(x.docs) - len(sc.scores); n > 0 {
		// Grown by append, so adding facts one at a time reallocates
		// rarely; scores are all zero between searches.
		sc.scores = append(sc.scores, make([]float64, n)...)
	}
	n := float64(x.n)
	avgLen := x.total / n
	scores, touched := sc.scores, sc.touched[:0]
	for _, qt := range x.expand(q.Text) {
		pl := x.postings[qt.term]
		if pl == nil || pl.live == 0 {
			continue
		}
		df := float64(pl.live)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range pl.ps {
			if x.docs[p.slot] == nil {
				continue
			}
			if scores[p.slot] == 0 { // every term adds a positive amount
				touched = append(touched, p.slot)
			}
			tf := float64(p.tf)
			// The conversion rounds the norm before it is added, as a
			// norm kept in memory was: no fused multiply-add.
			norm := float64(bm25K1 * (1 - bm25B + bm25B*x.lens[p.slot]/avgLen))
			scores[p.slot] += qt.weight * idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	heap := make([]hitRef, 0, q.Limit)
	for _, slot := range touched {
		score := scores[slot]
		scores[slot] = 0
		e := x.docs[slot]
		if !e.active(today) {
			continue
		}
		if q.Type != "" && e.raw.Type != q.Type {
			res.Unfiltered++
			continue
		}
		h := hitRef{e: e, score: math.Round(score*1e4) / 1e4}
		switch {
		case len(heap) < q.Limit:
			heap = append(heap, h)
			siftUp(heap, len(heap)-1)
		case better(h, heap[0]):
			heap[0] = h
			siftDown(heap, 0)
		}
	}
	sc.touched = touched[:0]
	sort.Slice(heap, func(i, j int) bool { return better(heap[i], heap[j]) })
	for _, h := range heap {
		res.Hits = append(res.Hits, Hit{Fact: h.e.fact(), Score: h.score})
	}
	if len(res.Hits) > 0 {
		res.Unfiltered = 0 // only said when the filter left nothing
	}
	return res
}

// The forgiving matches of a query word: a word of the facts it is a
// prefix of, from minPrefixRunes runes ("postgres" finds "postgresql",
// "stagin" finds "staging"), and, for a word of minTypoRunes runes or more
// that matches no term as it is, a word one edit away (Damerau–Levenshtein:
// "webhok" finds "webhook", "stagibg" finds "staging"), both words of at most
// maxTypoRunes runes. The words matched
// are the facts' terms and their words as written; a match scores the
// term. They count for less than the word itself, so exact and stemmed
// matches rank first.
const (
	minPrefixRunes = 4
	minTypoRunes   = 5
	maxTypoRunes   = 32
	prefixWeight   = 0.5
	typoWeight     = 0.4
)

// queryTerm is a term a query searches for, with the weight of its matches.
type queryTerm struct {
	term   string
	weight float64
}

// expand returns the terms of query q: its own stemmed terms with weight 1,
// then the terms of the words they are prefixes of, then the terms of the
// typo matches of the words that match nothing. Each term appears once, at
// its best weight.
func (x *liveIndex) expand(q string) []queryTerm {
	qws := queryWords(q)
	seen := make(map[string]bool, len(qws))
	var out []queryTerm
	add := func(t string, w float64) {
		if !seen[t] {
			seen[t] = true
			out = append(out, queryTerm{t, w})
		}
	}
	// match adds the terms a vocabulary word stands for: itself when it is
	// a term, the term of its written form when it is one.
	match := func(v string, w float64) {
		if _, ok := x.postings[v]; ok {
			add(v, w)
		}
		if r := x.forms[v]; r != nil && r.live > 0 {
			add(r.term, w)
		}
	}
	for _, w := range qws {
		add(w.stem, 1)
	}
	x.buildVocab()
	for _, w := range qws {
		for _, p := range []string{w.raw, w.stem} {
			if utf8.RuneCountInString(p) < minPrefixRunes {
				continue
			}
			for i := sort.SearchStrings(x.vocab, p); i < len(x.vocab) && strings.HasPrefix(x.vocab[i], p); i++ {
				match(x.vocab[i], prefixWeight)
			}
		}
	}
	scanned := false
	for _, w := range qws {
		if !x.typoWord(w) {
			continue
		}
		if x.deletions == nil && !scanned {
			scanned = true
			x.typoScans.Add(1)
		}
		words := []string{w.stem, w.raw}
		if w.raw == w.stem {
			words = words[:1] // the second would match nothing new
		}
		for _, word := range words {
			for _, v := range x.typoMatches(word) {
				match(v, typoWeight)
			}
		}
	}
	return out
}

// typoScansBeforeMap is the number of queries whose typos are looked up by
// scanning the vocabulary before the deletion map is built: a scan costs
// one comparison per word, the map about ten allocations per word and
// tens of megabytes, so a one-shot process (a CLI search, a fresh server's
// first searches) never builds it, and a server builds it once typos prove
// common.
const typoScansBeforeMap = 8

// typoMatches returns the words of the vocabulary one edit away from word
// (see textdist.WithinOne), of at most maxTypoRunes runes, in the order
// the deletion map lists them: by the first of word's deletion forms they
// share, then in vocabulary order. Without the map it scans the
// vocabulary for them.
func (x *liveIndex) typoMatches(word string) []string {
	var out []string
	if x.deletions != nil {
		for _, d := range deletionForms(word) {
			for _, v := range x.deletions[d] {
				if textdist.WithinOne(word, v) {
					out = append(out, v)
				}
			}
		}
		return out
	}
	type found struct {
		v         string
		form, pos int
	}
	var fs []found
	forms := deletionForms(word)
	ascii := textdist.IsASCII(word)
	runes := utf8.RuneCountInString(word)
	for pos, v := range x.vocab {
		near := false
		if ascii && textdist.IsASCII(v) {
			near = len(v) <= maxTypoRunes && textdist.WithinOneASCII(word, v)
		} else if n := utf8.RuneCountInString(v); n <= maxTypoRunes && n >= runes-1 && n <= runes+1 {
			near = textdist.WithinOne(word, v)
		}
		if !near {
			continue
		}
		// Two words one edit apart share a deletion form; the map lists
		// v under each of them.
		vf := deletionForms(v)
		if i := slices.IndexFunc(forms, func(d string) bool { return slices.Contains(vf, d) }); i >= 0 {
			fs = append(fs, found{v, i, pos})
		}
	}
	slices.SortFunc(fs, func(a, b found) int {
		if a.form != b.form {
			return a.form - b.form
		}
		return a.pos - b.pos
	})
	for _, f := range fs {
		out = append(out, f.v)
	}
	return out
}

// typoWord reports whether query word w is looked up one typo away: it is
// long enough and matches no term as it is.
func (x *liveIndex) typoWord(w queryWord) bool {
	pl := x.postings[w.stem]
	n := utf8.RuneCountInString(w.raw)
	return (pl == nil || pl.live == 0) && n >= minTypoRunes && n <= maxTypoRunes
}

// needsTypos reports whether any of the query words is looked up one typo
// away, so ranking them needs the deletion map.
func (x *liveIndex) needsTypos(qws []queryWord) bool {
	return slices.ContainsFunc(qws, x.typoWord)
}

// buildVocab sorts the vocabulary, terms and words as written, when a
// change left it stale.
func (x *liveIndex) buildVocab() {
	if x.vocab != nil {
		return
	}
	x.vocab = make([]string, 0, len(x.postings)+len(x.forms))
	for t := range x.postings {
		x.vocab = append(x.vocab, t)
	}
	for w := range x.forms {
		if _, ok := x.postings[w]; !ok {
			x.vocab = append(x.vocab, w)
		}
	}
	sort.Strings(x.vocab)
}

// buildDeletions builds the deletion map of the vocabulary, when a change
// left it stale.
func (x *liveIndex) buildDeletions() {
	if x.deletions != nil {
		return
	}
	x.buildVocab()
	x.deletions = make(map[string][]string, len(x.vocab)*8)
	for _, t := range x.vocab {
		if !typoSized(t) {
			continue
		}
		for _, d := range deletionForms(t) {
			x.deletions[d] = append(x.deletions[d], t)
		}
	}
}

// typoSized reports whether a word takes part in typo matching: a word of n
// runes has n+1 deletion keys of about n bytes each, so one 60,000-rune word
// in a fact would cost gigabytes; words longer than maxTypoRunes are matched
// as they are and by prefix only.
func typoSized(s string) bool {
	return utf8.RuneCountInString(s) <= maxTypoRunes
}

// deletionForms returns s and every distinct form of s with one rune
// deleted: deleting either rune of a doubled pair gives one form, listed
// once, so a word is listed once under each key.
func deletionForms(s string) []string {
	out := []string{s}
	prev := utf8.RuneError
	for i, r := range s {
		if i == 0 || r != prev {
			out = append(out, s[:i]+s[i+utf8.RuneLen(r):])
		}
		prev = r
	}
	return out
}

// The heap keeps the worst of the best hits at its root.

func siftUp(h []hitRef, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func siftDown(h []hitRef, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// candidates returns, in id order, the indexed facts that may have a title
// term set whose Jaccard index with set, a sorted term set, reaches t: those
// sharing one of set's rarest terms. A title reaching t shares at least
// ⌈t·|set|⌉ of set's terms, so it misses at most |set| − ⌈t·|set|⌉ of them
// and holds one of any |set| − ⌈t·|set|⌉ + 1; the rarest have the shortest
// posting lists. Title terms are a fact's terms, so every such fact has a
// posting.
func (x *liveIndex) candidates(set []string, t float64) []*entry {
	if len(set) == 0 {
		return nil // the Jaccard index with an empty set is 0
	}
	probe, all := x.probe(set, t)
	if all {
		var out []*entry
		for _, e := range x.docs {
			if e != nil {
				out = append(out, e)
			}
		}
		slices.SortFunc(out, entryOrder)
		return out
	}
	var slots []int32
	for _, pl := range probe {
		for _, p := range pl.ps {
			if x.docs[p.slot] != nil {
				slots = append(slots, p.slot)
			}
		}
	}
	slices.Sort(slots)
	slots = slices.Compact(slots)
	out := make([]*entry, len(slots))
	for i, slot := range slots {
		out[i] = x.docs[slot]
	}
	slices.SortFunc(out, entryOrder)
	return out
}

// probe returns the posting lists candidates(set, t) visits, those of
// set's |set| − ⌈t·|set|⌉ + 1 rarest terms that have one, or all when a
// title needs to share no term of set, so that every fact is a candidate.
func (x *liveIndex) probe(set []string, t float64) (lists []*postingList, all bool) {
	need := int(math.Ceil(t*float64(len(set)) - 1e-9))
	if need < 1 {
		return nil, true
	}
	live := func(term string) int {
		if pl := x.postings[term]; pl != nil {
			return pl.live
		}
		return 0
	}
	rarest := slices.Clone(set)
	slices.SortStableFunc(rarest, func(a, b string) int { return live(a) - live(b) })
	for _, term := range rarest[:len(set)-need+1] {
		if pl := x.postings[term]; pl != nil {
			lists = append(lists, pl)
		}
	}
	return lists, false
}

// probeCost is how many postings candidates(set, t) visits.
func (x *liveIndex) probeCost(set []string, t float64) int {
	probe, all := x.probe(set, t)
	if all {
		return len(x.docs)
	}
	cost := 0
	for _, pl := range probe {
		cost += len(pl.ps)
	}
	return cost
}

// entryOrder is entry.before as a comparison.
func entryOrder(a, b *entry) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}
