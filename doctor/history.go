// This file defines the history pass: breaking edits of published
// contracts, and artifacts that were valid when written but fail since a
// contract was tightened.

package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
)

func (r *run) checkHistory(ctx context.Context) error {
	hist := &r.rep.History
	why := ""
	switch {
	case r.env.NoHistory:
		why = "--no-history"
	case r.unread != nil:
		why = "the repository's format is not supported (" + r.unread.Setting + ")"
	case r.repo == nil:
		why = "the project is not in a git repository"
	case !r.repo.HasCommits():
		why = "the repository has no commits yet"
	}
	if why != "" {
		hist.Skipped = why
		for _, c := range Checks() {
			if c.History {
				r.skip(c.ID, why)
			}
		}
		return nil
	}
	rev := "HEAD"
	if r.p.Source.Rev != "" {
		rev = r.p.Commit.Hash
	}

	// Only artifacts that fail a project-local contract can be explained
	// from this repository's history: an embedded contract's history is
	// the binary's (see the contracts lock check).
	var failing []artifact
	for _, a := range r.artifacts {
		if len(a.findings) > 0 && !r.reg.Embedded(a.contract) {
			failing = append(failing, a)
		}
	}
	// Contract files are followed through the whole history; of a failing
	// artifact only the commit that last wrote it matters, so the walk
	// stops looking for it once that commit is found.
	var latest []string
	for _, a := range failing {
		latest = append(latest, a.path)
	}
	h, err := r.repo.History(ctx, rev, git.HistoryOptions{
		Sub:      r.rel,
		Prefixes: []string{contracts.LocalDir + "/"},
		Latest:   latest,
		Progress: func(n int) {
			if n%64 == 0 {
				r.progress("history", n, 0)
			}
		},
	})
	if err != nil {
		return err
	}
	hist.Ran, hist.From, hist.Commits, hist.Truncated = true, h.Head.Short, h.Commits, h.Truncated
	hr := &historyRun{run: r, h: h, regs: map[string]*contracts.Registry{}, atCommit: map[string]*contracts.Registry{},
		ancestor: map[[2]string]bool{}, inHistoryOf: map[string]func(string) bool{}}
	if err := hr.breakingEdits(); err != nil {
		return err
	}
	r.checked(CheckBlackboardStale, len(failing))
	for _, a := range failing {
		if err := hr.explain(a); err != nil {
			return err
		}
	}
	return nil
}

type historyRun struct {
	*run
	h    *git.History
	regs map[string]*contracts.Registry // by schema folder tree hash; nil when it does not load
	// atCommit is registryAt's answer by commit hash: every failing
	// artifact asks again about the commits that changed a schema.
	atCommit map[string]*contracts.Registry
	sc       []git.PathChange // schemaCommits, once computed
	// ancestor is isAncestor's answer by the two commits' hashes: the
	// artifacts a commit wrote together ask about the same commits.
	ancestor map[[2]string]bool
	// inHistoryOf is git.History.InHistoryOf's answer by commit: the
	// artifacts a contract's tightening left invalid ask about one commit.
	inHistoryOf map[string]func(string) bool
}

// isAncestor reports whether commit a is commit b or in its history.
func (hr *historyRun) isAncestor(a, b string) (bool, error) {
	key := [2]string{a, b}
	if ok, done := hr.ancestor[key]; done {
		return ok, nil
	}
	ok, err := hr.h.IsAncestor(a, b)
	if err != nil {
		return false, err
	}
	hr.ancestor[key] = ok
	return ok, nil
}

// descends reports whether commit b is commit a or has a in its history,
// searching b's history once for every a asked about.
func (hr *historyRun) descends(b, a string) (bool, error) {
	in, ok := hr.inHistoryOf[b]
	if !ok {
		var err error
		if in, err = hr.h.InHistoryOf(b); err != nil {
			return false, err
		}
		hr.inHistoryOf[b] = in
	}
	return in(a), nil
}

// isContractFile reports whether p is a project-local contract or shared
// piece, the files a published version lives in.
func isContractFile(p string) bool {
	_, ok := contracts.ParseFileName(path.Base(p))
	return path.Dir(p) == contracts.LocalDir && ok
}

// uncommitted names the source's own state when it is not a commit.
func (r *run) uncommitted() string {
	switch {
	case r.p.Source.Rev != "":
		return ""
	case r.p.Source.Staged:
		return "the index (staged)"
	}
	return "the working tree (uncommitted)"
}

// breakingEdits compares each version of every published contract file with
// the one before it.
func (hr *historyRun) breakingEdits() error {
	for _, p := range hr.h.Paths() {
		if !isContractFile(p) {
			continue
		}
		hr.checked(CheckContractsBreaking, 1)
		changes := hr.h.Changes(p)
		published, _ := publication(changes)
		var prev string // blob of the latest version before the one looked at
		for i := len(changes) - 1; i >= 0; i-- {
			c := changes[i]
			switch {
			case prev == "":
				if !c.Deleted() {
					prev = c.Blob
				}
			case c.Deleted():
				hr.add(CheckContractsBreaking, Finding{File: p, Message: deletedMessage, Note: editNote(p, describeCommit(c.Commit), published.Short, true)})
			default:
				if err := hr.compareVersions(p, prev, c.Blob, describeCommit(c.Commit), published); err != nil {
					return err
				}
				prev = c.Blob
			}
		}
		where := hr.uncommitted()
		if prev == "" || where == "" {
			continue
		}
		cur, err := fs.ReadFile(hr.p.FS, p)
		_, unread := unreadable(err)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !changes[0].Deleted() {
				hr.add(CheckContractsBreaking, Finding{File: p, Message: deletedMessage, Note: editNote(p, where, published.Short, true)})
			}
		case unread:
			continue // contracts.local reports the file
		case err != nil:
			return err
		case git.BlobID(cur) != prev:
			old, err := hr.repo.ReadBlob(p, prev)
			if errors.Is(err, confined.ErrTooLarge) {
				hr.add(CheckContractsBreaking, Finding{File: p, Message: "not compared: " + err.Error()})
				continue
			}
			if err != nil {
				return err
			}
			hr.addBreaking(p, old, cur, where, published)
		}
	}
	return nil
}

func describeCommit(c git.Commit) string { return fmt.Sprintf("%s (%s)", c.Short, c.When) }

func (hr *historyRun) compareVersions(p, oldBlob, newBlob, where string, published git.Commit) error {
	old, err := hr.repo.ReadBlob(p, oldBlob)
	if err == nil {
		var cur []byte
		if cur, err = hr.repo.ReadBlob(p, newBlob); err == nil {
			hr.addBreaking(p, old, cur, where, published)
			return nil
		}
	}
	if errors.Is(err, confined.ErrTooLarge) {
		hr.add(CheckContractsBreaking, Finding{File: p, Message: "not compared: " + err.Error()})
		return nil
	}
	return err
}

func (hr *historyRun) addBreaking(p string, old, cur []byte, where string, published git.Commit) {
	changes, err := BreakingChanges(old, cur)
	if err != nil {
		return // a version that is not JSON is reported by contracts.local when current
	}
	for _, c := range changes {
		hr.add(CheckContractsBreaking, Finding{File: p, Message: c.String(), Note: editNote(p, where, published.Short, false)})
	}
}

// deletedMessage is the finding on a published contract deleted.
const deletedMessage = "#: deleted the published contract"

// editNote says who edited (or deleted) a published contract and what to
// do instead; published names the commit that published it.
func editNote(p, where, published string, deleted bool) string {
	name := path.Base(p)
	id := strings.TrimSuffix(strings.TrimSuffix(name, ".schema.json"), ".defs.json")
	if deleted {
		return fmt.Sprintf("deletion of %s in %s, published in %s: a published version is never deleted: artifacts and history still name it; restore it",
			id, where, published)
	}
	return fmt.Sprintf("breaking edit of %s in %s, published in %s: a published version is never edited; publish %s instead",
		id, where, published, nextVersion(name))
}

// publication returns the commit that published a file: the oldest of its
// changes (newest first, as [git.History.Changes] gives them) that did not
// delete it.
func publication(changes []git.PathChange) (git.Commit, bool) {
	for i := len(changes) - 1; i >= 0; i-- {
		if !changes[i].Deleted() {
			return changes[i].Commit, true
		}
	}
	return git.Commit{}, false
}

// registryAt returns the contracts as of a commit: the embedded ones plus
// the project-local schemas of that commit. Registries are kept by the
// content of the schema folder (its tree hash), not by commit: the hundreds
// of commits of a history share a handful of schema versions, and each is
// loaded and compiled once.
func (hr *historyRun) registryAt(hash string) *contracts.Registry {
	if reg, ok := hr.atCommit[hash]; ok {
		return reg
	}
	reg := hr.loadRegistryAt(hash)
	hr.atCommit[hash] = reg
	return reg
}

func (hr *historyRun) loadRegistryAt(hash string) *contracts.Registry {
	fsys, _, err := hr.repo.RevFS(hash, hr.rel)
	if err != nil {
		return nil
	}
	key := "none" // no schema folder: the embedded contracts alone
	if info, err := fs.Stat(fsys, contracts.LocalDir); err == nil {
		h, ok := info.(interface{ Hash() string })
		if !ok {
			return nil
		}
		key = h.Hash()
	}
	if reg, ok := hr.regs[key]; ok {
		return reg
	}
	reg, err := contracts.Load(fsys)
	if err != nil {
		reg = nil
	}
	hr.regs[key] = reg
	return reg
}

// schemaCommits returns the commits that changed a contract file, newest
// first.
func (hr *historyRun) schemaCommits() []git.PathChange {
	if hr.sc != nil {
		return hr.sc
	}
	seen := map[string]bool{}
	var out []git.PathChange
	for _, p := range hr.h.Paths() {
		if !isContractFile(p) {
			continue
		}
		for _, c := range hr.h.Changes(p) {
			if !seen[c.Commit.Hash] {
				seen[c.Commit.Hash] = true
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	hr.sc = append([]git.PathChange{}, out...)
	return hr.sc
}

// explain turns the failures of an artifact that was valid against its
// contract as of the commit that wrote it into blackboard.tightened
// findings naming that commit and the one that tightened the contract.
func (hr *historyRun) explain(a artifact) error {
	written, ok := hr.h.LastChange(a.path)
	if !ok || written.Deleted() || written.Blob != a.blob {
		return nil // not committed as it is now: nothing to explain
	}
	// Read again, one failing artifact at a time; content changed since
	// the sweep is not what was validated, and is left unexplained.
	data, err := fs.ReadFile(hr.p.FS, a.path)
	if err != nil || git.BlobID(data) != a.blob {
		return nil
	}
	then := hr.registryAt(written.Commit.Hash)
	if then == nil || !then.Has(a.contract) {
		return nil
	}
	if vs, err := then.Validate(a.contract, data); err != nil || len(vs) > 0 {
		return nil // invalid already when written
	}
	// The contract was tightened by the oldest commit whose version rejects
	// the artifact and is not in the history of the commit that wrote it.
	// The walk's order, by commit date, does not tell that alone: a
	// contract tightened on a branch before the artifact was written, and
	// merged since, is older than the artifact's commit yet not in its
	// history. So an older commit is looked up there (a walk of the
	// artifact's history); a newer one is outside it, where the walk was
	// topological, and looked up too where it was not.
	where, parallel := "", false
	sc := hr.schemaCommits()
	for i := len(sc) - 1; i >= 0; i-- { // oldest first
		c := sc[i]
		reg := hr.registryAt(c.Commit.Hash)
		if reg == nil || reg == then || !reg.Has(a.contract) {
			continue // reg == then: the schemas the artifact was written against
		}
		if vs, err := reg.Validate(a.contract, data); err != nil || len(vs) == 0 {
			continue
		}
		if c.Seq >= written.Seq || !hr.h.Topological() {
			had, err := hr.isAncestor(c.Commit.Hash, written.Commit.Hash)
			if err != nil {
				return err
			}
			if had {
				continue // a version replaced before the artifact was written
			}
		}
		// Tightened after the artifact was written, on its line of
		// history, or on another line merged since: "before" would say
		// the artifact was written first, which a date cannot tell.
		after, err := hr.descends(c.Commit.Hash, written.Commit.Hash)
		if err != nil {
			return err
		}
		where, parallel = c.Commit.Short, !after
		break
	}
	if where == "" {
		if where = hr.uncommitted(); where == "" {
			return nil
		}
	}
	note := fmt.Sprintf("written in %s (%s) before %s tightened in %s", written.Commit.Short, written.Commit.When, a.contract, where)
	if parallel {
		note = fmt.Sprintf("written in %s (%s) on a branch without %s's tightening in %s, merged since", written.Commit.Short, written.Commit.When, a.contract, where)
	}
	for _, i := range a.findings {
		f := &hr.rep.Findings[i]
		f.Check, f.Note = CheckBlackboardStale, note
	}
	return nil
}
