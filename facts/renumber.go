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
	"slices"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/conflict"
	"github.com/foundryhq/foundry/internal/pause"
)

// Provenance answers what git history knows about fact files. A repair asks
// it which of several facts sharing an id held it first, and which fact a
// link meant when its id is shared or its other end does not state it: the
// one that carried the id in the commit that wrote the link. Paths are
// project-relative, slash-separated.
type Provenance interface {
	// Writes returns the commits in the history of HEAD that wrote p, oldest
	// first, up to the latest one that left content there; none when no
	// commit left content (the file is not committed as it is).
	Writes(p string, content []byte) ([]Write, error)
	// IDPaths returns the fact files under [Dir] whose names carried id at
	// commit.
	IDPaths(commit, id string) ([]string, error)
	// Sides returns the two parents (ours, then theirs) of the merge commit
	// that recorded content, conflict markers and all, at p.
	Sides(p string, content []byte) (ours, theirs string, ok bool, err error)
	// ReadAt returns the content of p at commit; ok is false when p did not
	// exist there.
	ReadAt(commit, p string) (content []byte, ok bool, err error)
	// ChangedIn reports whether commit itself (not a merge bringing it in)
	// changed p.
	ChangedIn(commit, p string) (bool, error)
	// IsAncestor reports whether commit a is commit b or an ancestor of it.
	IsAncestor(a, b string) (bool, error)
	// Bases returns the commits whose facts keep their ids before others',
	// in order of precedence: the remote's default branch (origin/HEAD),
	// the upstream of the current branch, then the first parent of the
	// merge being made (HEAD) or just made (HEAD^1).
	Bases() ([]string, error)
	// Added returns the place in the history of HEAD of the commit that
	// added p (its oldest write since it was last deleted): a larger place
	// is an older commit. ok is false when no commit wrote p.
	Added(p string) (place int, ok bool, err error)
}

// Write is one commit's version of a file.
type Write struct {
	Commit  string
	Content []byte
}

// ErrAmbiguousLink marks a repair refused because a supersedes link names
// an id several facts share, or one fact that does not link back, and
// nothing settles which fact it meant.
var ErrAmbiguousLink = errors.New("ambiguous supersedes link")

// Renumbering records one fact that received a new id.
type Renumbering struct {
	OldID   string `json:"oldId"`
	NewID   string `json:"newId"`
	OldPath string `json:"oldPath"`
	NewPath string `json:"newPath"`
}

// Split records a fact file with conflict markers that a repair turned into
// the facts of the merge's sides, ours first: two, one when both sides were
// one fact that differed only in its links, more when a side was itself a
// conflicted merge.
type Split struct {
	Path  string   `json:"path"`
	IDs   []string `json:"ids"`
	Paths []string `json:"paths"`
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

// version is one fact as the repair sees it: a whole file, or one side of
// a conflicted file.
type version struct {
	f    Fact        // as stated; f.Path is the file it is in
	file *conflicted // the conflicted file, for a side of one
	part int         // the side's place in the file, ours first
	// tips are the commits whose version of the file the side is, when
	// history knows them.
	tips   []string
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
		return a.part < b.part
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

// leaf is one side of a conflicted file: its fact, the text that states it
// and the commit that text is from, when known.
type leaf struct {
	f    Fact
	text []byte
	tip  string
}

// maxConflictDepth bounds how many conflicted merges of conflicted merges
// a split follows.
const maxConflictDepth = 16

// sides returns the facts a conflicted file holds. History gives them when
// the conflict is committed: the file exactly as each parent of the merge
// that recorded it had it, split again when that side is itself a committed
// conflict (git nests the markers then, which no reading of them undoes
// reliably). Without history the markers give the two sides.
func (p *planner) sides(fp string, data []byte, depth int) ([]leaf, bool) {
	var tips [2]string
	if p.prov != nil {
		if o, t, ok, err := p.prov.Sides(fp, data); err == nil && ok {
			tips = [2]string{o, t}
		}
	}
	if tips[0] == "" {
		o, t, ok := conflict.Split(data)
		if !ok {
			return nil, false
		}
		fo, err1 := Parse(fp, o)
		ft, err2 := Parse(fp, t)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		return []leaf{{fo, o, ""}, {ft, t, ""}}, true
	}
	if depth >= maxConflictDepth {
		return nil, false
	}
	var out []leaf
	for _, tip := range tips {
		text, ok, err := p.prov.ReadAt(tip, fp)
		if err != nil || !ok {
			continue // one side had no such file
		}
		if f, err := Parse(fp, text); err == nil {
			out = append(out, leaf{f, text, tip})
			continue
		} else if !errors.Is(err, ErrConflict) {
			return nil, false
		}
		sub, ok := p.sides(fp, text, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
	}
	return out, len(out) > 0
}

// addConflicted splits a conflicted file into the facts of its sides. Sides
// that are the same fact but for their links and status are kept as one,
// stating every side's links.
func (p *planner) addConflicted(fl file) {
	leaves, ok := p.sides(fl.path, fl.data, 0)
	if !ok {
		p.unsplit = append(p.unsplit, fl.path)
		return
	}
	cf := &conflicted{path: fl.path, data: fl.data}
	var parts []*version
	for _, l := range leaves {
		l.f.Path = fl.path
		var v *version
		for _, o := range parts {
			if sameExceptLinks(o.f, l.f) {
				v = o
				break
			}
		}
		if v == nil {
			v = &version{f: l.f, file: cf, part: len(parts)}
			parts = append(parts, v)
		}
		if l.tip != "" && !slices.Contains(v.tips, l.tip) {
			v.tips = append(v.tips, l.tip)
		}
		for _, c := range claimsOf(v, l.f, l.text) {
			if !slices.ContainsFunc(v.claims, func(o *claim) bool { return o.key == c.key && o.id == c.id }) {
				v.claims = append(v.claims, c)
			}
		}
	}
	for _, v := range parts {
		p.versions = append(p.versions, v)
		p.byID[v.f.ID] = append(p.byID[v.f.ID], v)
		if n := IDNumber(v.f.ID); n > p.maxID {
			p.maxID = n
		}
	}
}

// sameExceptLinks reports whether two facts differ at most in their links
// and status: two branches that superseded the same fact differently.
func sameExceptLinks(a, b Fact) bool {
	a.Supersedes, a.SupersededBy, a.Status = "", "", ""
	b.Supersedes, b.SupersededBy, b.Status = "", "", ""
	return a.ID == b.ID && string(Format(a)) == string(Format(b))
}

// resolve finds the fact a link meant. An id one fact has is that fact
// when it links back, or where history says nothing otherwise (outside
// git, or a link written since its file's last commit): a renumbering on
// another branch can have given the id the link meant to another fact. An id several facts share is settled by the other end of
// the link. Otherwise history settles it: the fact file that carried the
// id in the commit that wrote the link, and for the two sides of a
// conflicted file, the side that commit lies on.
func (p *planner) resolve(c *claim) error {
	if c.id == c.from.f.ID {
		return nil // names itself: doctor reports it, nothing to follow
	}
	cands := p.byID[c.id]
	switch len(cands) {
	case 0:
		return nil // names no fact: doctor reports it
	case 1:
		if p.prov == nil || linksBack(cands[0], c) {
			c.target = cands[0]
			return nil
		}
	}
	if len(p.byID[c.from.f.ID]) == 1 {
		var hits []*version
		for _, cand := range cands {
			if linksBack(cand, c) {
				hits = append(hits, cand)
			}
		}
		// One fact states the other end: it is the one. Every fact does
		// (two branches superseded the same fact): each states its own
		// link, which the chain follows, so this one adds nothing.
		if len(hits) == 1 || len(hits) == len(cands) {
			c.target = hits[0]
			return nil
		}
	}
	refuse := func(why string, args ...any) error {
		what := fmt.Sprintf("renumber %s: the link from %s (%s: %s) names %d facts", c.id, c.from.f.Path, c.key, c.id, len(cands))
		if len(cands) == 1 {
			what = fmt.Sprintf("settle the link from %s (%s: %s): it names %s, which does not link back", c.from.f.Path, c.key, c.id, cands[0].f.Path)
		}
		return fmt.Errorf("cannot %s, and %s: %w", what, fmt.Sprintf(why, args...), ErrAmbiguousLink)
	}
	if p.prov == nil {
		return refuse("without git history nothing tells which one it meant")
	}
	writes, err := p.prov.Writes(c.from.f.Path, c.text)
	if err != nil {
		return err
	}
	if len(writes) == 0 {
		if len(cands) == 1 {
			// Written since the file's last commit (by hand, say): no
			// history says the id was another fact's, so it is the fact
			// that has it, as outside git.
			c.target = cands[0]
			return nil
		}
		return refuse("that text is not committed, so git history cannot tell which fact it meant; commit the merge, then run foundry doctor --fix again")
	}
	// The link was written by the oldest commit whose version of the file
	// states it; on a file two branches both wrote, by one of them.
	why := "no commit of the file states it"
	for _, w := range writes {
		f, err := Parse(c.from.f.Path, w.Content)
		if err != nil || !states(f, c.key, c.id) {
			continue
		}
		t, reason, err := p.resolveAt(c, cands, w.Commit)
		if err != nil {
			return err
		}
		if t != nil {
			c.target = t
			return nil
		}
		why = reason
	}
	return refuse("%s", why)
}

// linksBack reports whether v states the other end of c.
func linksBack(v *version, c *claim) bool {
	back := "supersedes"
	if c.key == "supersedes" {
		back = "supersededBy"
	}
	for _, cc := range v.claims {
		if cc.key == back && cc.id == c.from.f.ID {
			return true
		}
	}
	return false
}

// states reports whether f states the link key: id.
func states(f Fact, key, id string) bool {
	if key == "supersedes" {
		return f.Supersedes == id
	}
	return f.SupersededBy == id
}

// resolveAt finds the candidate a link meant when commit w wrote it: the
// fact file that carried the id at w (the one w changed too, when several
// did, as memory write marks the fact it supersedes in the same commit),
// and for the sides of a conflicted file, the side w lies on. It returns
// nil and why when w does not settle it.
func (p *planner) resolveAt(c *claim, cands []*version, w string) (*version, string, error) {
	paths, err := p.prov.IDPaths(w, c.id)
	if err != nil {
		return nil, "", err
	}
	if len(paths) > 1 {
		var changed []string
		for _, fp := range paths {
			ok, err := p.prov.ChangedIn(w, fp)
			if err != nil {
				return nil, "", err
			}
			if ok {
				changed = append(changed, fp)
			}
		}
		if len(changed) == 1 {
			paths = changed
		}
	}
	if len(paths) != 1 {
		return nil, fmt.Sprintf("the commit %s that wrote it had %d files named %s", short(w), len(paths), c.id), nil
	}
	var match []*version
	for _, cand := range cands {
		if cand.f.Path == paths[0] {
			match = append(match, cand)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], "", nil
	case len(match) == 0:
		return nil, fmt.Sprintf("the file %s that carried the id when it was written is gone", paths[0]), nil
	}
	// Sides of one conflicted file: the one whose side w lies on.
	var on []*version
	for _, v := range match {
		for _, tip := range v.tips {
			ok, err := p.prov.IsAncestor(w, tip)
			if err != nil {
				return nil, "", err
			}
			if ok {
				on = append(on, v)
				break
			}
		}
	}
	if len(on) == 1 {
		return on[0], "", nil
	}
	return nil, fmt.Sprintf("the commit %s that wrote it lies on %d sides of the conflicted %s", short(w), len(on), paths[0]), nil
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// assignIDs keeps each shared id for the fact that held it first (see
// [planner.heldFirst]) and gives every other one the next free id, then
// places every version in its file.
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
		if len(g) > 1 {
			if err := p.heldFirst(g); err != nil {
				return err
			}
		}
		g[0].newID = id
		for _, v := range g[1:] {
			p.maxID++
			v.newID = FormatID(p.maxID)
		}
	}
	placed := map[string]*version{}
	for _, v := range p.versions {
		v.newPath = v.f.Path
		if v.newID != v.f.ID || v.part > 0 {
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

// heldFirst sorts a group of versions sharing an id so that the one that
// held the id first comes first, as history tells: the one the first base
// (see [Provenance.Bases]) holding some but not all of them holds, so that
// a fact the remote's default branch, the upstream or the merge's first
// parent already had keeps its id; else the one whose file was added first in the history of HEAD, a
// version never committed last. Where history does not tell them apart
// (the sides of a conflicted file share its history), or outside git, the
// earliest by created date, then path, ours before theirs.
func (p *planner) heldFirst(g []*version) error {
	type rank struct {
		held  []bool // by each base
		place int    // of the commit that added the file; -1: none
	}
	ranks := map[*version]*rank{}
	if p.prov != nil {
		bases, err := p.prov.Bases()
		if err != nil {
			return err
		}
		for _, v := range g {
			r := &rank{place: -1}
			for _, b := range bases {
				ok, err := p.holds(b, v)
				if err != nil {
					return err
				}
				r.held = append(r.held, ok)
			}
			place, ok, err := p.prov.Added(v.f.Path)
			if err != nil {
				return err
			}
			if ok {
				r.place = place
			}
			ranks[v] = r
		}
	}
	sort.SliceStable(g, func(i, j int) bool {
		a, b := g[i], g[j]
		if ra, rb := ranks[a], ranks[b]; ra != nil && rb != nil {
			for k := range ra.held {
				if ra.held[k] != rb.held[k] {
					return ra.held[k]
				}
			}
			if ra.place != rb.place {
				return ra.place > rb.place
			}
		}
		if a.f.Created != b.f.Created {
			return a.f.Created < b.f.Created
		}
		if a.f.Path != b.f.Path {
			return a.f.Path < b.f.Path
		}
		return a.part < b.part
	})
	return nil
}

// holds reports whether commit has v: its file, with v's id, and for a side
// of a conflicted file, that side's fact.
func (p *planner) holds(commit string, v *version) (bool, error) {
	data, ok, err := p.prov.ReadAt(commit, v.f.Path)
	if err != nil || !ok {
		return false, err
	}
	f, err := Parse(v.f.Path, data)
	if err != nil {
		return false, nil // conflicted or malformed there: not this version
	}
	return f.ID == v.f.ID && (v.file == nil || sameExceptLinks(f, v.f)), nil
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
	return v.file != nil || v.newPath != v.f.Path || v.out.ID != v.f.ID ||
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
//   - in each group of facts sharing an id the one that held it first in
//     git history keeps it (the one the remote's default branch already
//     has, else the upstream, else the merge's first parent, else the one committed first; by
//     created date, then path, where history does not tell) and every
//     other one gets the next free id, above every id any fact file holds,
//     parsed or not;
//   - every supersedes link follows the fact it meant, and each group of
//     facts joined by links becomes one chain whose links agree at both
//     ends.
//
// prov is nil outside git. A link naming a shared id is settled by its
// other end, else by prov; so is a link naming an id one fact has that
// does not link back, which outside git is taken as that fact. When
// nothing settles a link, Repair changes nothing and the error matches
// [ErrAmbiguousLink].
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
	err = s.locked(ctx, func(mem *confined.WriteFolder) error {
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
		_, err = s.writeIndex(ctx, mem)
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
			// A fact not rewritten goes back where it was, as it was: at
			// its new place it would claim a number its id is not, which
			// the next repair would skip.
			if v.newPath != v.f.Path && r.Rename(v.newPath, v.f.Path) == nil {
				return fmt.Errorf("%w; %s stays as it was", err, v.f.Path)
			}
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
		byPart := slices.Clone(vs)
		slices.SortFunc(byPart, func(a, b *version) int { return a.part - b.part })
		for _, v := range byPart {
			sp.IDs = append(sp.IDs, v.out.ID)
			sp.Paths = append(sp.Paths, v.newPath)
		}
		res.Splits = append(res.Splits, sp)
	}
	return nil
}

// String describes a split as doctor --fix prints it.
func (sp Split) String() string {
	switch len(sp.IDs) {
	case 1:
		return fmt.Sprintf("resolved the conflicted %s: both sides are %s, differing only in their supersedes links", sp.Path, sp.IDs[0])
	case 2:
		return fmt.Sprintf("split the conflicted %s into %s (ours) and %s (theirs)%s", sp.Path, sp.IDs[0], sp.IDs[1], sp.moved())
	}
	return fmt.Sprintf("split the conflicted %s into %s%s", sp.Path, strings.Join(sp.IDs, ", "), sp.moved())
}

// moved names the sides written to another file.
func (sp Split) moved() string {
	var parts []string
	for i, p := range sp.Paths {
		if p != sp.Path {
			parts = append(parts, sp.IDs[i]+" in "+p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}
