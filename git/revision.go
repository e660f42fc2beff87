// This file resolves revision specs natively, with go-git for refs and
// objects and reflog.go for the reflogs: the same spec gives the same
// commit whether or not a git binary is installed.

package git

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// supportedSyntax is what an unsupported-syntax error lists.
const supportedSyntax = "Foundry reads refs, hashes, <ref>@{N}, @{N}, @{-N}, [<branch>]@{u}, ~N, ^N and ^{commit}"

// unsupported reports a part of a spec Foundry does not read.
func unsupported(rev, part, what string) error {
	return fmt.Errorf("resolve revision %q: %w: %s (%s); %s", rev, ErrUnsupportedRevision, part, what, supportedSyntax)
}

// revSpec is a parsed revision: a base and the steps taken from it.
type revSpec struct {
	name  string    // the ref or hash before any @{…}; "" for the current branch or HEAD
	at    string    // the content of @{…}, "" when there is none
	hasAt bool      // the spec has @{…}
	steps []revStep // ~N and ^N, in order
}

// revStep is one ~N (first parent N times) or ^N (the N-th parent; ^0 is
// the commit itself).
type revStep struct {
	tilde bool
	n     int
}

// maxRevStep bounds N in ~N and ^N: a history walk is bounded by the
// history, but the number must fit an int first.
const maxRevStep = 1 << 30

// parseRev splits rev into its parts, or says which part is not supported.
func parseRev(rev string) (revSpec, error) {
	var s revSpec
	if strings.HasPrefix(rev, "-") {
		return s, fmt.Errorf("resolve revision %q: %w", rev, ErrRevisionNotFound)
	}
	rest := rev
	at := strings.Index(rev, "@{")
	if j := strings.IndexAny(rev, "~^"); at >= 0 && (j < 0 || at < j) {
		end := strings.IndexByte(rev[at:], '}')
		if end < 0 {
			return s, fmt.Errorf("resolve revision %q: %w: unterminated @{", rev, ErrRevisionNotFound)
		}
		s.name, s.at, s.hasAt = rev[:at], rev[at+2:at+end], true
		rest = rev[at+end+1:]
	} else if j >= 0 {
		s.name, rest = rev[:j], rev[j:]
	} else {
		s.name, rest = rev, ""
	}
	for _, part := range []string{s.name, rest} {
		if i := strings.IndexByte(part, ':'); i >= 0 {
			return s, unsupported(rev, part[i:], "a path or message search after ':'")
		}
	}
	if s.name == "@" {
		s.name = "HEAD" // "@" alone is git's short name for HEAD
	}
	if s.name == "" && !s.hasAt {
		return s, fmt.Errorf("resolve revision %q: %w", rev, ErrRevisionNotFound)
	}
	for rest != "" {
		op := rest[0]
		rest = rest[1:]
		if op != '~' && op != '^' {
			if strings.HasPrefix(rest, "{") {
				return s, unsupported(rev, string(op)+rest, "a second @{…}")
			}
			return s, fmt.Errorf("resolve revision %q: %w: unexpected %q", rev, ErrRevisionNotFound, string(op)+rest)
		}
		if op == '^' && strings.HasPrefix(rest, "{") {
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return s, fmt.Errorf("resolve revision %q: %w: unterminated ^{", rev, ErrRevisionNotFound)
			}
			switch peel := rest[1:end]; {
			case peel == "" || peel == "commit":
				// Every spec resolves to a commit already.
			case strings.HasPrefix(peel, "/"):
				return s, unsupported(rev, "^{"+peel+"}", "a commit message search")
			default:
				return s, unsupported(rev, "^{"+peel+"}", "a peel to an object that is not a commit")
			}
			rest = rest[end+1:]
			continue
		}
		digits := 0
		for digits < len(rest) && isDigit(rest[digits]) {
			digits++
		}
		n := 1
		if digits > 0 {
			v, err := strconv.Atoi(rest[:digits])
			if err != nil || v > maxRevStep {
				return s, fmt.Errorf("resolve revision %q: %w: %s%s is out of range", rev, ErrRevisionNotFound, string(op), rest[:digits])
			}
			n = v
		}
		s.steps = append(s.steps, revStep{tilde: op == '~', n: n})
		rest = rest[digits:]
	}
	return s, nil
}

// resolveSpec resolves rev to a commit. The caller holds r.mu.
func (r *Repo) resolveSpec(rev string) (*object.Commit, error) {
	s, err := parseRev(rev)
	if err != nil {
		return nil, err
	}
	var h plumbing.Hash
	switch {
	case !s.hasAt:
		h, err = r.resolveName(rev, s.name)
	case s.at != "" && s.at[0] == '-':
		h, err = r.resolvePriorCheckout(rev, s)
	case strings.EqualFold(s.at, "u") || strings.EqualFold(s.at, "upstream"):
		h, err = r.resolveUpstream(rev, s.name)
	case s.at != "" && allDigits(s.at):
		h, err = r.resolveReflog(rev, s)
	default:
		what := "a reflog date"
		if strings.EqualFold(s.at, "push") {
			what = "a push destination"
		}
		return nil, unsupported(rev, "@{"+s.at+"}", what)
	}
	if err != nil {
		return nil, err
	}
	c, err := r.commitAt(rev, h)
	if err != nil {
		return nil, err
	}
	parent := func(i int) error {
		if i >= len(c.ParentHashes) {
			parents := "parents"
			if len(c.ParentHashes) == 1 {
				parents = "parent"
			}
			return fmt.Errorf("resolve revision %q: %w: %.7s has %d %s", rev, ErrRevisionNotFound, c.Hash.String(), len(c.ParentHashes), parents)
		}
		c, err = r.commitAt(rev, c.ParentHashes[i])
		return err
	}
	for _, st := range s.steps {
		switch {
		case st.tilde:
			for range st.n {
				if err := parent(0); err != nil {
					return nil, err
				}
			}
		case st.n > 0:
			if err := parent(st.n - 1); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// counted is "1 entry" or "n entries".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func allDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// commitAt reads the commit h (a tag is peeled to its commit).
func (r *Repo) commitAt(rev string, h plumbing.Hash) (*object.Commit, error) {
	c, err := r.commitObject(h)
	if err == nil {
		return c, nil
	}
	if t, terr := r.tagObject(h); terr == nil {
		if c, err = t.Commit(); err == nil {
			return c, nil
		}
	}
	if r.shallow() {
		return nil, fmt.Errorf("resolve revision %q: %w (fetch more history with git fetch --deepen or --unshallow)", rev, ErrShallow)
	}
	return nil, fmt.Errorf("resolve revision %q: %w", rev, ErrRevisionNotFound)
}

// resolveName resolves a ref name or a (possibly abbreviated) hash as git
// does (see resolveRefOrHash). A full object id never costs a search of
// refs/<name>, refs/tags/<name>, … (an lstat each), which the doctor's
// history pass, resolving hundreds of commits, would pay every time.
func (r *Repo) resolveName(rev, name string) (plumbing.Hash, error) {
	h, err := r.resolveRefOrHash(name)
	if errors.Is(err, errAmbiguous) || errors.Is(err, errNotCommit) {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: %v", rev, ErrRevisionNotFound, err)
	}
	if err != nil || h.IsZero() {
		if _, herr := r.head(); errors.Is(herr, plumbing.ErrReferenceNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w", rev, ErrNoCommits)
		}
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w", rev, ErrRevisionNotFound)
	}
	return h, nil
}

// eachReflog calls yield with the entries of ref's reflog, newest first.
// ok is false when ref has no reflog.
func (r *Repo) eachReflog(ref plumbing.ReferenceName, yield func(reflogEntry) bool) (ok bool, err error) {
	if ref != plumbing.HEAD && ref.Validate() != nil {
		return false, nil // never a path outside logs/
	}
	// The .git folder, its common folder's files routed there for a
	// linked worktree.
	dot := r.st.Filesystem()
	name := "logs/" + string(ref)
	// The kind is checked before the file is opened: opening a FIFO
	// blocks until a writer comes.
	fi, err := dot.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, nil
	}
	f, err := dot.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	return true, eachReflogEntry(f, fi.Size(), name, yield)
}

// currentBranch returns the branch HEAD points to; ok is false when HEAD is
// detached.
func (r *Repo) currentBranch() (plumbing.ReferenceName, bool, error) {
	head, err := r.st.Reference(plumbing.HEAD)
	if err != nil {
		return "", false, err
	}
	if head.Type() != plumbing.SymbolicReference || !head.Target().IsBranch() {
		return "", false, nil
	}
	return head.Target(), true, nil
}

// reflogRef finds the ref whose reflog name@{N} reads, as git's dwim_log
// does: the first of name, refs/name, refs/tags/name, refs/heads/name,
// refs/remotes/name and refs/remotes/name/HEAD that exists and has a reflog
// (its own, or that of the ref it points to). An empty name is the current
// branch, or HEAD when detached.
func (r *Repo) reflogRef(name string) (plumbing.ReferenceName, bool) {
	if name == "" {
		if b, ok, err := r.currentBranch(); err == nil && ok {
			return b, true
		}
		name = "HEAD"
	}
	for _, format := range []string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"} {
		full := plumbing.ReferenceName(fmt.Sprintf(format, name))
		if full != plumbing.HEAD && full.Validate() != nil {
			continue
		}
		ref, err := r.st.Reference(full)
		if err != nil {
			continue
		}
		for _, cand := range []plumbing.ReferenceName{full, ref.Target()} {
			if cand == "" {
				continue
			}
			if ok, _ := r.eachReflog(cand, func(reflogEntry) bool { return false }); ok {
				return cand, true
			}
		}
	}
	return "", false
}

// resolveReflog resolves name@{N}: the value ref had N changes ago, the new
// id of the (N+1)-th newest line of its reflog.
func (r *Repo) resolveReflog(rev string, s revSpec) (plumbing.Hash, error) {
	n, err := strconv.Atoi(s.at)
	if err != nil || n > maxRevStep {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: @{%s} is out of range", rev, ErrRevisionNotFound, s.at)
	}
	ref, ok := r.reflogRef(s.name)
	if !ok {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: no reflog for %q", rev, ErrRevisionNotFound, s.name)
	}
	var found plumbing.Hash
	count := 0
	if _, err := r.eachReflog(ref, func(e reflogEntry) bool {
		if count == n {
			found = e.new
			return false
		}
		count++
		return true
	}); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w", rev, err)
	}
	if found.IsZero() {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: the reflog of %s has %s", rev, ErrRevisionNotFound, ref, counted(count, "entry", "entries"))
	}
	return found, nil
}

// checkoutPrefix starts the HEAD reflog message of every branch switch:
// "checkout: moving from <from> to <to>".
const checkoutPrefix = "checkout: moving from "

// resolvePriorCheckout resolves @{-N}: the branch (or commit) checked out
// before the N-th most recent switch, as git reads it from HEAD's reflog.
func (r *Repo) resolvePriorCheckout(rev string, s revSpec) (plumbing.Hash, error) {
	n, err := strconv.Atoi(s.at[1:])
	if err != nil || n < 1 || n > maxRevStep || s.at[1] == '+' || s.name != "" {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: @{%s} is not a prior checkout", rev, ErrRevisionNotFound, s.at)
	}
	var from string
	left := n
	ok, err := r.eachReflog(plumbing.HEAD, func(e reflogEntry) bool {
		rest, found := strings.CutPrefix(e.msg, checkoutPrefix)
		if !found {
			return true
		}
		f, _, found := strings.Cut(rest, " to ")
		if !found {
			return true
		}
		if left--; left == 0 {
			from = f
			return false
		}
		return true
	})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w", rev, err)
	}
	if !ok || from == "" {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: HEAD's reflog records %s", rev, ErrRevisionNotFound, counted(n-left, "branch switch", "branch switches"))
	}
	// A detached HEAD is recorded as its hash; a branch by its short name,
	// which must be one (never a spec of its own: the reflog is untrusted).
	if plumbing.IsHash(from) {
		return plumbing.NewHash(from), nil
	}
	branch := plumbing.NewBranchReferenceName(from)
	if branch.Validate() != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: HEAD's reflog names %q", rev, ErrRevisionNotFound, from)
	}
	ref, err := storer.ResolveReference(r.st, branch)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: %w: branch %s", rev, ErrRevisionNotFound, from)
	}
	return ref.Hash(), nil
}

// resolveUpstream resolves [<branch>]@{u}: the remote-tracking branch that
// branch.<name>.remote and branch.<name>.merge name, through the remote's
// fetch refspecs, as git does ("." as the remote means a local branch).
func (r *Repo) resolveUpstream(rev, name string) (plumbing.Hash, error) {
	notFound := func(format string, args ...any) error {
		return fmt.Errorf("resolve revision %q: %w: "+format, append([]any{rev, ErrRevisionNotFound}, args...)...)
	}
	var branch plumbing.ReferenceName
	if name == "" || name == "HEAD" {
		b, ok, err := r.currentBranch()
		if err != nil || !ok {
			return plumbing.ZeroHash, notFound("HEAD is not on a branch")
		}
		branch = b
	} else {
		branch = plumbing.NewBranchReferenceName(strings.TrimPrefix(name, "refs/heads/"))
		if branch.Validate() != nil {
			return plumbing.ZeroHash, notFound("%q is not a branch", name)
		}
		if _, err := r.st.Reference(branch); err != nil {
			return plumbing.ZeroHash, notFound("no branch %q", name)
		}
	}
	cfg, err := r.st.Config()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision %q: read config: %w", rev, err)
	}
	short := branch.Short()
	b := cfg.Branches[short]
	if b == nil || b.Remote == "" || b.Merge == "" {
		return plumbing.ZeroHash, notFound("no upstream configured for branch %q", short)
	}
	target := b.Merge
	if b.Remote != "." {
		tracking := plumbing.ReferenceName("")
		if remote := cfg.Remotes[b.Remote]; remote != nil {
			for _, spec := range remote.Fetch {
				if spec.Match(b.Merge) {
					tracking = spec.Dst(b.Merge)
					break
				}
			}
		}
		if tracking == "" {
			return plumbing.ZeroHash, notFound("upstream branch %q not stored as a remote-tracking branch", b.Merge)
		}
		target = tracking
	}
	ref, err := storer.ResolveReference(r.st, target)
	if err != nil {
		return plumbing.ZeroHash, notFound("upstream %s", target)
	}
	return ref.Hash(), nil
}
