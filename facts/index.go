package facts

// This file defines INDEX.md: the deterministic, token-budgeted list of
// active facts, its line format, and the three-way merge the git merge
// driver uses.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/lazyre"
	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/tokens"
)

// DefaultIndexBudget is the default token budget of INDEX.md (config
// memory.indexBudgetTokens).
const DefaultIndexBudget = 4000

// indexHeader opens INDEX.md; the summary line follows it.
const indexHeader = "# Memory index\n\n"

// indexIntro follows the summary line.
const indexIntro = "Active facts, most important first. Use memory_search for a fact's body; do not read fact files.\n"

// IndexResult is a rendered INDEX.md and its budget figures.
type IndexResult struct {
	Content []byte `json:"-"`
	Listed  int    `json:"listed"`  // facts with a line in the index
	Active  int    `json:"active"`  // active facts in memory
	Omitted int    `json:"omitted"` // active facts left out over budget
	Tokens  int    `json:"tokens"`  // tokens.Estimate of Content
	Budget  int    `json:"budget"`
	// Replaced is the sha256 of the INDEX.md that writing this one
	// replaced, read under the memory lock; nil when there was none (or
	// nothing was written).
	Replaced *[sha256.Size]byte `json:"-"`
}

// Summary is the index's figures as memory_index reports them and as the
// summary line of INDEX.md states them:
// "13/16 facts listed, ~1980 tokens, 3 omitted."
func (r IndexResult) Summary() string {
	s := fmt.Sprintf("%d/%d facts listed, ~%d tokens", r.Listed, r.Active, r.Tokens)
	if r.Omitted > 0 {
		s += fmt.Sprintf(", %d omitted", r.Omitted)
	}
	return s + "."
}

// WriteSummary is the index line memory_write reports:
// "Index: 13/16 facts listed, ~1980 tokens, 3 omitted over budget."
func (r IndexResult) WriteSummary() string {
	s := fmt.Sprintf("Index: %d/%d facts listed, ~%d tokens", r.Listed, r.Active, r.Tokens)
	if r.Omitted > 0 {
		s += fmt.Sprintf(", %d omitted over budget", r.Omitted)
	}
	return s + "."
}

// IndexEntry is one fact line of INDEX.md with the fields its ordering needs.
// A merge driver sees only lines, so each line carries them:
//
//   - fact-0004 · decision · high · 2025-03-14 · Persistence layer uses Flyway, not Liquibase
//
// A scope other than project follows the title in parentheses.
type IndexEntry struct {
	ID         string
	Type       Type
	Confidence Confidence
	Created    string // YYYY-MM-DD, or "" when the fact has none
	Line       string // the whole line as written
}

// indexSep separates the fields of an index line.
const indexSep = " · "

var entryPattern = lazyre.New(`^- (fact-[0-9]{4,}) · ([a-z]+) · ([a-z]+) · ([0-9]{4}-[0-9]{2}-[0-9]{2}|-) · (.*)$`)

// indexLine renders the index line of a fact. A hand-written fact's front
// matter can spell a control character as an escape ("\e"); the line
// writes it as a visible \uXXXX escape (see package ctrl), so INDEX.md,
// which agents load and people print, stays text.
func indexLine(f Fact) string {
	created := f.Created
	if created == "" {
		created = "-"
	}
	conf := f.Confidence
	if conf == "" {
		conf = DefaultConfidence
	}
	title := strings.Join(strings.Fields(f.Title), " ")
	if f.Scope != "" && f.Scope != DefaultScope {
		title += " (" + f.Scope + ")"
	}
	return ctrl.Escape("- " + f.ID + indexSep + string(f.Type) + indexSep + string(conf) + indexSep + created + indexSep + title)
}

// indexLineLen is len(indexLine(f)), without rendering it: a store orders
// every fact but renders the lines of the few INDEX.md lists.
func indexLineLen(f Fact) int {
	// Escapes lengthen the line: rare enough to render it. The other
	// fields of the line are ASCII words a parsed fact was checked to hold.
	if ctrl.Has(f.Title) || ctrl.Has(f.Scope) {
		return len(indexLine(f))
	}
	n := len("- ") + len(f.ID) + 4*len(indexSep) + len(f.Type)
	if f.Confidence == "" {
		n += len(DefaultConfidence)
	} else {
		n += len(f.Confidence)
	}
	if f.Created == "" {
		n++
	} else {
		n += len(f.Created)
	}
	words := 0
	for w := range strings.FieldsSeq(f.Title) {
		n += len(w)
		words++
	}
	if words > 1 {
		n += words - 1
	}
	if f.Scope != "" && f.Scope != DefaultScope {
		n += len(" ()") + len(f.Scope)
	}
	return n
}

// ParseIndexLine reads one fact line of INDEX.md. ok is false for any other
// line (heading, summary, prose).
func ParseIndexLine(line string) (e IndexEntry, ok bool) {
	m := entryPattern().FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return IndexEntry{}, false
	}
	created := m[4]
	if created == "-" {
		created = ""
	}
	return IndexEntry{ID: m[1], Type: Type(m[2]), Confidence: Confidence(m[3]), Created: created, Line: m[0]}, true
}

// typeRank orders types in the index: constraints and decisions first,
// glossary last.
func typeRank(t Type) int {
	switch t {
	case Constraint:
		return 0
	case Decision:
		return 1
	case Risk:
		return 2
	case Convention:
		return 3
	case Domain:
		return 4
	case Metric:
		return 5
	case Glossary:
		return 6
	}
	return 7
}

func confidenceRank(c Confidence) int {
	switch c {
	case High:
		return 0
	case Medium, "":
		return 1
	case Low:
		return 2
	}
	return 3
}

// sortEntries sorts entries in index order: type (constraints and decisions
// first, glossary last), then higher confidence, then newer, then higher id,
// then the line itself so the order is total. Keys are computed once.
func sortEntries(entries []IndexEntry) {
	ks := make([]keyedEntry, len(entries))
	for i, e := range entries {
		ks[i] = keyEntry(e)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].before(ks[j]) })
	for i := range ks {
		entries[i] = ks[i].e
	}
}

// keyedEntry is an index entry with the keys of its order computed.
type keyedEntry struct {
	e                   IndexEntry
	trank, crank, idnum int
	lineLen             int // len(e.Line), known before the line is rendered
}

func keyEntry(e IndexEntry) keyedEntry {
	return keyedEntry{e, typeRank(e.Type), confidenceRank(e.Confidence), IDNumber(e.ID), len(e.Line)}
}

// before is the index order.
func (a keyedEntry) before(b keyedEntry) bool { return a.compare(&b) < 0 }

// compare is the index order as a comparison.
func (a *keyedEntry) compare(b *keyedEntry) int {
	if c := a.compareKeys(b); c != 0 {
		return c
	}
	return strings.Compare(a.e.Line, b.e.Line)
}

// compareKeys is the index order but for the last resort, the line.
func (a *keyedEntry) compareKeys(b *keyedEntry) int {
	if a.trank != b.trank {
		return cmp.Compare(a.trank, b.trank)
	}
	if a.crank != b.crank {
		return cmp.Compare(a.crank, b.crank)
	}
	if a.e.Created != b.e.Created {
		return -strings.Compare(a.e.Created, b.e.Created)
	}
	return -cmp.Compare(a.idnum, b.idnum)
}

// indexEntry returns the index entry of a fact, with its line unless
// withLine is false.
func indexEntry(f Fact, withLine bool) IndexEntry {
	conf := f.Confidence
	if conf == "" {
		conf = DefaultConfidence
	}
	e := IndexEntry{ID: f.ID, Type: f.Type, Confidence: conf, Created: f.Created}
	if withLine {
		e.Line = indexLine(f)
	}
	return e
}

// BuildIndex renders INDEX.md for facts: one line per active fact (neither
// superseded nor expired on today, YYYY-MM-DD) in index order, stopping
// before the line that would take the file over budget tokens, with a line
// saying how many facts were omitted. The output depends only on its
// arguments: no timestamps. Pass facts with derived status ([Store.Facts]).
func BuildIndex(facts []Fact, today string, budget int) IndexResult {
	var entries []IndexEntry
	for _, f := range facts {
		if !isActive(f, today) {
			continue
		}
		entries = append(entries, indexEntry(f, true))
	}
	return renderIndex(entries, len(entries), budget)
}

// renderIndex sorts entries and renders INDEX.md for active facts in total,
// of which entries are the candidates for listing.
func renderIndex(entries []IndexEntry, active, budget int) IndexResult {
	sortEntries(entries)
	return renderSorted(entries, active, budget)
}

// renderSorted is renderIndex for entries already in index order.
func renderSorted(entries []IndexEntry, active, budget int) IndexResult {
	all := 0
	for _, e := range entries {
		all += len(e.Line) + 1
	}
	return renderLines(func(i int) string { return entries[i].Line }, len(entries), all, active, budget)
}

// renderLines renders INDEX.md for active facts in total, of which n are
// the candidates for listing, in index order: line(i) is the i-th one's
// line, all the byte size of the n lines with their newlines. Only the
// lines that fit the budget, and one more, are asked for, so the cost does
// not grow with n.
func renderLines(line func(i int) string, n, all, active, budget int) IndexResult {
	if budget <= 0 {
		budget = DefaultIndexBudget
	}
	if active < n {
		active = n
	}

	// size(k) is the byte size of the file listing the first k entries; the
	// summary line holds the token figure of the whole file, so it is solved
	// as a small fixed point.
	fixed := len(indexHeader) + len(indexIntro) + 1 // +1: blank line before the list
	if n == 0 {
		fixed += len(emptyLine)
	}
	// The sizes are computed, not rendered: this runs once per listed line.
	render := func(k, lineBytes int) (tok int) {
		r := IndexResult{Listed: k, Active: active, Omitted: active - k}
		base := fixed + lineBytes
		if r.Omitted > 0 {
			base += omittedLineLen(r.Omitted, budget)
		}
		r.Tokens = tokens.Estimate(base)
		for range 8 {
			t := tokens.Estimate(base + r.summaryLen() + 1)
			if t == r.Tokens {
				break
			}
			r.Tokens = t
		}
		return r.Tokens
	}
	k, lineBytes := 0, 0
	// Listing every fact drops the "omitted" line, so the whole list can fit
	// where all but the last fact do not.
	if render(n, all) <= budget {
		k, lineBytes = n, all
	}
	for k < n {
		next := lineBytes + len(line(k)) + 1
		if render(k+1, next) > budget {
			break
		}
		k, lineBytes = k+1, next
	}
	tok := render(k, lineBytes)
	summary := IndexResult{Listed: k, Active: active, Omitted: active - k, Tokens: tok}.Summary()
	omitted := ""
	if active > k {
		omitted = omittedLine(active-k, budget)
	}

	var b bytes.Buffer
	b.Grow(fixed + len(summary) + 1 + lineBytes + len(omitted))
	b.WriteString(indexHeader)
	b.WriteString(summary + "\n")
	b.WriteString(indexIntro)
	b.WriteString("\n")
	if n == 0 {
		b.WriteString(emptyLine)
	}
	for i := range k {
		b.WriteString(line(i))
		b.WriteByte('\n')
	}
	b.WriteString(omitted)
	return IndexResult{Content: b.Bytes(), Listed: k, Active: active, Omitted: active - k, Tokens: tok, Budget: budget}
}

const emptyLine = "No facts yet. Store one with memory_write.\n"

// omittedLineLen is len(omittedLine(n, budget)), without rendering it.
func omittedLineLen(n, budget int) int {
	noun := len("facts")
	if n == 1 {
		noun = len("fact")
	}
	return len("\n more  omitted over the -token budget; find them with memory_search.\n") + decimalLen(n) + noun + decimalLen(budget)
}

// summaryLen is len(r.Summary()), without rendering it.
func (r IndexResult) summaryLen() int {
	n := len("/ facts listed, ~ tokens.") + decimalLen(r.Listed) + decimalLen(r.Active) + decimalLen(r.Tokens)
	if r.Omitted > 0 {
		n += len(",  omitted") + decimalLen(r.Omitted)
	}
	return n
}

// decimalLen is the length of n in decimal, as %d writes it.
func decimalLen(n int) int {
	l := 1
	if n < 0 {
		l++
		n = -n
	}
	for ; n >= 10; n /= 10 {
		l++
	}
	return l
}

func omittedLine(n, budget int) string {
	noun := "facts"
	if n == 1 {
		noun = "fact"
	}
	return fmt.Sprintf("\n%d more %s omitted over the %d-token budget; find them with memory_search.\n", n, noun, budget)
}

var summaryPattern = lazyre.New(`^([0-9]+)/([0-9]+) facts listed, ~[0-9]+ tokens`)

// parsedIndex is what MergeIndex reads from one side.
type parsedIndex struct {
	entries   []IndexEntry
	active    int
	hasActive bool
}

// complete reports whether the index lists every active fact it counts.
func (p parsedIndex) complete() bool { return p.active == len(p.entries) }

func parseIndex(data []byte) (parsedIndex, error) {
	var p parsedIndex
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, "<<<<<<<"), strings.HasPrefix(line, ">>>>>>>"), line == "=======":
			return p, fmt.Errorf("line %d: conflict marker: %w", n, ErrBadIndex)
		case strings.HasPrefix(line, "- fact-"):
			e, ok := ParseIndexLine(line)
			if !ok {
				return p, fmt.Errorf("line %d: not an index line: %w", n, ErrBadIndex)
			}
			p.entries = append(p.entries, e)
		default:
			if m := summaryPattern().FindStringSubmatch(line); m != nil && !p.hasActive {
				p.active, _ = strconv.Atoi(m[2])
				p.hasActive = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return p, fmt.Errorf("read index: %w", err)
	}
	if !p.hasActive || p.active < len(p.entries) {
		p.active = len(p.entries)
	}
	return p, nil
}

// MergeIndex merges two versions of INDEX.md that descend from base, as a git
// merge driver must: it sees only the files, not the facts. A line is kept
// when either side has it, unless base had it and one side removed it (that
// fact was superseded or expired there). The union is re-sorted, the budget
// (tokens; 0 means the default) re-applied and the summary line rewritten.
// Where every version lists all its active facts, the active count is the
// merged lines': a fact both sides added, of the same id and text, is one
// line as it is one file, and two lines of one id and different text are
// two facts (a duplicate id, which `foundry doctor --fix` renumbers). Where
// a version left facts out over its budget, they have no line to merge, and
// the count is estimated as ours + theirs − base; `foundry doctor --fix` or
// `foundry memory index` makes the file exact after the merge.
// An empty side is an index with no facts; a side with conflict markers or
// a malformed fact line is an error matching [ErrBadIndex].
func MergeIndex(base, ours, theirs []byte, budget int) ([]byte, error) {
	var sides [3]parsedIndex
	for i, data := range [][]byte{base, ours, theirs} {
		p, err := parseIndex(data)
		if err != nil {
			return nil, fmt.Errorf("merge memory index: %s: %w", [...]string{"base", "ours", "theirs"}[i], err)
		}
		sides[i] = p
	}
	set := func(p parsedIndex) map[string]IndexEntry {
		m := make(map[string]IndexEntry, len(p.entries))
		for _, e := range p.entries {
			m[e.Line] = e
		}
		return m
	}
	b, o, t := set(sides[0]), set(sides[1]), set(sides[2])
	merged := map[string]IndexEntry{}
	for _, side := range []map[string]IndexEntry{o, t} {
		for line, e := range side {
			_, inBase := b[line]
			_, inO := o[line]
			_, inT := t[line]
			if inBase && (!inO || !inT) {
				continue
			}
			merged[line] = e
		}
	}
	entries := make([]IndexEntry, 0, len(merged))
	for _, e := range merged {
		entries = append(entries, e)
	}
	active := len(entries)
	if !sides[0].complete() || !sides[1].complete() || !sides[2].complete() {
		// Facts left out over a budget have no line to merge.
		active = sides[1].active + sides[2].active - sides[0].active
	}
	return renderIndex(entries, active, budget).Content, nil
}

// Index renders INDEX.md from the store's facts without writing it (for a
// revision, or to check that the file on disk is current).
//
// The store keeps its facts in index order as they change, so rendering
// neither re-sorts nor re-renders lines; the bytes are BuildIndex's.
func (s *Store) Index(ctx context.Context) (IndexResult, error) {
	return s.indexAfter(ctx, nil)
}

// indexAfter is [Store.Index] once a change is in place, with the index
// it rendered ahead (nil for none): when that index is the one the live
// state renders, byte for byte (see stagedIndex.holds), it is not rendered
// again.
func (s *Store) indexAfter(ctx context.Context, ahead *stagedIndex) (IndexResult, error) {
	if err := ctx.Err(); err != nil {
		return IndexResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sync(ctx); err != nil {
		return IndexResult{}, err
	}
	today := s.today()
	if ahead != nil && ahead.holds(s, today) {
		s.held++
		return ahead.IndexResult, nil
	}
	if s.ixOrder == nil {
		s.ixOrder = newIndexOrder(s.sorted)
	}
	return s.ixOrder.render(today, s.opts.IndexBudget), nil
}

// indexWith renders INDEX.md as it will be once the fact f is added and
// the fact drop (nil for none) is superseded, on today, without changing
// the store: a write renders the index before its files are in place, so
// that INDEX.md is written and synced while the fact is. The caller holds
// s.mu and synced the store; once the change is in place, the result is
// written only if the store would render it then (see stagedIndex.holds).
func (s *Store) indexWith(f Fact, drop *entry, today string) IndexResult {
	if s.ixOrder == nil {
		s.ixOrder = newIndexOrder(s.sorted)
	}
	o := s.ixOrder
	if drop != nil && drop.inOrder && o.remove(drop) {
		defer o.add(drop)
	}
	if f.current() {
		e := newEntry(f)
		o.add(e)
		defer o.remove(e)
	}
	return o.render(today, s.opts.IndexBudget)
}

// newIndexOrder returns the order of the facts among all that are not
// superseded. It sorts them once: inserting them one by one, as a change
// does, would move the list once per fact.
func newIndexOrder(all []*entry) *indexOrder {
	o := &indexOrder{expiring: map[*entry]bool{}}
	for _, e := range all {
		if e.current() {
			o.list = append(o.list, e)
			o.track(e)
		}
	}
	// Entries of equal keys have the same line, so their order among
	// themselves changes no byte: the sort need not be stable.
	slices.SortFunc(o.list, indexOrderOf)
	return o
}

// indexOrder keeps the facts that are not superseded in index order, with
// the figures INDEX.md needs of all of them, so that rendering it reads
// only the lines it lists.
type indexOrder struct {
	list     []*entry
	bytes    int             // of every line in list, with its newline
	expiring map[*entry]bool // the facts in list that have an expiry date
	log      *orderLog       // records the changes, while a write is under way
}

// orderLog is what came into an index order and what went out of it.
type orderLog struct{ in, out []*entry }

// render renders INDEX.md for the facts in the order not expired on today:
// the bytes of [BuildIndex] for them.
func (o *indexOrder) render(today string, budget int) IndexResult {
	n, all := len(o.list), o.bytes
	expired := map[*entry]bool{}
	for e := range o.expiring {
		if e.raw.Expired(today) {
			expired[e] = true
			n--
			all -= e.ix.lineLen + 1
		}
	}
	line := func(i int) string { return o.list[i].line() }
	if len(expired) > 0 {
		// The lines not expired, gathered as far as they are asked for.
		var lines []string
		pos := 0
		line = func(i int) string {
			for len(lines) <= i {
				if e := o.list[pos]; !expired[e] {
					lines = append(lines, e.line())
				}
				pos++
			}
			return lines[i]
		}
	}
	return renderLines(line, n, all, n, budget)
}

func (o *indexOrder) search(e *entry) int {
	return sort.Search(len(o.list), func(i int) bool { return indexOrderOf(o.list[i], e) >= 0 })
}

func (o *indexOrder) add(e *entry) {
	e.key()
	o.list = slices.Insert(o.list, o.search(e), e)
	o.track(e)
	if o.log != nil {
		o.log.in = append(o.log.in, e)
	}
}

// key computes e's index order and the length of its line, once; the
// line itself is rendered when it is first needed (see entry.line).
func (e *entry) key() {
	if e.ix == nil {
		ie := indexEntry(e.raw, false)
		k := keyEntry(ie)
		k.lineLen = indexLineLen(e.raw)
		e.ix = &k
	}
}

// line returns e's INDEX.md line, rendered once.
func (e *entry) line() string {
	e.key()
	if e.ix.e.Line == "" {
		e.ix.e.Line = indexLine(e.raw)
	}
	return e.ix.e.Line
}

// indexOrderOf is the index order of two facts as a comparison: their
// keys, then, rarely needed, their lines.
func indexOrderOf(a, b *entry) int {
	if c := a.ix.compareKeys(b.ix); c != 0 {
		return c
	}
	return strings.Compare(a.line(), b.line())
}

// track counts e, placed in the list, in the order's figures.
func (o *indexOrder) track(e *entry) {
	e.key()
	o.bytes += e.ix.lineLen + 1
	if e.raw.Expires != "" {
		o.expiring[e] = true
	}
	e.inOrder = true
}

// remove takes e out of the order, and reports whether it was there.
func (o *indexOrder) remove(e *entry) bool {
	if i := o.search(e); i < len(o.list) && o.list[i] == e {
		o.list = slices.Delete(o.list, i, i+1)
	} else if i := slices.Index(o.list, e); i >= 0 { // equal keys: two files, one line
		o.list = slices.Delete(o.list, i, i+1)
	} else {
		e.inOrder = false
		return false
	}
	o.bytes -= e.ix.lineLen + 1
	delete(o.expiring, e)
	e.inOrder = false
	if o.log != nil {
		o.log.out = append(o.log.out, e)
	}
	return true
}

// RebuildIndex rewrites INDEX.md from the facts on disk, under the memory
// lock, and returns its figures.
func (s *Store) RebuildIndex(ctx context.Context) (IndexResult, error) {
	var res IndexResult
	err := s.locked(ctx, func(mem *confined.WriteFolder) error {
		var err error
		res, err = s.writeIndex(ctx, mem)
		return err
	})
	if err != nil {
		return IndexResult{}, fmt.Errorf("rebuild memory index: %w", err)
	}
	return res, nil
}

// writeIndex renders and writes INDEX.md into mem, the memory folder; the
// caller holds the lock. It is the last file a change writes: it syncs the
// folder once, which makes the renames of the fact files the change wrote
// before it (with WriteFileDeferSync) durable with its own. Until then a
// crash may keep any of those renames and not the others; INDEX.md is
// derived from the facts, and a rebuild (foundry memory index, doctor
// --fix) makes it current again.
func (s *Store) writeIndex(ctx context.Context, mem *confined.WriteFolder) (IndexResult, error) {
	return s.writeIndexAs(ctx, mem, nil)
}

// stagedIndex is an INDEX.md a write rendered ahead of its change (see
// [Store.indexWith]) and staged beside the file.
type stagedIndex struct {
	IndexResult
	file *confined.Staged
	// What the render assumed (see holds): the live state at version ver,
	// plus one for each file of the change recorded since as written (see
	// recordWritten), none of them missed, and the index order, logged
	// since, changed by the new fact in (stated, as its file states it)
	// and the fact it supersedes out (nil when none was listed).
	ver    uint64
	today  string
	missed bool
	order  *indexOrder
	log    orderLog
	stated Fact
	out    *entry
}

// holds reports whether the live state renders this index: the state
// changed since by the change's own files alone, each recorded as written,
// and the index order by exactly what the render assumed, on the same day.
// Anything else a change's settling may do (a fact that names the new id
// as the one it supersedes, a superseded id that two files hold), or a
// change not the write's, fails it. The caller holds s.mu and synced the
// state.
func (x *stagedIndex) holds(s *Store, today string) bool {
	if x.missed || s.ver != x.ver || today != x.today || s.ixOrder != x.order {
		return false
	}
	c := s.files[x.stated.Path]
	if c == nil || c.e == nil || len(x.log.in) != 1 || x.log.in[0] != c.e {
		return false
	}
	if x.out == nil {
		return len(x.log.out) == 0
	}
	return len(x.log.out) == 1 && x.log.out[0] == x.out
}

// recorded counts a file of the change put in place: recorded in the live
// state as written (one change of its version), or not, which the events
// or a scan will read.
func (x *stagedIndex) recorded(ok bool) {
	if ok {
		x.ver++
	} else {
		x.missed = true
	}
}

// writeIndexAs is writeIndex when the change staged the INDEX.md it
// expected, ahead (nil for none): the staged file is put in place when it
// holds what the store renders now, and otherwise discarded for the file
// rendered, so the bytes are always those of the store's index.
func (s *Store) writeIndexAs(ctx context.Context, mem *confined.WriteFolder, ahead *stagedIndex) (IndexResult, error) {
	var staged *confined.Staged
	if ahead != nil {
		staged = ahead.file
	}
	defer staged.Discard() // unless committed
	if staged != nil {
		// Committed or discarded, the temp file is gone: the events may
		// have listed it, but it is not left for locked's clearTemps.
		defer s.forgetTemp(staged.Temp())
	}
	res, err := s.indexAfter(ctx, ahead)
	if err != nil {
		mem.SyncDir(".")
		return IndexResult{}, err
	}
	if sum, ok := confined.Digest(mem.FS(), path.Base(IndexPath)); ok {
		res.Replaced = &sum
	}
	if staged != nil && bytes.Equal(ahead.Content, res.Content) {
		err = staged.Commit()
	} else {
		err = mem.WriteFileDeferSync(path.Base(IndexPath), res.Content, 0o644)
	}
	mem.SyncDir(".")
	if err != nil {
		return IndexResult{}, err
	}
	pause.Point(ctx, "facts.after-index-written")
	return res, nil
}

// IndexFile returns the path of INDEX.md on disk (for "Rebuilt <path>"), or
// the project-relative path for a read-only store.
func (s *Store) IndexFile() string {
	if s.opts.Root == "" {
		return IndexPath
	}
	return s.osPath(IndexPath)
}
