// This file resolves the name part of a revision spec (a ref or a hash,
// before any ~N, ^N or @{…}) as git does (get_oid_basic, then
// get_short_oid in git's object-name.c) for a revision that must be a
// commit: a full hash is that object; otherwise the refs come first, and
// only a name that is no ref is read as an abbreviated hash, of at least
// four hex digits, which must name one object, or one commit-ish among
// several. go-git's Repository.ResolveRevision, which Foundry used before,
// tried hash prefixes of any length first and took the first match. The
// ref names themselves are still read as go-git's revision scanner reads
// them (parseRefName), without go-git's root package: that package links
// every transport (SSH, HTTP) and OpenPGP into the binary, and every
// process paid for their start-up. TestResolveNameMatchesGit,
// TestResolveHexNamesMatchGit and FuzzResolveName compare it with git
// rev-parse.

package git

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// minAbbrev is the fewest hex digits git reads as an abbreviated hash
// (MINIMUM_ABBREV): a shorter name is only ever a ref.
const minAbbrev = 4

// errAmbiguous means an abbreviated hash names more than one commit-ish
// object, or several objects none of which is one; git refuses it ("short
// object ID … is ambiguous") rather than pick one.
var errAmbiguous = errors.New("is ambiguous")

// errNotCommit marks a name that resolves to a tree or a blob.
var errNotCommit = errors.New("not a commit")

// resolveRefOrHash resolves name, a revision spec without ~, ^, : or @{,
// to a commit as git rev-parse resolves name^{commit}:
//
//   - a full hash (40 hex digits, any case) is that object, whatever refs
//     exist;
//   - else the first of the refs name, refs/name, refs/tags/name,
//     refs/heads/name, refs/remotes/name and refs/remotes/name/HEAD that
//     exists is the answer, even when it is no commit (then nothing
//     resolves);
//   - else a name of minAbbrev to 39 hex digits (any case) is the one
//     object whose hash begins so or, when several do, the only one of
//     them that is a commit or a tag of one; two or more such objects, or
//     none among several, is errAmbiguous.
//
// A tag is peeled to its commit. A name git's ref rules refuse resolves to
// nothing. The error is plumbing.ErrReferenceNotFound, or wraps
// errAmbiguous. The caller holds r.mu.
func (r *Repo) resolveRefOrHash(name string) (plumbing.Hash, error) {
	if plumbing.IsHash(name) {
		return r.peelToCommit(plumbing.NewHash(name))
	}
	ref, ok := parseRefName(name)
	if !ok {
		return plumbing.ZeroHash, plumbing.ErrReferenceNotFound
	}
	if full, err := expandRef(r.st, plumbing.ReferenceName(ref)); err == nil {
		return r.peelToCommit(full.Hash())
	}
	return r.abbreviatedCommit(ref)
}

// abbreviatedCommit resolves s as git's get_short_oid does with
// GET_OID_COMMITTISH: the object whose hash s abbreviates when there is
// one; among several, the only one that is a commit or a tag of one. It
// returns that object's commit.
func (r *Repo) abbreviatedCommit(s string) (plumbing.Hash, error) {
	if len(s) < minAbbrev || len(s) >= 2*len(plumbing.ZeroHash) || !isHex(s) {
		return plumbing.ZeroHash, plumbing.ErrReferenceNotFound
	}
	s = strings.ToLower(s)
	found := r.hashesWithPrefix(s)
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, plumbing.ErrReferenceNotFound
	case 1:
		return r.peelToCommit(found[0])
	}
	var commit plumbing.Hash
	committish := 0
	for _, h := range found {
		if c, err := r.peelToCommit(h); err == nil {
			commit = c
			committish++
		}
	}
	if committish != 1 {
		return plumbing.ZeroHash, fmt.Errorf("short object ID %s %w", s, errAmbiguous)
	}
	return commit, nil
}

// maxTagChain bounds the tags of tags peelToCommit follows.
const maxTagChain = 64

// peelToCommit returns h when it is a commit, or the commit a tag h points
// to, through tags of tags as git's deref_tag does. A tree or a blob is an
// error wrapping errNotCommit that says which; anything else is
// plumbing.ErrReferenceNotFound.
func (r *Repo) peelToCommit(h plumbing.Hash) (plumbing.Hash, error) {
	for range maxTagChain {
		if c, err := r.commitObject(h); err == nil {
			return c.Hash, nil
		}
		t, err := r.tagObject(h)
		if err != nil {
			break
		}
		h = t.Target
	}
	switch o, err := r.st.EncodedObject(plumbing.AnyObject, h); {
	case err == nil && (o.Type() == plumbing.TreeObject || o.Type() == plumbing.BlobObject):
		// As git: "expected commit type, but the object dereferences to
		// tree type".
		return plumbing.ZeroHash, fmt.Errorf("it names a %s, %w", o.Type(), errNotCommit)
	case errors.Is(err, ErrObjectTooLarge):
		// Not inflated to tell its type: no commit is that large.
		if size, err := r.st.EncodedObjectSize(h); err == nil {
			return plumbing.ZeroHash, fmt.Errorf("it names an object of %s, %w", confined.FormatSize(size), errNotCommit)
		}
	}
	return plumbing.ZeroHash, plumbing.ErrReferenceNotFound
}

func isHex(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !isDigit(c) && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// expandRef resolves ref by git's rules (plumbing.RefRevParseRules).
func expandRef(s storer.ReferenceStorer, ref plumbing.ReferenceName) (*plumbing.Reference, error) {
	var first error
	for _, rule := range plumbing.RefRevParseRules {
		r, err := storer.ResolveReference(s, plumbing.ReferenceName(fmt.Sprintf(rule, ref)))
		if err == nil {
			return r, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// hashesWithPrefix returns the objects whose hash s abbreviates: s is
// minAbbrev to 39 lower-case hex digits, as abbreviatedCommit checked.
func (r *Repo) hashesWithPrefix(s string) []plumbing.Hash {
	even := s[:len(s)&^1]
	prefix, err := hex.DecodeString(even)
	if err != nil {
		return nil
	}
	found, err := r.st.HashesWithPrefix(prefix)
	if err != nil {
		return nil
	}
	if len(even) == len(s) {
		return found
	}
	var hashes []plumbing.Hash // the odd last digit must match too
	for _, h := range found {
		if strings.HasPrefix(h.String(), s) {
			hashes = append(hashes, h)
		}
	}
	return hashes
}

// refToken is a token of go-git's revision scanner.
type refToken int

const (
	tokEOF refToken = iota
	tokOther
	tokWord
	tokNumber
	tokDot
	tokSlash
	tokAt
	tokObrace
	tokRefused // \ ? * [, white space, control characters
	tokSpecial // : ~ ^, which end a ref (never in a name here)
)

// maxRevisionBytes is the part of a spec go-git's scanner reads.
const maxRevisionBytes = 128 << 10

// refScanner splits a spec into tokens as go-git's revision scanner does:
// runs of letters and runs of digits are one token each; a NUL where a
// token starts ends the spec, one inside a run is skipped; an invalid
// UTF-8 byte reads as U+FFFD.
type refScanner struct {
	s       string
	pending *scanned // a token pushed back
}

type scanned struct {
	tok refToken
	lit string
}

func (sc *refScanner) next() (rune, bool) {
	if sc.s == "" {
		return 0, false
	}
	c, n := utf8.DecodeRuneInString(sc.s)
	sc.s = sc.s[n:]
	return c, true
}

func (sc *refScanner) scan() scanned {
	if p := sc.pending; p != nil {
		sc.pending = nil
		return *p
	}
	c, ok := sc.next()
	switch {
	case !ok || c == 0:
		return scanned{tokEOF, ""}
	case c == ':' || c == '~' || c == '^':
		return scanned{tokSpecial, string(c)}
	case c == '.':
		return scanned{tokDot, "."}
	case c == '/':
		return scanned{tokSlash, "/"}
	case c == '@':
		return scanned{tokAt, "@"}
	case c == '{':
		return scanned{tokObrace, "{"}
	case c == '\\' || c == '?' || c == '*' || c == '[':
		return scanned{tokRefused, string(c)}
	case c == '}' || c == '-' || c == '!':
		return scanned{tokOther, string(c)}
	case unicode.IsSpace(c) || unicode.IsControl(c):
		return scanned{tokRefused, string(c)}
	case unicode.IsLetter(c):
		return scanned{tokWord, sc.run(c, unicode.IsLetter)}
	case unicode.IsNumber(c):
		return scanned{tokNumber, sc.run(c, unicode.IsNumber)}
	}
	return scanned{tokOther, string(c)}
}

// run reads the run of runes in class that starts with first.
func (sc *refScanner) run(first rune, class func(rune) bool) string {
	var b strings.Builder
	b.WriteRune(first)
	for {
		rest := sc.s
		c, ok := sc.next()
		if !ok || c == 0 {
			return b.String()
		}
		if !class(c) {
			sc.s = rest
			return b.String()
		}
		b.WriteRune(c)
	}
}

// parseRefName returns the ref go-git's revision parser reads from name, a
// spec without ~, ^, : or @{: "HEAD" for "@", else the name as its
// scanner reads it, which git's ref rules must allow (no "..", "/.", "//",
// no leading "." or "/", no trailing "." or "/", no ".lock" component end,
// none of \ ? * [, white space or control characters). ok is false for a
// name it refuses, or one that is more than a ref ("a@b").
func parseRefName(name string) (ref string, ok bool) {
	if len(name) > maxRevisionBytes {
		name = name[:maxRevisionBytes]
	}
	sc := &refScanner{s: name}
	var refs []string
	for {
		t := sc.scan()
		switch t.tok {
		case tokEOF:
			if len(refs) != 1 {
				return "", false
			}
			return refs[0], true
		case tokAt:
			if n := sc.scan(); n.tok == tokObrace {
				return "", false // @{…}: not a name
			} else {
				sc.pending = &n
			}
			refs = append(refs, "HEAD")
		case tokSpecial:
			return "", false
		default:
			sc.pending = &t
			r, ok := sc.ref()
			if !ok {
				return "", false
			}
			refs = append(refs, r)
		}
		if len(refs) > 1 {
			return "", false // a ref must come once, first
		}
	}
}

// ref reads one ref up to the end of the spec or an @, checking each token
// against git's ref rules as go-git does.
func (sc *refScanner) ref() (string, bool) {
	var buf strings.Builder
	prev := tokEOF
	for {
		t := sc.scan()
		end := t.tok == tokEOF || t.tok == tokAt || t.tok == tokSpecial
		b := buf.String()
		switch {
		case t.tok == tokRefused,
			(t.tok == tokDot || t.tok == tokSlash) && b == "",
			prev == tokSlash && end,
			prev == tokDot && end,
			t.tok == tokDot && prev == tokSlash,
			prev == tokDot && t.tok == tokDot,
			prev == tokSlash && t.tok == tokSlash,
			(t.tok == tokSlash || end) && strings.HasSuffix(b, ".lock"):
			return "", false
		}
		if end {
			sc.pending = &t
			return b, true
		}
		buf.WriteString(t.lit)
		prev = t.tok
	}
}
