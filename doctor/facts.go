// This file defines the checks of project memory: fact files, their ids,
// their supersedes links, expiry and INDEX.md.

package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/facts"
)

// factsProducer is the producedBy doctor adds to a fact to validate it as a
// fact.v1 artifact.
const factsProducer = "foundry-doctor"

// fixCommand repairs what --fix can repair.
const fixCommand = "foundry doctor --fix"

func (r *run) checkFacts(ctx context.Context) error {
	// Each fact, with schema and producedBy added, is a fact.v1 artifact:
	// validated as it is read, the only check that needs its body.
	raw, problems, err := r.scanFacts(ctx, func(f facts.Fact) error {
		vs, err := r.reg.ValidateValue("fact.v1", f.Artifact(factsProducer))
		if err != nil {
			return err
		}
		for _, v := range vs {
			r.add(CheckFactsValid, Finding{File: f.Path, Message: v.String()})
		}
		if field, c, ok := f.NotText(); ok {
			r.escapedControl(f.Path, field, c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.checked(CheckFactsParse, len(problems)+len(raw))
	r.rep.Files += len(problems) + len(raw)
	for _, e := range problems {
		var pe *facts.ParseError
		if errors.Is(e, facts.ErrConflict) {
			continue // conflict.markers reports it, with the fix
		}
		if errors.As(e, &pe) {
			r.add(CheckFactsParse, Finding{File: pe.Path, Line: pe.Line, Message: pe.Msg})
			continue
		}
		r.add(CheckFactsParse, Finding{File: facts.Dir, Message: e.Error()})
	}
	r.checked(CheckFactsValid, len(raw))

	// Duplicate ids: what a merge of two branches that both wrote
	// fact-0016 leaves behind.
	byID, err := r.factUniverse(raw)
	if err != nil {
		return err
	}
	r.checked(CheckFactsDuplicate, len(raw))
	for _, id := range sortedIDs(byID) {
		group := byID[id]
		if len(group) < 2 {
			continue
		}
		// Two branches that each wrote a fact gave it the same id: a
		// finding to renumber after the merge, not a reason to refuse it
		// (design: no merge conflict). A file made in the merge by hand
		// is no branch's.
		fromMerge, err := r.mergeSides(group)
		if err != nil {
			return err
		}
		for _, f := range group {
			if !r.inScope(f.Path) {
				continue
			}
			var others []string
			for _, o := range group {
				if o.Path != f.Path {
					others = append(others, o.Path)
				}
			}
			finding := Finding{File: f.Path, Message: fmt.Sprintf("%s is also the id of %s", id, strings.Join(others, ", ")), Fix: fixCommand}
			if fromMerge {
				finding.Severity, finding.Note = Warning, "the merge is not refused for it; renumber after it with "+fixCommand
			}
			r.add(CheckFactsDuplicate, finding)
		}
	}

	// Supersedes links: both ends must exist and agree, and following
	// supersedes must never come back to where it started.
	r.checked(CheckFactsSupersedes, len(raw))
	for _, f := range raw {
		for _, l := range []struct{ key, id string }{{"supersedes", f.Supersedes}, {"supersededBy", f.SupersededBy}} {
			switch {
			case l.id == "":
			case l.id == f.ID:
				r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("%s: %s names the fact itself", l.key, l.id)})
			case len(byID[l.id]) == 0:
				r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("%s: %s does not exist", l.key, l.id)})
			}
		}
	}
	r.checkLinkEnds(raw, byID)
	if r.only != nil {
		if err := r.checkDeletedFacts(byID); err != nil {
			return err
		}
	}
	for _, cycle := range supersedesCycles(raw) {
		first := byID[cycle[0]][0]
		r.add(CheckFactsSupersedes, Finding{File: first.Path, Message: "supersedes chain forms a cycle: " + strings.Join(append(cycle, cycle[0]), " → ")})
	}

	// Expiry is information: the fact is no longer loaded. Only a current
	// fact is reported: a superseded or retired one is out of search and
	// INDEX.md already, and nothing is left to do about it.
	r.checked(CheckFactsExpired, len(raw))
	derived := facts.DeriveStatus(raw)
	for _, f := range derived {
		if f.Status != facts.Superseded && f.Status != facts.Retired && f.Expired(r.today) {
			r.add(CheckFactsExpired, Finding{File: f.Path, Message: fmt.Sprintf("%s expired on %s and is no longer loaded; re-check it: write its successor with memory write --supersedes %s, or retire it with memory retire %s", f.ID, f.Expires, f.ID, f.ID)})
		}
	}

	// INDEX.md must be what `memory index` would write.
	if r.only != nil {
		return r.checkStagedIndex() // rebuilding it reads every fact
	}
	budget := r.p.Config.Memory.IndexBudgetTokens
	if budget <= 0 {
		budget = facts.DefaultIndexBudget
	}
	idx := facts.BuildIndex(derived, r.today, budget)
	onDisk, err := fs.ReadFile(r.p.FS, facts.IndexPath)
	msg, unread := unreadable(err)
	switch {
	case unread && !errors.Is(err, fs.ErrNotExist):
		r.checked(CheckFactsIndex, 1)
		r.add(CheckFactsIndex, Finding{File: facts.IndexPath, Message: msg, Fix: "foundry memory index"})
	case errors.Is(err, fs.ErrNotExist):
		if len(raw) > 0 {
			r.checked(CheckFactsIndex, 1)
			r.add(CheckFactsIndex, Finding{File: facts.IndexPath, Message: fmt.Sprintf("INDEX.md is missing (%s)", idx.Summary()), Fix: "foundry memory index"})
		}
	case err != nil:
		return err
	default:
		r.checked(CheckFactsIndex, 1)
		r.rep.Files++
		if !bytes.Equal(onDisk, idx.Content) {
			r.add(CheckFactsIndex, Finding{File: facts.IndexPath, Message: fmt.Sprintf("INDEX.md is stale: it does not match the facts (rebuilt it would say %s)", idx.Summary()), Fix: "foundry memory index"})
		}
	}
	return nil
}

// scanFacts reads the fact files one at a time, as a [facts.Store] over
// the project would, and hands each fact that parses, body and all, to
// each. It returns those facts without their bodies (see [lean]), sorted
// as [facts.Store.RawFacts] sorts them, and the errors of the files that
// do not parse, as [facts.Store.Problems] returns them. A store keeps every
// fact whole (2,000 facts of 60 KB held 250 MB); the sweep needs the body
// of one fact at a time, so its memory is that of the metadata.
func (r *run) scanFacts(ctx context.Context, each func(facts.Fact) error) (raw []facts.Fact, problems []error, err error) {
	es, err := fs.ReadDir(r.p.FS, facts.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("read %s: %w", facts.Dir, err)
	}
	for _, e := range es {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if e.IsDir() || !isFactFile(e.Name()) {
			continue
		}
		p := facts.Dir + "/" + e.Name()
		data, err := r.read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			// One unreadable file is a problem of its own, as in a store.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			problems = append(problems, &facts.ParseError{Path: p, Msg: "cannot be read: " + err.Error()})
			continue
		}
		// This is the one read of a fact file: the conflict scan and the
		// secret scan leave them to it.
		if e.Type().IsRegular() {
			r.conflictsIn(p, data)
		}
		r.secretsIn(p, data, true, false)
		f, err := facts.Parse(p, data)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		f.Path = p
		if err := each(f); err != nil {
			return nil, nil, err
		}
		raw = append(raw, lean(f))
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].Error() < problems[j].Error() })
	sort.SliceStable(raw, func(i, j int) bool {
		a, b := facts.IDNumber(raw[i].ID), facts.IDNumber(raw[j].ID)
		if a != b {
			return a < b
		}
		return raw[i].Path < raw[j].Path
	})
	return raw, problems, nil
}

// isFactFile reports whether a name in the memory folder is a fact file's.
// readAsFact reports whether the file p is read by the fact checks, which
// scan it for conflict markers and secrets as they read it: a fact file
// directly in the memory folder.
func readAsFact(p string) bool { return path.Dir(p) == facts.Dir && isFactFile(path.Base(p)) }

func isFactFile(name string) bool {
	return strings.HasPrefix(name, "fact-") && strings.HasSuffix(name, ".md")
}

// lean returns f without its body, its strings copied: the fields
// [facts.Parse] returns share the text of the whole file, so one kept
// title would keep the file's every byte.
func lean(f facts.Fact) facts.Fact {
	f.Body = ""
	for _, s := range []*string{&f.ID, &f.Title, &f.Scope, &f.Source, &f.Created, &f.Expires, &f.Supersedes, &f.SupersededBy, &f.RetiredReason, &f.Path} {
		*s = strings.Clone(*s)
	}
	f.Type = facts.Type(strings.Clone(string(f.Type)))
	f.Confidence = facts.Confidence(strings.Clone(string(f.Confidence)))
	f.Status = facts.Status(strings.Clone(string(f.Status)))
	tags := make([]string, len(f.Tags))
	for i, t := range f.Tags {
		tags[i] = strings.Clone(t)
	}
	f.Tags = tags
	return f
}

func sortedIDs(m map[string][]facts.Fact) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := facts.IDNumber(ids[i]), facts.IDNumber(ids[j])
		if a != b {
			return a < b
		}
		return ids[i] < ids[j]
	})
	return ids
}

// supersedesCycles returns each cycle of the supersedes graph once, as the
// ids along it starting from the smallest.
func supersedesCycles(raw []facts.Fact) [][]string {
	next := map[string]string{}
	for _, f := range raw {
		if f.Supersedes != "" && f.Supersedes != f.ID {
			if _, ok := next[f.ID]; !ok {
				next[f.ID] = f.Supersedes
			}
		}
	}
	ids := make([]string, 0, len(next))
	for id := range next {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	state := map[string]int{} // 0 unseen, 1 on the current path, 2 done
	var cycles [][]string
	for _, start := range ids {
		var trail []string
		id, open := start, true
		for state[id] == 0 {
			state[id] = 1
			trail = append(trail, id)
			n, ok := next[id]
			if !ok {
				open = false // the chain ends
				break
			}
			id = n
		}
		if open && state[id] == 1 {
			// The walk came back to a node of this trail: a new cycle.
			i := 0
			for trail[i] != id {
				i++
			}
			c := append([]string(nil), trail[i:]...)
			low := 0
			for j := range c {
				if c[j] < c[low] {
					low = j
				}
			}
			cycles = append(cycles, append(c[low:], c[:low]...))
		}
		for _, t := range trail {
			state[t] = 2
		}
	}
	return cycles
}

// checkLinkEnds reports a supersedes link stated at one end only: a fact
// that supersedes another which does not name it as its successor, a
// successor that does not name the fact back, and a status that disagrees
// with the links (superseded without a successor, a successor while
// active). Links naming a shared or missing id are reported elsewhere. The
// staged check cannot see every successor, so it leaves out "superseded
// without a successor".
func (r *run) checkLinkEnds(raw []facts.Fact, byID map[string][]facts.Fact) {
	successors := map[string]bool{} // ids some fact supersedes
	for _, f := range raw {
		if f.Supersedes != "" {
			successors[f.Supersedes] = true
		}
	}
	for _, f := range raw {
		if f.Supersedes != "" && f.Supersedes != f.ID && len(byID[f.Supersedes]) == 1 && len(byID[f.ID]) == 1 {
			t := byID[f.Supersedes][0]
			switch {
			case t.SupersededBy == "":
				r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("supersedes: %s, but %s names no successor in supersededBy", t.ID, t.ID), Fix: fixCommand})
			case t.SupersededBy != f.ID:
				r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("supersedes: %s, but %s says it is superseded by %s", t.ID, t.ID, t.SupersededBy), Fix: fixCommand})
			}
		}
		if f.SupersededBy != "" && f.SupersededBy != f.ID && len(byID[f.SupersededBy]) == 1 && len(byID[f.ID]) == 1 {
			t := byID[f.SupersededBy][0]
			if t.Supersedes != f.ID {
				what := "names no fact in supersedes"
				if t.Supersedes != "" {
					what = "supersedes " + t.Supersedes
				}
				r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("supersededBy: %s, but %s %s", t.ID, t.ID, what), Fix: fixCommand})
			}
		}
		if len(byID[f.ID]) != 1 {
			continue
		}
		switch {
		case f.Status == facts.Superseded && f.SupersededBy == "" && !successors[f.ID] && r.only == nil:
			r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("status: superseded, but no fact supersedes %s", f.ID)})
		case f.Status != facts.Superseded && f.SupersededBy != "":
			r.add(CheckFactsSupersedes, Finding{File: f.Path, Message: fmt.Sprintf("status: %s, but %s has a successor", statusOf(f), f.ID), Fix: fixCommand})
		}
	}
}

func statusOf(f facts.Fact) facts.Status {
	if f.Status == "" {
		return facts.Active
	}
	return f.Status
}

// mergeSides reports whether the staged check is of a merge's commit and
// every fact of group is, as staged, as one side of the merge has it:
// HEAD's version of its file or MERGE_HEAD's. Without MERGE_HEAD, as when
// git runs the pre-merge-commit hook ([Env.Merge]) on the index it merged
// itself, before it writes MERGE_HEAD, every one is.
func (r *run) mergeSides(group []facts.Fact) (bool, error) {
	switch {
	case r.only == nil:
		return false, nil // a sweep: no commit is being made
	case r.repo == nil || !r.repo.Merging():
		return r.env.Merge, nil
	}
	var sides []fs.FS
	for _, rev := range []string{"HEAD", "MERGE_HEAD"} {
		side, _, err := r.repo.RevFS(rev, r.rel)
		if err != nil {
			return false, err
		}
		sides = append(sides, side)
	}
	for _, f := range group {
		staged, err := fs.ReadFile(r.all, f.Path)
		if err != nil {
			return false, err
		}
		if !slices.ContainsFunc(sides, func(side fs.FS) bool {
			data, err := fs.ReadFile(side, f.Path)
			return err == nil && bytes.Equal(data, staged)
		}) {
			return false, nil
		}
	}
	return true, nil
}
