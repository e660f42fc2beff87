package facts

// This file defines memory_write: validation, dedup, supersession, id
// assignment and the atomic, locked write of a fact and the index.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/secrets"
)

// MaxSimilarNamed is how many similar facts a write's warnings name, the
// most similar first; one more line counts the others (see
// MoreSimilarWarning). A topic many facts share would otherwise fill an
// agent's context with a line per fact on every write.
const MaxSimilarNamed = 3

// MoreSimilarWarning is the warning that counts the n similar facts a
// write does not name.
func MoreSimilarWarning(n int) string {
	noun := "facts have"
	if n == 1 {
		noun = "fact has"
	}
	return fmt.Sprintf("warning: %d more %s a similar title; memory search finds them", n, noun)
}

// nearDuplicate is the title similarity (Jaccard index of stemmed terms) from
// which a write warns about a similar fact.
const nearDuplicate = 0.6

// Write actions.
const (
	Created   = "created"
	Unchanged = "unchanged"
)

// WriteResult says what [Store.Write] did.
type WriteResult struct {
	Action     string      `json:"action"` // Created or Unchanged
	ID         string      `json:"id"`     // the new fact, or the one that already states it
	Path       string      `json:"path"`   // project-relative path of that fact
	Supersedes string      `json:"supersedes,omitempty"`
	Warnings   []string    `json:"warnings,omitempty"`
	Index      IndexResult `json:"index,omitzero"` // zero, and left out, when nothing was written

	// Similar lists the active facts whose titles are close to the new
	// one, as the warnings name them (the MaxSimilarNamed most similar),
	// so a command line can say which flag would supersede them;
	// MoreSimilar counts those left unnamed.
	Similar     []Fact `json:"-"`
	MoreSimilar int    `json:"-"`
	// Rewritten lists the fact files that existed and were rewritten (a
	// superseded fact, a linked one), with their content before and after,
	// so an audit can record what the write changed.
	Rewritten []Rewritten `json:"-"`
	// Content is the new fact file's content as written, when Action is
	// Created, so an audit need not read it back.
	Content []byte `json:"-"`
}

// Rewritten is a fact file a write rewrote and its content before and
// after.
type Rewritten struct {
	Path          string // project-relative
	Before, After []byte
}

// String is the seed's answer, without the warnings:
//
//	created: fact-0016 (supersedes fact-0009)
//	Index: 13/16 facts listed, ~1980 tokens, 3 omitted over budget.
//
// or "unchanged: fact-0009 already states this". No final newline.
func (r WriteResult) String() string {
	if r.Action == Unchanged {
		if r.Supersedes != "" {
			return fmt.Sprintf("unchanged: %s already states this; it now supersedes %s\n%s", r.ID, r.Supersedes, r.Index.WriteSummary())
		}
		return fmt.Sprintf("unchanged: %s already states this", r.ID)
	}
	s := "created: " + r.ID
	if r.Supersedes != "" {
		s += " (supersedes " + r.Supersedes + ")"
	}
	return s + "\n" + r.Index.WriteSummary()
}

// locked runs fn holding the memory lock, then removes the temp files
// that a killed writer may have left: every temp file in the memory folder
// is stale once the lock is held, since only its holder writes there. They
// are the temps the store knew of at its last sync under the lock (fn
// syncs), by name: the folder's listing, kept current by file-system
// events or made anew on every sync without them, so a write does not list
// a large folder. fn writes through mem, the memory folder the store holds
// open (see [Store.folder]): no symbolic link is followed, .foundry itself
// included, and no path is walked again for each file.
func (s *Store) locked(ctx context.Context, fn func(mem *confined.WriteFolder) error) error {
	if s.opts.Root == "" {
		return ErrReadOnly
	}
	for attempt := 0; ; attempt++ {
		mem, fresh, err := s.folder(attempt > 0)
		if err != nil {
			return err
		}
		unlock, err := mem.LockHeld(ctx, path.Base(LockPath))
		if err == nil && mem.Current() {
			// A cache that a scan under the lock found stale is saved
			// once the lock is released (defers run last first): saving
			// builds the search index and writes a file the size of the
			// memory, which no other writer should wait for.
			defer s.saveUnlocked(ctx)
			defer func() { _ = unlock() }()
			pause.Point(ctx, "facts.after-lock")
			s.mu.Lock()
			scans := s.scans
			s.lockers++
			s.mu.Unlock()
			err := fn(mem)
			s.clearTemps(mem, scans)
			s.mu.Lock()
			clear(s.own) // the events of fn's renames were drained by its last sync
			s.lockers--
			s.mu.Unlock()
			return err
		}
		if err == nil {
			_ = unlock()
		}
		// The folder held was removed or replaced, and its lock guards
		// nothing any more: lock the one now at the path.
		switch {
		case err != nil && fresh:
			return err
		case attempt == 2:
			return fmt.Errorf("lock %s: %w", LockPath, confined.ErrReplaced)
		}
	}
}

// clearTemps removes the temp files the store knows of, when it synced
// since the lock was taken (scans was its count then): the caller holds the
// memory lock, so they are stale. A temp file of this lock holder's own
// write was renamed or removed before it returned.
func (s *Store) clearTemps(mem *confined.WriteFolder, scans uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scans == scans {
		return
	}
	for name := range s.temps {
		_ = mem.Remove(name)
	}
	// A new map: one that held many temp files would keep its table for
	// every later write to range over (see emptied).
	s.temps = map[string]bool{}
}

// forgetTemp drops name from the temp files the store knows of.
func (s *Store) forgetTemp(name string) {
	s.mu.Lock()
	delete(s.temps, name)
	s.mu.Unlock()
}

// folder returns the memory folder, held open from the first write on:
// opened (and created) the first time, and again with reopen. fresh
// reports that it was opened now.
func (s *Store) folder(reopen bool) (mem *confined.WriteFolder, fresh bool, err error) {
	s.mu.Lock()
	mem = s.mem
	s.mu.Unlock()
	if mem != nil && !reopen {
		return mem, false, nil
	}
	r, err := s.root()
	if err != nil {
		return nil, false, err
	}
	if err := r.MkdirAll(Dir); err != nil {
		return nil, false, err
	}
	if mem, err = r.OpenWriteFolder(Dir); err != nil {
		return nil, false, err
	}
	// A folder replaced is not closed here: a reader may still hold it,
	// and its descriptor is released when it is garbage collected.
	s.mu.Lock()
	s.mem = mem
	s.mu.Unlock()
	return mem, true, nil
}

// Write stores one fact, enforcing every rule of memory_write:
//
//   - the request must pass the rules (a *[RuleError]) and hold no secret (a
//     *[SecretError]); then nothing is written;
//   - an active fact of the same type, scope, normalised title and body means
//     nothing is written (Action Unchanged), unless the request sets its
//     confidence, source, tags or expiry to other values;
//   - an active fact of the same type, scope and normalised title with another
//     body or that other metadata, or the fact named in Supersedes, is
//     superseded by the new one;
//   - a similar title adds a warning naming the similar fact.
//
// Under the memory lock it assigns the next id (one more than the highest
// present, at least four digits), writes the fact atomically, marks the
// superseded fact and rebuilds INDEX.md before releasing the lock. A fact
// created records a memory_write event.
func (s *Store) Write(ctx context.Context, req WriteRequest) (WriteResult, error) {
	if s.opts.Root == "" {
		return WriteResult{}, fmt.Errorf("write fact: %w", ErrReadOnly)
	}
	today := s.today()
	req = req.normalize()
	if err := req.validate(today); err != nil {
		return WriteResult{}, fmt.Errorf("write fact: %w", err)
	}
	var res WriteResult
	err := s.locked(ctx, func(mem *confined.WriteFolder) error {
		var err error
		res, err = s.writeLocked(ctx, mem, req, today)
		return err
	})
	if err != nil {
		return WriteResult{}, fmt.Errorf("write fact: %w", err)
	}
	if res.Action == Created {
		s.record(eventWrite)
	}
	return res, nil
}

// writePlan is what a write decided from the live state, before it touches
// a file.
type writePlan struct {
	unchanged *WriteResult // an active fact already states it
	link      bool         // linkNew, which states it, supersedes old
	linkNew   entryCopy
	old       *entryCopy // the fact to supersede
	drop      *entry     // the fact to supersede, in the live state
	similar   []Fact
	id        string
}

// entryCopy is a fact as derived and as its file states it.
type entryCopy struct{ fact, raw Fact }

// plan decides a write from the live state, which it brings up to date; the
// caller holds the memory lock and s.mu. Every check looks facts up by id,
// normalised title or title term, so a write costs nothing in proportion to
// the number of facts.
func (s *Store) plan(ctx context.Context, req WriteRequest, today string) (writePlan, error) {
	if err := s.sync(ctx); err != nil {
		return writePlan{}, err
	}
	body := normBody(req.Body)
	var p writePlan
	var old *entry // the fact to supersede
	if req.Supersedes != "" {
		list := s.byID[req.Supersedes]
		if len(list) == 0 {
			return p, ruleErr("supersedes", "supersede %s: no such fact", req.Supersedes)
		}
		if len(list) > 1 {
			// Two branches each wrote this id: which fact is meant only the
			// repair can tell, from git history, so guessing is refused.
			paths := make([]string, len(list))
			for i, e := range list {
				paths[i] = e.raw.Path
			}
			return p, ruleErr("supersedes", "supersede %s: %d facts have this id (%s); run foundry doctor --fix to renumber them, then supersede the new id", req.Supersedes, len(list), strings.Join(paths, ", "))
		}
		if f := list[0].fact(); !f.current() {
			// A retired fact no longer holds: nothing replaces it, and
			// marking it superseded would lose that it was retired.
			return p, ruleErr("supersedes", "supersede %s: %s", f.ID, alreadyText(f))
		}
		old = list[0]
	}
	for _, e := range s.sameTitle(req.Title) {
		f := e.fact()
		if !f.current() || f.Type != req.Type || f.Scope != req.Scope {
			continue
		}
		same := normBody(f.Body) == body && !f.Expired(today)
		changed := req.differsFrom(f)
		switch {
		case same && len(changed) > 0 && req.Supersedes != "" && old.raw.ID != f.ID:
			what := strings.Join(changed, ", ")
			return p, ruleErr("supersedes", "supersede %s: %s already states this with another %s, and a fact supersedes one fact; link the two first (the same write without the new %s), then write the new %s", old.raw.ID, f.ID, what, what, what)
		case same && len(changed) == 0 && req.Supersedes != "" && old.raw.ID != f.ID:
			if f.Supersedes != "" {
				// A fact supersedes one fact: "unchanged" would drop the
				// link asked for without a word.
				return p, ruleErr("supersedes", "supersede %s: %s already states this and supersedes %s; a fact supersedes one fact", old.raw.ID, f.ID, f.Supersedes)
			}
			// The fact was written before its writer knew it replaced
			// another (the similar-title warning says so): link them now.
			p.link, p.linkNew, p.old = true, entryCopy{e.fact(), e.raw}, &entryCopy{old.fact(), old.raw}
			return p, nil
		case same && len(changed) == 0:
			p.unchanged = &WriteResult{Action: Unchanged, ID: f.ID, Path: f.Path}
			return p, nil
		}
		// Another body, or the same text with another confidence, source,
		// tags or expiry: a new version of f, which it supersedes.
		if old == nil {
			old = e
		}
		break
	}
	skip := ""
	if old != nil {
		skip = old.raw.ID
		p.old, p.drop = &entryCopy{old.fact(), old.raw}, old
	}
	p.similar = s.nearDuplicates(req.Title, skip, today)
	p.id = FormatID(s.maxID() + 1)
	return p, nil
}

func (s *Store) writeLocked(ctx context.Context, mem *confined.WriteFolder, req WriteRequest, today string) (WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return WriteResult{}, err
	}
	s.mu.Lock()
	p, err := s.plan(ctx, req, today)
	s.mu.Unlock()
	switch {
	case err != nil:
		return WriteResult{}, err
	case p.unchanged != nil:
		return *p.unchanged, nil
	case p.link:
		return s.link(ctx, mem, p.linkNew, *p.old)
	}
	similar, more := p.similar, 0
	if len(similar) > MaxSimilarNamed {
		similar, more = similar[:MaxSimilarNamed], len(similar)-MaxSimilarNamed
	}
	var warnings []string
	for _, f := range similar {
		warnings = append(warnings, fmt.Sprintf("warning: similar to %s %q; if the new fact replaces it, write it again with supersedes %s", f.ID, f.Title, f.ID))
	}
	if more > 0 {
		warnings = append(warnings, MoreSimilarWarning(more))
	}

	id := p.id
	f := Fact{
		ID: id, Type: req.Type, Title: req.Title, Scope: req.Scope, Tags: req.Tags,
		Confidence: req.Confidence, Source: req.Source, Created: today, Expires: req.Expires,
		Status: Active, Body: req.Body,
		Path: path.Join(Dir, FileName(id, req.Title)),
	}
	old := p.old
	if old != nil {
		f.Supersedes = old.fact.ID
	}
	// The fact files and INDEX.md share a folder: their renames are made
	// durable by one sync of it, after the last (see writeIndex). The
	// superseded fact's file as this write leaves it, and INDEX.md as it
	// will be, are made now and staged with the new fact's file, so that
	// one commit of the file system's journal can make them all durable
	// (see [confined.Root.StageAll]). They are put in place in that order,
	// INDEX.md last, once the store's own index agrees with it.
	content := Format(f)
	// The index is rendered with the fact as the file states it, which is
	// what the store records once it is written.
	stated, err := Parse(f.Path, content)
	if err != nil {
		return WriteResult{}, fmt.Errorf("write %s: the fact formatted does not read back: %w", f.Path, err)
	}
	stated.Path = f.Path
	files := []confined.File{{Name: path.Base(f.Path), Data: content, Perm: 0o644}}
	var before, after []byte // the superseded fact's file, and as this write leaves it
	if old != nil {
		raw := old.raw
		raw.Status, raw.SupersededBy = Superseded, id
		if before, err = readInPlace(mem, path.Base(raw.Path)); err != nil {
			return WriteResult{}, err
		}
		after = editFront(before, raw, "status", "supersededBy")
		files = append(files, confined.File{Name: path.Base(raw.Path), Data: after, Perm: 0o644})
	}
	s.mu.Lock()
	ahead := &stagedIndex{IndexResult: s.indexWith(stated, p.drop, today), ver: s.ver, today: today, order: s.ixOrder, stated: stated}
	if p.drop != nil && p.drop.inOrder {
		ahead.out = p.drop
	}
	ahead.order.log = &ahead.log
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		ahead.order.log = nil
		s.mu.Unlock()
	}()
	files = append(files, confined.File{Name: path.Base(IndexPath), Data: ahead.Content, Perm: 0o644})
	staged, err := mem.StageAll(files...)
	if err != nil {
		return WriteResult{}, err
	}
	defer func() { // what is not committed
		for _, st := range staged {
			st.Discard()
		}
	}()
	if err := s.commitFact(ctx, mem, staged[0], f.Path, content, ahead); err != nil {
		return WriteResult{}, err
	}
	// A write that fails after this point is undone: the new fact removed,
	// the superseded one restored, so a failed write leaves nothing.
	var oldContent []byte
	undo := func(err error) (WriteResult, error) {
		_ = mem.Remove(path.Base(f.Path))
		if oldContent != nil {
			_ = mem.WriteFile(path.Base(old.raw.Path), oldContent, 0o644)
		}
		return WriteResult{}, err
	}
	pause.Point(ctx, "facts.after-fact-written")
	res := WriteResult{Action: Created, ID: id, Path: f.Path, Warnings: warnings, Similar: similar, MoreSimilar: more, Content: content}
	if old != nil {
		res.Supersedes = old.fact.ID
		if err := s.commitFact(ctx, mem, staged[1], old.raw.Path, after, ahead); err != nil {
			return undo(err)
		}
		oldContent = before
		res.Rewritten = append(res.Rewritten, Rewritten{Path: old.raw.Path, Before: before, After: after})
		pause.Point(ctx, "facts.after-supersede")
	}
	ahead.file = staged[len(staged)-1]
	res.Index, err = s.writeIndexAs(ctx, mem, ahead)
	if err != nil {
		return undo(err)
	}
	return res, nil
}

// readInPlace reads the fact file base of the memory folder mem for an
// edit in place. A file that is a symbolic link is refused before it is
// read, as writing it would be ([ErrSymlink]): read through mem, whose
// root is the memory folder, a link to a fact elsewhere in .foundry would
// be refused as leading outside it, which it does not.
func readInPlace(mem *confined.WriteFolder, base string) ([]byte, error) {
	if err := mem.NoFollow(base); err != nil {
		return nil, err
	}
	return confined.ReadFile(mem.FS(), base)
}

// writeFact writes content to the fact file p of the memory folder mem
// atomically, its rename durable once the folder is synced (see
// [confined.Root.WriteFileDeferSync]), and records it in the live state
// (see recordWritten). The test pause point "facts.fact-renamed" stops
// between the rename and the recording. The caller holds the memory lock.
func (s *Store) writeFact(ctx context.Context, mem *confined.WriteFolder, p string, content []byte) error {
	st, err := mem.Stage(path.Base(p), content, 0o644)
	if err != nil {
		return err
	}
	return s.commitFact(ctx, mem, st, p, content, nil)
}

// commitFact is writeFact once the file is staged as st, for a change
// that rendered INDEX.md ahead (nil for none), which learns whether the
// file was recorded as written.
func (s *Store) commitFact(ctx context.Context, mem *confined.WriteFolder, st *confined.Staged, p string, content []byte, ahead *stagedIndex) error {
	// The file written, as it was before its rename: what recordWritten
	// finds at p afterwards is taken as written only if it is this file.
	written, lerr := mem.Lstat(st.Temp())
	if err := st.Commit(); err != nil {
		return err
	}
	pause.Point(ctx, "facts.fact-renamed")
	var parsed *Fact // parsed already
	if ahead != nil && p == ahead.stated.Path {
		parsed = &ahead.stated
	}
	recorded := lerr == nil && s.recordWritten(mem, p, content, parsed, written)
	if ahead != nil {
		ahead.recorded(recorded)
	}
	return nil
}

// recordWritten records in the live state the fact file p that a write
// just renamed into place with content, as reading the file would, where
// file-system events keep that state: the event of the rename is then
// recognised instead of read back (see Store.refresh). written is the file
// as the write left it before the rename: a file at p that is not that
// one, unchanged (replaced by another rename since, or written through
// another name), is left to the events to read. Without events the next
// sync revalidates the folder, which re-reads a file this recent anyway.
// parsed, unless nil, is content parsed already. It reports whether it
// recorded the file. The caller holds the memory lock.
func (s *Store) recordWritten(mem *confined.WriteFolder, p string, content []byte, parsed *Fact, written fs.FileInfo) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil || !s.synced {
		return false
	}
	info, err := mem.Lstat(path.Base(p))
	if err != nil || !os.SameFile(info, written) || info.Size() != written.Size() || !info.ModTime().Equal(written.ModTime()) {
		return false // the event's reading decides
	}
	c := &cachedFile{key: keyOf(info), sum: sha256.Sum256(content), regular: info.Mode().IsRegular()}
	var f Fact
	var perr error
	if parsed != nil {
		f = *parsed
	} else {
		f, perr = Parse(p, content)
	}
	if c.setParsed(p, f, perr); c.err != nil {
		return false // read back, and warned about, like any other file
	}
	s.setFile(p, c)
	if s.own == nil {
		s.own = map[string]fileKey{}
	}
	s.own[p] = c.key
	return true
}

// titleLookup returns the facts by title, built on the first call and kept
// current from then on (see linkEntry). The caller holds s.mu.
func (s *Store) titleLookup() *titleIndex {
	if s.byTitle == nil {
		x := &titleIndex{norm: make(map[string][]*entry, len(s.sorted)), terms: map[titleTerm][]*entry{}}
		for _, e := range s.sorted {
			x.add(e, s.title(e.raw.Title))
		}
		s.byTitle = x
	}
	return s.byTitle
}

// titleIndex finds facts by title for the checks of a write: by normalised
// title (dedup), and by title term and number of title terms (the
// similar-title check), so that neither compares the new title with facts
// that cannot match it.
type titleIndex struct {
	norm  map[string][]*entry
	terms map[titleTerm][]*entry // in no order
}

// titleTerm keys the facts whose title has the term and n terms in all.
type titleTerm struct {
	term string
	n    int
}

// add adds e, whose title is analysed as ti.
func (x *titleIndex) add(e *entry, ti *titleInfo) {
	e.norm, e.tterms = ti.norm, ti.terms
	x.norm[e.norm] = append(x.norm[e.norm], e)
	e.tpos = make([]int32, len(e.tterms))
	for i, t := range e.tterms {
		k := titleTerm{t, len(e.tterms)}
		e.tpos[i] = int32(len(x.terms[k]))
		x.terms[k] = append(x.terms[k], e)
	}
}

// remove takes e out, moving the last fact of each of its term lists into
// its place: a fact leaves in constant time however many share a term.
func (x *titleIndex) remove(e *entry) {
	if list := slices.DeleteFunc(x.norm[e.norm], func(o *entry) bool { return o == e }); len(list) == 0 {
		delete(x.norm, e.norm)
	} else {
		x.norm[e.norm] = list
	}
	for i, t := range e.tterms {
		k := titleTerm{t, len(e.tterms)}
		list := x.terms[k]
		j := int(e.tpos[i])
		if j >= len(list) || list[j] != e {
			continue // not in it: nothing to take out
		}
		last := list[len(list)-1]
		list[j] = last
		if li, ok := slices.BinarySearch(last.tterms, t); ok {
			last.tpos[li] = int32(j)
		}
		if list = list[:len(list)-1]; len(list) == 0 {
			delete(x.terms, k)
		} else {
			x.terms[k] = list
		}
	}
}

// sameTitle returns the facts that are not superseded whose normalised
// title is title's, newest first. Before the title index is built, with
// the search index, only the facts holding the title's rarest term are
// compared (a fact with the same normalised title has the same terms).
// The caller holds s.mu.
func (s *Store) sameTitle(title string) []*entry {
	ti := s.title(title)
	var same []*entry
	if s.byTitle == nil && s.idx != nil && len(ti.terms) > 0 {
		for _, e := range s.idx.candidates(ti.terms, 1) {
			if s.title(e.raw.Title).norm == ti.norm {
				same = append(same, e)
			}
		}
	} else {
		for _, e := range s.titleLookup().norm[ti.norm] {
			if e.current() {
				same = append(same, e)
			}
		}
	}
	slices.SortFunc(same, func(a, b *entry) int { return entryOrder(b, a) }) // newest first
	return same
}

// nearDuplicates returns the active facts (other than skip) whose titles
// are close to title, in id order. Only facts that could reach the
// threshold are compared: for each number n of title terms a fact may
// have, the Jaccard index needs an overlap of at least k terms, so such a
// fact has one of any len(terms)-k+1 of title's terms, and the facts of n
// terms are looked up under the rarest ones in the title index. Facts
// sharing only common words with title are never visited.
//
// Building the title index costs a pass over every fact, which most
// sessions' few writes would not repay: until the writes have visited as
// many postings as the build would cost (titleIndexCost per fact), the
// search index's postings of the title's rarest terms give the candidates
// instead (its terms are the title's, body's and tags'), and the index is
// built only by the write that would pass that budget, so the checks never
// cost much more than the cheaper of the two ways would have. The caller
// holds s.mu.
func (s *Store) nearDuplicates(title, skip, today string) []Fact {
	set := s.title(title).terms
	m := len(set)
	if m == 0 {
		return nil // the Jaccard index with an empty set is 0
	}
	if s.byTitle == nil && s.idx != nil {
		if visits := s.idx.probeCost(set, nearDuplicate); s.dupVisits+visits <= titleIndexCost*len(s.sorted) {
			s.dupVisits += visits
			var similar []scored
			for _, e := range s.idx.candidates(set, nearDuplicate) {
				if !e.active(today) || e.raw.ID == skip {
					continue
				}
				if j := jaccardSorted(s.title(e.raw.Title).terms, set); j >= nearDuplicate {
					similar = append(similar, scored{e, j})
				}
			}
			return mostSimilar(similar)
		}
	}
	x := s.titleLookup()
	var cands []*entry
	lists := make([][]*entry, m)
	for n := 1; n <= int(float64(m)/nearDuplicate)+1; n++ {
		k := minOverlap(m, n)
		if k == 0 {
			continue
		}
		for i, t := range set {
			lists[i] = x.terms[titleTerm{t, n}]
		}
		slices.SortFunc(lists, func(a, b []*entry) int { return len(a) - len(b) })
		for _, l := range lists[:m-k+1] {
			cands = append(cands, l...)
		}
	}
	slices.SortFunc(cands, entryOrder)
	cands = slices.Compact(cands)
	var similar []scored
	for _, e := range cands {
		if !e.active(today) || e.raw.ID == skip {
			continue
		}
		if j := jaccardSorted(e.tterms, set); j >= nearDuplicate {
			similar = append(similar, scored{e, j})
		}
	}
	return mostSimilar(similar)
}

// scored is a fact with the similarity of its title to a new one.
type scored struct {
	e *entry
	j float64
}

// mostSimilar returns the facts of similar, the most similar first, and
// in fact order among equals.
func mostSimilar(similar []scored) []Fact {
	if len(similar) == 0 {
		return nil
	}
	slices.SortFunc(similar, func(a, b scored) int {
		if c := cmp.Compare(b.j, a.j); c != 0 {
			return c
		}
		return entryOrder(a.e, b.e)
	})
	facts := make([]Fact, len(similar))
	for i, x := range similar {
		facts[i] = x.e.fact()
	}
	return facts
}

// titleIndexCost is what adding a fact to the title index costs (its
// title analysed and filed under each term), in posting visits of the
// similar-title check (a lookup and a comparison of two short term
// lists), as profiled: 10,000 facts take about 60 ms to index, 40,000
// visits about 18 ms.
const titleIndexCost = 16

// minOverlap is the fewest terms two sets of m and n terms must share for
// their Jaccard index to reach nearDuplicate, computed as jaccardSorted
// computes the index; 0 when no overlap reaches it.
func minOverlap(m, n int) int {
	for k := 1; k <= min(m, n); k++ {
		if float64(k)/float64(m+n-k) >= nearDuplicate {
			return k
		}
	}
	return 0
}

// alreadyText says of a superseded or retired fact that it already is,
// and by which fact or why: a file can say status: superseded without
// naming its successor (and no other fact claim it), or retired without
// a reason.
func alreadyText(f Fact) string {
	switch {
	case f.Status == Retired && f.RetiredReason == "":
		return "already retired (its file gives no reason)"
	case f.Status == Retired:
		return "already retired: " + f.RetiredReason
	case f.SupersededBy == "":
		return "already superseded (its file names no successor)"
	}
	return "already superseded by " + f.SupersededBy
}

// link records that the existing fact nw supersedes old, both already
// written: nw gains supersedes, old is marked superseded by nw, and the
// index is rebuilt. A failure restores both files.
func (s *Store) link(ctx context.Context, mem *confined.WriteFolder, nw, old entryCopy) (WriteResult, error) {
	if old.fact.Status == Superseded {
		return WriteResult{}, ruleErr("supersedes", "supersede %s: %s", old.fact.ID, alreadyText(old.fact))
	}
	rawNew, rawOld := nw.raw, old.raw
	rawNew.Supersedes = old.fact.ID
	rawOld.Status, rawOld.SupersededBy = Superseded, nw.fact.ID
	var restore []func()
	undo := func(err error) (WriteResult, error) {
		for _, r := range restore {
			r()
		}
		return WriteResult{}, err
	}
	var rewritten []Rewritten
	for _, ed := range []struct {
		raw  Fact
		keys []string
	}{{rawNew, []string{"supersedes"}}, {rawOld, []string{"status", "supersededBy"}}} {
		raw := ed.raw
		base := path.Base(raw.Path)
		content, err := readInPlace(mem, base)
		if err != nil {
			return undo(err)
		}
		after := editFront(content, raw, ed.keys...)
		if err := s.writeFact(ctx, mem, raw.Path, after); err != nil {
			return undo(err)
		}
		restore = append(restore, func() { _ = mem.WriteFile(base, content, 0o644) })
		rewritten = append(rewritten, Rewritten{Path: raw.Path, Before: content, After: after})
	}
	idx, err := s.writeIndex(ctx, mem)
	if err != nil {
		return undo(err)
	}
	return WriteResult{Action: Unchanged, ID: nw.fact.ID, Path: nw.fact.Path, Supersedes: old.fact.ID, Index: idx, Rewritten: rewritten}, nil
}

// titleInfo is what dedup and the similar-title warning need of a title.
type titleInfo struct {
	norm  string   // normTitle
	terms []string // sortedTerms
}

// title returns the analysis of a title, memoised: a write compares the new
// title with every fact's. The caller holds s.mu.
func (s *Store) title(t string) *titleInfo {
	if ti, ok := s.titles[t]; ok {
		return ti
	}
	if len(s.titles) > 2*len(s.files)+1024 {
		clear(s.titles) // titles of facts since edited or removed
	}
	ti := &titleInfo{norm: normTitle(t), terms: sortedTerms(t, s.stems)}
	s.titles[t] = ti
	return ti
}

// RetireResult says what [Store.Retire] did.
type RetireResult struct {
	ID     string      `json:"id"`
	Path   string      `json:"path"` // project-relative path of the fact
	Reason string      `json:"reason"`
	Index  IndexResult `json:"index"`
}

// Retire marks the fact id as retired for reason: it no longer holds and
// nothing replaces it (a replacement supersedes it instead). The file stays,
// so git keeps the history; search and INDEX.md leave it out. Under the
// memory lock it rewrites the fact and rebuilds the index; a failed
// rebuild restores the fact.
func (s *Store) Retire(ctx context.Context, id, reason string) (RetireResult, error) {
	if s.opts.Root == "" {
		return RetireResult{}, fmt.Errorf("retire fact: %w", ErrReadOnly)
	}
	reason = strings.Join(strings.Fields(reason), " ")
	switch {
	case reason == "":
		return RetireResult{}, fmt.Errorf("retire fact: %w", ruleErr("reason", "a reason is required: say why the fact no longer holds"))
	case utf8.RuneCountInString(reason) > MaxTitleChars*2:
		return RetireResult{}, fmt.Errorf("retire fact: %w", ruleErr("reason", "the reason is %d characters; the limit is %d", utf8.RuneCountInString(reason), MaxTitleChars*2))
	case !utf8.ValidString(reason):
		return RetireResult{}, fmt.Errorf("retire fact: %w", ruleErr("reason", "the reason is not valid UTF-8 text"))
	}
	// As a write refuses them in any field: doctor reports one stored.
	if err := ctrl.Check("the reason", reason); err != nil {
		return RetireResult{}, fmt.Errorf("retire fact: %w", ruleErr("reason", "%v", err))
	}
	if found := secrets.Find(reason); len(found) > 0 {
		return RetireResult{}, fmt.Errorf("retire fact: %w", &SecretError{Field: "reason", Kinds: secrets.Kinds(found)})
	}
	var res RetireResult
	err := s.locked(ctx, func(mem *confined.WriteFolder) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mu.Lock()
		err := s.sync(ctx)
		var f, raw Fact
		if list := s.byID[id]; err == nil && len(list) > 0 {
			f, raw = list[0].fact(), list[0].raw
		}
		s.mu.Unlock()
		switch {
		case err != nil:
			return err
		case f.ID == "":
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if !f.current() {
			return ruleErr("status", "%s is %s", id, alreadyText(f))
		}
		base := path.Base(raw.Path)
		content, err := readInPlace(mem, base)
		if err != nil {
			return err
		}
		raw.Status, raw.RetiredReason = Retired, reason
		after := editFront(content, raw, "status", "retiredReason")
		if err := s.writeFact(ctx, mem, raw.Path, after); err != nil {
			return err
		}
		idx, err := s.writeIndex(ctx, mem)
		if err != nil {
			_ = mem.WriteFile(base, content, 0o644)
			return err
		}
		res = RetireResult{ID: id, Path: raw.Path, Reason: reason, Index: idx}
		return nil
	})
	if err != nil {
		return RetireResult{}, fmt.Errorf("retire fact: %w", err)
	}
	return res, nil
}
