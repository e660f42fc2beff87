package facts

// This file defines the repair of what a git merge of two branches can leave
// in the memory folder: duplicate fact ids, fact files with conflict
// markers, and supersedes chains whose two ends no longer agree.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/internal/conflict"
	"github.com/foundryhq/foundry/internal/pause"
)

// Provenance answers what git history knows about fact files. A repair asks
// it only to settle a link that names an id several facts share: which of
// them the link meant is the one that carried the id in the commit that
// wrote the link. Paths are project-relative, slash-separated.
type Provenance interface {
	// WrittenIn returns the commit, in the history of HEAD, that left
	// content at p; ok is false when none did (the file is not committed).
	WrittenIn(p string, content []byte) (commit string, ok bool, err error)
	// IDPaths returns the fact files under [Dir] whose names carried id at
	// commit.
	IDPaths(commit, id string) ([]string, error)
	// Sides returns the two parents (ours, then theirs) of the merge commit
	// that recorded content, conflict markers and all, at p.
	Sides(p string, content []byte) (ours, theirs string, ok bool, err error)
	// IsAncestor reports whether commit a is commit b or an ancestor of it.
	IsAncestor(a, b string) (bool, error)
}

// ErrAmbiguousLink marks a repair refused because a supersedes link names
// an id several facts share and nothing settles which one it meant.
var ErrAmbiguousLink = errors.New("ambiguous supersedes link")

// Renumbering records one fact that received a new id.
type Renumbering struct {
	OldID   string `json:"oldId"`
	NewID   string `json:"newId"`
	OldPath string `json:"oldPath"`
	NewPath string `json:"newPath"`
}

// Split records a fact file with conflict markers that a repair turned into
// the facts of the merge's two sides. TheirsID is empty when both sides
// were one fact that differed only in its links, kept as one.
type Split struct {
	Path       string `json:"path"`
	OursID     string `json:"oursId"`
	OursPath   string `json:"oursPath"`
	TheirsID   string `json:"theirsId,omitempty"`
	TheirsPath string `json:"theirsPath,omitempty"`
}

// Relink records a fact whose supersedes links or status a repair rewrote
// in place.
type Relink struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// RepairResult says what [Store.Repair] changed.
type RepairResult struct {
	Renumbered []Renumbering `json:"renumbered,omitempty"`
	Splits     []Split       `json:"splits,omitempty"`
	Relinked   []Relink      `json:"relinked,omitempty"`
	// Unsplit lists conflicted fact files whose sides could not be read;
	// they are left as they are.
	Unsplit []string `json:"unsplit,omitempty"`
}

// Changed reports whether the repair wrote anything.
func (r RepairResult) Changed() bool {
	return len(r.Renumbered)+len(r.Splits)+len(r.Relinked) > 0
}

// side says which part of a file a version is.
type side int

const (
	whole side = iota
	ours
	theirs
)

// version is one fact as the repair sees it: a whole file, or one side of
// a conflicted file.
type version struct {
	f      Fact // as stated; f.Path is the file it is in
	side   side
	file   *conflicted // the conflicted file, for a side
	claims []*claim

	newID   string
	newPath string
	out     Fact // the fact as it will be written
}

// claim is one link a version states, with the text that states it (the
// file, or a side of it), which is what history is asked about.
type claim struct {
	key    string // "supersedes" or "supersededBy"
	id     string
	from   *version
	text   []byte
	target *version // nil: the id names no other fact, left as it is
}

// edge is one resolved link: succ supersedes pred.
type edge struct{ pred, succ *version }

// conflicted is a fact file with conflict markers.
type conflicted struct {
	path string
	data []byte
}

// file is one fact file read from disk.
type file struct {
	path string
	data []byte
}

// planner holds one repair's reading of the memory folder.
type planner struct {
	prov     Provenance
	versions []*version
	byID     map[string][]*version
	maxID    int
	taken    map[string]bool // every fact file path
	unsplit  []string
}

// plan computes the repair of files. It changes nothing; an error matching
// [ErrAmbiguousLink] refuses the whole repair.
func plan(files []file, prov Provenance) (*planner, error) {
	p := &planner{prov: prov, byID: map[string][]*version{}, taken: map[string]bool{}}
	for _, fl := range files {
		p.taken[fl.path] = true
		if n := fileNumber(path.Base(fl.path)); n > p.maxID {
			p.maxID = n
		}
		f, err := Parse(fl.path, fl.data)
		switch {
		case err == nil:
			f.Path = fl.path
			p.add(&version{f: f}, fl.data)
		case errors.Is(err, ErrConflict):
			p.addConflicted(fl)
		}
	}
	sort.SliceStable(p.versions, func(i, j int) bool {
		a, b := p.versions[i], p.versions[j]
		if a.f.Path != b.f.Path {
			return a.f.Path < b.f.Path
		}
		return a.side < b.side
	})
	for _, v := range p.versions {
		for _, c := range v.claims {
			if err := p.resolve(c); err != nil {
				return nil, err
			}
		}
	}
	if err := p.assignIDs(); err != nil {
		return nil, err
	}
	p.relink()
	return p, nil
}

// add records a version and the links its text states.
func (p *planner) add(v *version, text []byte) {
	v.claims = append(v.claims, claimsOf(v, v.f, text)...)
	p.versions = append(p.versions, v)
	p.byID[v.f.ID] = append(p.byID[v.f.ID], v)
	if n := IDNumber(v.f.ID); n > p.maxID {
		p.maxID = n
	}
}

func claimsOf(v *version, f Fact, text []byte) []*claim {
	var out []*claim
	if f.Supersedes != "" {
		out = append(out, &claim{key: "supersedes", id: f.Supersedes, from: v, text: text})
	}
	if f.SupersededBy != "" {
		out = append(out, &claim{key: "supersededBy", id: f.SupersededBy, from: v, text: text})
	}
	return out
}

// addConflicted splits a conflicted file into the facts of its sides: two
// versions, or one when the sides differ only in their links and status.
func (p *planner) addConflicted(fl file) {
	o, t, ok := conflict.Split(fl.data)
	if !ok {
		p.unsplit = append(p.unsplit, fl.path)
		return
	}
	fo, err1 := Parse(fl.path, o)
	ft, err2 := Parse(fl.path, t)
	if err1 != nil || err2 != nil {
		p.unsplit = append(p.unsplit, fl.path)
		return
	}
	fo.Path, ft.Path = fl.path, fl.path
	cf := &conflicted{path: fl.path, data: fl.data}
	if sameExceptLinks(fo, ft) {
		v := &version{f: fo, side: ours, file: cf}
		v.claims = append(v.claims, claimsOf(v, ft, t)...)
		p.add(v, o)
		return
	}
	p.add(&version{f: fo, side: ours, file: cf}, o)
	p.add(&version{f: ft, side: theirs, file: cf}, t)
}

// sameExceptLinks reports whether two facts differ at most in their links
// and status: two branches that superseded the same fact differently.
func sameExceptLinks(a, b Fact) bool {
	a.Supersedes, a.SupersededBy, a.Status = "", "", ""
	b.Supersedes, b.SupersededBy, b.Status = "", "", ""
	return a.ID == b.ID && string(Format(a)) == string(Format(b))
}

// resolve finds the fact a link meant. An id one fact has is that fact. An
// id several facts share is settled by the other end of the link, else by
// history: the fact file that carried the id in the commit that wrote the
// link, and for the two sides of a conflicted file, the side that commit
// lies on.
func (p *planner) resolve(c *claim) error {
	if c.id == c.from.f.ID {
		return nil // names itself: doctor reports it, nothing to follow
	}
	cands := p.byID[c.id]
	switch len(cands) {
	case 0:
		return nil // names no fact: doctor reports it
	case 1:
		c.target = cands[0]
		return nil
	}
	back := "supersedes"
	if c.key == "supersedes" {
		back = "supersededBy"
	}
	if len(p.byID[c.from.f.ID]) == 1 {
		var hits []*version
		for _, cand := range cands {
			for _, cc := range cand.claims {
				if cc.key == back && cc.id == c.from.f.ID {
					hits = append(hits, cand)
					break
				}
			}
		}
		if len(hits) == 1 {
			c.target = hits[0]
			return nil
		}
	}
	refuse := func(why string, args ...any) error {
		return fmt.Errorf("cannot renumber %s: the link from %s (%s: %s) names %d facts, and %s: %w",
			c.id, c.from.f.Path, c.key, c.id, len(cands), fmt.Sprintf(why, args...), ErrAmbiguousLink)
	}
	if p.prov == nil {
		return refuse("without git history nothing tells which one it meant")
	}
	w, ok, err := p.prov.WrittenIn(c.from.f.Path, c.text)
	if err != nil {
		return err
	}
	if !ok {
		return refuse("that text is not committed, so git history cannot tell which one it meant; commit the merge, then run foundry doctor --fix again")
	}
	paths, err := p.prov.IDPaths(w, c.id)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return refuse("the commit %s that wrote it already had %d files named %s", short(w), len(paths), c.id)
	}
	var match []*version
	for _, cand := range cands {
		if cand.f.Path == paths[0] {
			match = append(match, cand)
		}
	}
	if len(match) == 1 {
		c.target = match[0]
		return nil
	}
	if len(match) == 2 && match[0].file != nil && match[0].file == match[1].file {
		o, t, ok, err := p.prov.Sides(match[0].file.path, match[0].file.data)
		if err != nil {
			return err
		}
		if ok {
			inO, err := p.prov.IsAncestor(w, o)
			if err != nil {
				return err
			}
			inT, err := p.prov.IsAncestor(w, t)
			if err != nil {
				return err
			}
			switch {
			case inO && !inT:
				c.target = sideOf(match, ours)
				return nil
			case inT && !inO:
				c.target = sideOf(match, theirs)
				return nil
			}
		}
		return refuse("both sides of the conflicted %s descend from the commit %s that wrote it", paths[0], short(w))
	}
	return refuse("the file %s that carried the id when it was written is gone", paths[0])
}

func sideOf(vs []*version, s side) *version {
	for _, v := range vs {
		if v.side == s {
			return v
		}
	}
	return nil
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// assignIDs keeps each shared id for the earliest fact (by created date,
// then path, ours before theirs) and gives every later one the next free
// id, then places every version in its file.
func (p *planner) assignIDs() error {
	ids := make([]string, 0, len(p.byID))
	for id := range p.byID {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := IDNumber(ids[i]), IDNumber(ids[j])
		if a != b {
			return a < b
		}
		return ids[i] < ids[j]
	})
	for _, id := range ids {
		g := p.byID[id]
		sort.SliceStable(g, func(i, j int) bool {
			a, b := g[i], g[j]
			if a.f.Created != b.f.Created {
				return a.f.Created < b.f.Created
			}
			if a.f.Path != b.f.Path {
				return a.f.Path < b.f.Path
			}
			return a.side < b.side
		})
		g[0].newID = id
		for _, v := range g[1:] {
			p.maxID++
			v.newID = FormatID(p.maxID)
		}
	}
	placed := map[string]*version{}
	for _, v := range p.versions {
		v.newPath = v.f.Path
		if v.newID != v.f.ID || v.side == theirs {
			v.newPath = path.Join(path.Dir(v.f.Path), FileName(v.newID, v.f.Title))
		}
		if o := placed[v.newPath]; o != nil {
			return fmt.Errorf("cannot repair %s: it would be written to %s, as %s would: %w", v.f.Path, v.newPath, o.f.Path, ErrAmbiguousLink)
		}
		if v.newPath != v.f.Path && p.taken[v.newPath] && !p.freed(v.newPath) {
			return fmt.Errorf("cannot repair %s: %s already exists", v.f.Path, v.newPath)
		}
		placed[v.newPath] = v
	}
	return nil
}

// freed reports whether a file path is the old place of a version that
// moves away from it.
func (p *planner) freed(fp string) bool {
	for _, v := range p.versions {
		if v.f.Path == fp {
			return v.newPath != "" && v.newPath != fp
		}
	}
	return false
}

// relink writes every resolved link with the new ids, then makes each group
// of facts joined by links one chain, oldest first: a fact two branches
// both superseded is followed by both successors in turn, so each link is
// stated at both of its ends and only the chain's last fact is active.
func (p *planner) relink() {
	for _, v := range p.versions {
		v.out = v.f
		v.out.ID = v.newID
		v.out.Path = v.newPath
		if v.out.Status == "" {
			v.out.Status = Active
		}
	}
	var edges []edge
	seen := map[edge]bool{}
	linked := map[*version]bool{}
	for _, v := range p.versions {
		for _, c := range v.claims {
			if c.target == nil {
				continue
			}
			e := edge{pred: c.target, succ: v}
			if c.key == "supersededBy" {
				e = edge{pred: v, succ: c.target}
				if c == firstClaim(v, "supersededBy") {
					v.out.SupersededBy = c.target.newID
				}
			} else if c == firstClaim(v, "supersedes") {
				v.out.Supersedes = c.target.newID
			}
			if !seen[e] {
				seen[e] = true
				edges = append(edges, e)
				linked[e.pred], linked[e.succ] = true, true
			}
		}
	}
	// Group the versions joined by links.
	parent := map[*version]*version{}
	var find func(v *version) *version
	find = func(v *version) *version {
		if parent[v] == nil || parent[v] == v {
			return v
		}
		r := find(parent[v])
		parent[v] = r
		return r
	}
	for _, e := range edges {
		a, b := find(e.pred), find(e.succ)
		if a != b {
			parent[a] = b
		}
	}
	groups := map[*version][]*version{}
	var roots []*version
	for _, v := range p.versions {
		if !linked[v] {
			continue
		}
		r := find(v)
		if groups[r] == nil {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], v)
	}
	for _, r := range roots {
		chain := topoOrder(groups[r], edges)
		if chain == nil {
			continue // a cycle: doctor reports it; the links keep their ids
		}
		for i, v := range chain {
			if i > 0 {
				v.out.Supersedes = chain[i-1].newID
			}
			if i < len(chain)-1 {
				v.out.SupersededBy = chain[i+1].newID
				v.out.Status = Superseded
				continue
			}
			v.out.SupersededBy = danglingSuccessor(v)
			v.out.Status = Active
			if v.out.SupersededBy != "" {
				v.out.Status = Superseded
			}
		}
	}
}

func firstClaim(v *version, key string) *claim {
	for _, c := range v.claims {
		if c.key == key {
			return c
		}
	}
	return nil
}

// danglingSuccessor is the supersededBy a chain's last fact keeps: one that
// names no fact (doctor reports it), never one the chain resolved.
func danglingSuccessor(v *version) string {
	for _, c := range v.claims {
		if c.key == "supersededBy" && c.target == nil && c.from == v && c.id == v.f.SupersededBy {
			return c.id
		}
	}
	return ""
}

// topoOrder orders a group so every predecessor comes before its
// successors, the oldest (created date, then id) first among those ready;
// nil when the links form a cycle.
func topoOrder(group []*version, edges []edge) []*version {
	in := map[*version]int{}
	next := map[*version][]*version{}
	member := map[*version]bool{}
	for _, v := range group {
		member[v] = true
	}
	for _, e := range edges {
		if !member[e.pred] {
			continue
		}
		in[e.succ]++
		next[e.pred] = append(next[e.pred], e.succ)
	}
	less := func(a, b *version) bool {
		if a.f.Created != b.f.Created {
			return a.f.Created < b.f.Created
		}
		if na, nb := IDNumber(a.newID), IDNumber(b.newID); na != nb {
			return na < nb
		}
		return a.newPath < b.newPath
	}
	var ready, out []*version
	for _, v := range group {
		if in[v] == 0 {
			ready = append(ready, v)
		}
	}
	for len(ready) > 0 {
		sort.Slice(ready, func(i, j int) bool { return less(ready[i], ready[j]) })
		v := ready[0]
		ready = ready[1:]
		out = append(out, v)
		for _, s := range next[v] {
			if in[s]--; in[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	if len(out) != len(group) {
		return nil
	}
	return out
}

// changed reports whether v must be written: it is a side of a conflicted
// file, or its id, file, links or status change.
func (v *version) changed() bool {
	st := v.f.Status
	if st == "" {
		st = Active
	}
	return v.side != whole || v.newPath != v.f.Path || v.out.ID != v.f.ID ||
		v.out.Supersedes != v.f.Supersedes || v.out.SupersededBy != v.f.SupersededBy || v.out.Status != st
}

// changes reports whether the plan writes anything.
func (p *planner) changes() bool {
	for _, v := range p.versions {
		if v.changed() {
			return true
		}
	}
	return false
}

// readFiles reads every fact file of the memory folder.
func (s *Store) readFiles() ([]file, error) {
	entries, err := fs.ReadDir(s.fsys, Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", Dir, err)
	}
	var out []file
	for _, e := range entries {
		if e.IsDir() || !isFactFile(e.Name()) {
			continue
		}
		p := path.Join(Dir, e.Name())
		data, err := fs.ReadFile(s.fsys, p)
		if err != nil {
			continue // unreadable: doctor reports it; its number is still taken
		}
		out = append(out, file{path: p, data: data})
	}
	return out, nil
}

// Repair fixes, under the memory lock, what a git merge can leave in the
// memory folder, and rebuilds INDEX.md when it changed a fact:
//
//   - a fact file with conflict markers becomes the facts of the merge's two
//     sides, so no text is lost (one fact when the sides differ only in
//     their links);
//   - in each group of facts sharing an id the earliest (by created date,
//     then path) keeps it and every later one gets the next free id, above
//     every id any fact file holds, parsed or not;
//   - every supersedes link follows the fact it meant, and each group of
//     facts joined by links becomes one chain whose links agree at both
//     ends.
//
// A link naming a shared id is settled by its other end, else by prov (nil
// outside git). When nothing settles it, Repair changes nothing and the
// error matches [ErrAmbiguousLink].
func (s *Store) Repair(ctx context.Context, prov Provenance) (RepairResult, error) {
	// A first reading without the lock: most repairs find nothing to do,
	// and then write nothing, not even the lock file.
	files, err := s.readFiles()
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair memory: %w", err)
	}
	if p, err := plan(files, prov); err == nil && !p.changes() {
		return RepairResult{Unsplit: p.unsplit}, nil
	}
	var res RepairResult
	err = s.locked(ctx, func() error {
		files, err := s.readFiles()
		if err != nil {
			return err
		}
		p, err := plan(files, prov)
		if err != nil {
			return err
		}
		res.Unsplit = p.unsplit
		if err := s.apply(ctx, p, &res); err != nil {
			return err
		}
		if !res.Changed() {
			return nil
		}
		_, err = s.writeIndex(ctx)
		return err
	})
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair memory: %w", err)
	}
	return res, nil
}

// apply writes the plan. A fact that moves is renamed to its new file first
// and rewritten there, so a repair killed at any step leaves it in one
// file; the two sides of a conflicted file are written to their own files
// before the conflicted file is overwritten or removed, so a kill never
// loses a side.
func (s *Store) apply(ctx context.Context, p *planner, res *RepairResult) error {
	r, err := s.root()
	if err != nil {
		return err
	}
	splits := map[*conflicted][]*version{}
	var files []*conflicted
	for _, v := range p.versions {
		if !v.changed() {
			continue
		}
		if v.file != nil {
			if splits[v.file] == nil {
				files = append(files, v.file)
			}
			splits[v.file] = append(splits[v.file], v)
			continue
		}
		if v.newPath != v.f.Path {
			if err := r.Rename(v.f.Path, v.newPath); err != nil {
				return fmt.Errorf("move %s: %w", v.f.Path, err)
			}
		}
		if err := r.WriteFile(v.newPath, Format(v.out), 0o644); err != nil {
			return err
		}
		pause.Point(ctx, "facts.after-renumber-write")
		if v.out.ID != v.f.ID {
			res.Renumbered = append(res.Renumbered, Renumbering{OldID: v.f.ID, NewID: v.out.ID, OldPath: v.f.Path, NewPath: v.newPath})
		} else {
			res.Relinked = append(res.Relinked, Relink{ID: v.out.ID, Path: v.newPath})
		}
	}
	for _, cf := range files {
		vs := splits[cf]
		// The side that stays at the conflicted file's path goes last.
		sort.SliceStable(vs, func(i, j int) bool { return vs[j].newPath == cf.path && vs[i].newPath != cf.path })
		kept := false
		for _, v := range vs {
			if err := r.WriteFile(v.newPath, Format(v.out), 0o644); err != nil {
				return err
			}
			kept = kept || v.newPath == cf.path
		}
		if !kept {
			if err := r.Remove(cf.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", cf.path, err)
			}
		}
		sp := Split{Path: cf.path}
		for _, v := range vs {
			if v.side == theirs {
				sp.TheirsID, sp.TheirsPath = v.out.ID, v.newPath
			} else {
				sp.OursID, sp.OursPath = v.out.ID, v.newPath
			}
		}
		res.Splits = append(res.Splits, sp)
	}
	return nil
}

// String describes a split as doctor --fix prints it.
func (sp Split) String() string {
	if sp.TheirsID == "" {
		return fmt.Sprintf("resolved the conflicted %s: both sides are %s, differing only in their supersedes links", sp.Path, sp.OursID)
	}
	return fmt.Sprintf("split the conflicted %s into %s (ours) and %s (theirs)%s", sp.Path, sp.OursID, sp.TheirsID, movedNote(sp))
}

func movedNote(sp Split) string {
	var parts []string
	for _, m := range []struct{ id, p string }{{sp.OursID, sp.OursPath}, {sp.TheirsID, sp.TheirsPath}} {
		if m.p != sp.Path {
			parts = append(parts, m.id+" in "+m.p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}
