// This file defines indexFile, a reader of the git index (the DIRC format,
// versions 2 to 4) that locates entries by binary search instead of decoding
// every entry, so that looking up a few staged files costs the same in a
// repository of ten files or of a hundred thousand.

package git

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Layout of the index file; see Documentation/gitformat-index.txt in git.
const (
	indexHeaderLen  = 12 // "DIRC", version, entry count
	indexHashLen    = 20 // the trailing SHA-1 of everything before it
	entryFixedLen   = 62 // ctime … flags, before the optional extended flags
	entryHashOff    = 40
	entryModeOff    = 24
	entryFlagsOff   = 60
	flagExtended    = 0x4000
	flagNameMask    = 0x0fff
	extIntentToAdd  = 1 << 13
	extSkipWorktree = 1 << 14
)

// The index formats git writes on request that parseIndex does not read
// alone: a sparse index, named with the way back to an ordinary index, and
// a split index, which needs its shared file.
const (
	splitIndex  = "a split index (core.splitIndex), which ReadIndex merges with its shared file"
	sparseIndex = "a sparse index (index.sparse); turn it off with git sparse-checkout init --no-sparse-index"
)

// indexFile is one snapshot of a git index, read but not decoded: entries
// are located by offset, and their fields are decoded only when asked for.
// Entries are sorted by name, then stage, as git keeps them, which
// parseIndex checks; every name is a clean slash path (no empty, "." or ".."
// component). An indexFile is immutable and safe for concurrent use.
type indexFile struct {
	data  []byte
	names string // where entry names point: data itself (v2, v3) or the v4 names spelled out
	ents  []indexEntry
	tree  []byte // payload of the cache-tree extension (TREE); nil when absent
	// entriesEnd is the offset where the entries end and the extensions
	// begin.
	entriesEnd int
	// unusual is set when an entry is intent-to-add or conflicted: the
	// cache-tree then cannot be trusted to summarise a folder.
	unusual bool
}

// indexEntry locates one entry.
type indexEntry struct {
	off        uint32 // offset of the entry's fixed-size part in data
	nameStart  uint32 // the name is names[nameStart:nameEnd]
	nameEnd    uint32
	extendedFl uint16 // the v3 extended flags, 0 when absent
}

// parseIndex reads an index file's bytes. It checks the whole structure but
// not the trailing checksum, as git itself does outside git fsck (read-cache
// verifies it only when verify_index_checksum is set). Anything it does not
// handle comes back as ErrIndexUnsupported. The data must not be modified
// afterwards: names alias it. A split index is declined here; ReadIndex
// reads one through readSplitIndex.
func parseIndex(data []byte) (*indexFile, error) {
	ix, link, err := parseIndexParts(data)
	if err == nil && link != nil {
		return nil, fmt.Errorf("%w: %s", ErrIndexUnsupported, splitIndex)
	}
	return ix, err
}

// parseIndexParts is parseIndex that also reads the part of a split index
// in this file: link is the payload of its "link" extension (nil for an
// ordinary index), and only then may entries have empty names (the
// entries that replace shared ones).
func parseIndexParts(data []byte) (ix *indexFile, link []byte, err error) {
	unexpected := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrIndexUnsupported}, args...)...)
	}
	if len(data) < indexHeaderLen+indexHashLen || string(data[:4]) != "DIRC" {
		return nil, nil, unexpected("no DIRC header")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, nil, unexpected("version %d", version)
	}
	count := binary.BigEndian.Uint32(data[8:])
	end := len(data) - indexHashLen
	// Every entry takes at least entryFixedLen+2 bytes, which bounds the
	// allocation below by the file's size whatever count claims.
	if uint64(count) > uint64(end-indexHeaderLen)/(entryFixedLen+2) {
		return nil, nil, unexpected("%d entries in %d bytes", count, len(data))
	}
	ix = &indexFile{data: data, ents: make([]indexEntry, count)}
	var v4names []byte
	if version == 4 {
		v4names = make([]byte, 0, 64*int(count))
	} else {
		ix.names = unsafe.String(unsafe.SliceData(data), len(data))
	}
	off := indexHeaderLen
	prev, prevStage := "", -1
	// A split index leaves the names of the entries it replaces empty: an
	// empty name is an error only once the extensions show no "link".
	emptyAt := -1
	for i := range ix.ents {
		if end-off < entryFixedLen {
			return nil, nil, unexpected("entry %d truncated", i)
		}
		flags := binary.BigEndian.Uint16(data[off+entryFlagsOff:])
		nameOff := off + entryFixedLen
		var ext uint16
		if flags&flagExtended != 0 {
			if version < 3 || end-nameOff < 2 {
				return nil, nil, unexpected("entry %d: extended flags", i)
			}
			ext = binary.BigEndian.Uint16(data[nameOff:])
			if ext&^(extIntentToAdd|extSkipWorktree) != 0 {
				return nil, nil, unexpected("entry %d: extended flags %#x", i, ext)
			}
			nameOff += 2
		}
		var name string
		var next int
		if version == 4 {
			strip, n := uvarint(data[nameOff:end])
			if n <= 0 || strip > uint64(len(prev)) {
				return nil, nil, unexpected("entry %d: name prefix", i)
			}
			nul := bytes.IndexByte(data[nameOff+n:end], 0)
			if nul < 0 {
				return nil, nil, unexpected("entry %d: unterminated name", i)
			}
			start := len(v4names)
			v4names = append(v4names, prev[:len(prev)-int(strip)]...)
			v4names = append(v4names, data[nameOff+n:nameOff+n+nul]...)
			ix.ents[i] = indexEntry{off: uint32(off), nameStart: uint32(start), nameEnd: uint32(len(v4names)), extendedFl: ext}
			if len(v4names) > start {
				// Bytes already appended never change, even when a later
				// append moves the buffer, so the name can alias them.
				name = unsafe.String(&v4names[start], len(v4names)-start)
			}
			next = nameOff + n + nul + 1
		} else {
			nlen := int(flags & flagNameMask)
			if nlen == flagNameMask {
				// A name of 4095 bytes or more: its length is where its NUL is.
				nlen = bytes.IndexByte(data[nameOff:end], 0)
				if nlen < flagNameMask {
					return nil, nil, unexpected("entry %d: long name", i)
				}
			} else if end-nameOff < nlen || bytes.IndexByte(data[nameOff:nameOff+nlen], 0) >= 0 {
				return nil, nil, unexpected("entry %d: name", i)
			}
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			size := (nameOff - off + nlen + 8) &^ 7
			if end-off < size {
				return nil, nil, unexpected("entry %d truncated", i)
			}
			for _, b := range data[nameOff+nlen : off+size] {
				if b != 0 {
					return nil, nil, unexpected("entry %d: padding", i)
				}
			}
			ix.ents[i] = indexEntry{off: uint32(off), nameStart: uint32(nameOff), nameEnd: uint32(nameOff + nlen), extendedFl: ext}
			name = ix.names[nameOff : nameOff+nlen]
			next = off + size
		}
		switch m := filemode.FileMode(binary.BigEndian.Uint32(data[off+entryModeOff:])); m {
		case filemode.Regular, filemode.Executable, filemode.Symlink, filemode.Submodule:
		case filemode.Dir:
			return nil, nil, unexpected("%s", sparseIndex)
		default:
			return nil, nil, unexpected("entry %d: mode %o", i, uint32(m))
		}
		stage := int(flags>>12) & 3
		if name == "" {
			if emptyAt < 0 {
				emptyAt = i
			}
			prev, prevStage, off = name, -1, next
			continue
		}
		// Sorted by name then stage. The components the name shares whole
		// with the previous one were checked with it; only the rest needs
		// checking.
		cp := commonPrefix(name, prev)
		switch {
		case cp == len(name) && cp == len(prev):
			if stage <= prevStage {
				return nil, nil, unexpected("entry %d: not sorted", i)
			}
		case cp == len(name) || cp < len(prev) && name[cp] < prev[cp]:
			return nil, nil, unexpected("entry %d: not sorted", i)
		}
		if !cleanPath(name[strings.LastIndexByte(name[:cp], '/')+1:]) {
			return nil, nil, unexpected("entry %d: path %q", i, name)
		}
		if stage != 0 || ext&extIntentToAdd != 0 {
			ix.unusual = true
		}
		prev, prevStage, off = name, stage, next
	}
	if version == 4 && len(v4names) > 0 {
		ix.names = unsafe.String(unsafe.SliceData(v4names), len(v4names))
	}
	ix.entriesEnd = off
	// Extensions tile the rest: a 4-byte signature, a 4-byte length, the
	// payload. One whose signature starts with a capital letter is optional.
	for off < end {
		if end-off < 8 {
			return nil, nil, unexpected("extension header truncated")
		}
		sig := string(data[off : off+4])
		n := binary.BigEndian.Uint32(data[off+4:])
		if uint64(n) > uint64(end-off-8) {
			return nil, nil, unexpected("extension %q truncated", sig)
		}
		payload := data[off+8 : off+8+int(n)]
		switch {
		case sig == "TREE":
			ix.tree = payload
		case sig == "link":
			link = payload
		case sig == "sdir":
			return nil, nil, unexpected("%s", sparseIndex)
		case sig[0] < 'A' || sig[0] > 'Z':
			return nil, nil, unexpected("required extension %q", sig)
		}
		off += 8 + int(n)
	}
	if emptyAt >= 0 && link == nil {
		return nil, nil, unexpected("entry %d: empty name", emptyAt)
	}
	return ix, link, nil
}

// uvarint decodes git's offset varint (varint.c: each continuation adds one
// before shifting, so every value has a single encoding). n is the number of
// bytes read, 0 when b ends first or the value overflows.
func uvarint(b []byte) (v uint64, n int) {
	for n < len(b) {
		c := b[n]
		n++
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, n
		}
		if v >= 1<<56 {
			return 0, 0
		}
		v++
	}
	return 0, 0
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n && a[i:i+8] == b[i:i+8]; i += 8 {
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// cleanPath reports whether p is a relative slash path with no empty, "."
// or ".." component, as git stores paths.
func cleanPath(p string) bool {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch elem := p[start:i]; elem {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}

func (ix *indexFile) len() int { return len(ix.ents) }

func (ix *indexFile) name(i int) string {
	e := &ix.ents[i]
	return ix.names[e.nameStart:e.nameEnd]
}

func (ix *indexFile) hash(i int) plumbing.Hash {
	var h plumbing.Hash
	off := int(ix.ents[i].off) + entryHashOff
	copy(h[:], ix.data[off:off+len(h)])
	return h
}

func (ix *indexFile) mode(i int) filemode.FileMode {
	return filemode.FileMode(binary.BigEndian.Uint32(ix.data[int(ix.ents[i].off)+entryModeOff:]))
}

// intentToAdd reports whether entry i was added with `git add -N`: it
// records a path without content, and git leaves it out of the tree it
// commits.
func (ix *indexFile) intentToAdd(i int) bool { return ix.ents[i].extendedFl&extIntentToAdd != 0 }

func (ix *indexFile) stage(i int) int {
	return int(binary.BigEndian.Uint16(ix.data[int(ix.ents[i].off)+entryFlagsOff:])>>12) & 3
}

// search returns the first entry whose name is not less than s.
func (ix *indexFile) search(s string) int {
	return sort.Search(len(ix.ents), func(i int) bool { return ix.name(i) >= s })
}

// searchFrom is search limited to the entries from lo on.
func (ix *indexFile) searchFrom(lo int, s string) int {
	return lo + sort.Search(len(ix.ents)-lo, func(i int) bool { return ix.name(lo+i) >= s })
}

// indexLister lists the folders of an index view lazily: a folder's
// children are found by binary search, skipping over the contents of each
// subfolder, so a listing costs about the number of children times log n.
// Gitlinks (submodules) are left out, as at a revision, and so are
// intent-to-add entries, which git does not commit.
type indexLister struct {
	ix     *indexFile
	prefix string // the view's folder with a trailing slash; "" for the root
}

func (l *indexLister) list(dir string) ([]entry, bool, error) {
	p := l.prefix
	if dir != "." {
		p += dir + "/"
	}
	ix := l.ix
	n := ix.len()
	i := ix.search(p)
	if dir != "." && (i == n || !strings.HasPrefix(ix.name(i), p)) {
		return nil, false, nil
	}
	var es []entry
	for i < n {
		name := ix.name(i)
		if !strings.HasPrefix(name, p) {
			break
		}
		rest := name[len(p):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			es = append(es, entry{name: rest[:j], isDir: true})
			// '0' follows '/': the first name past the subfolder.
			i = ix.searchFrom(i+1, name[:len(p)+j]+"0")
			continue
		}
		if m := ix.mode(i); m != filemode.Submodule && !ix.intentToAdd(i) {
			es = append(es, entry{name: rest, hash: ix.hash(i), exec: isExec(m), link: m == filemode.Symlink})
		}
		// Later stages of a conflicted path: the first stage wins.
		for i++; i < n && ix.name(i) == name; i++ {
		}
	}
	sortEntries(es)
	return es, true, nil
}

// lookup finds one path of the view without listing its folder.
func (l *indexLister) lookup(name string) (entry, bool, error) {
	ix := l.ix
	full := l.prefix + name
	base := name[strings.LastIndexByte(name, '/')+1:]
	i := ix.search(full)
	if i < ix.len() && ix.name(i) == full {
		if m := ix.mode(i); m != filemode.Submodule && !ix.intentToAdd(i) {
			return entry{name: base, hash: ix.hash(i), exec: isExec(m), link: m == filemode.Symlink}, true, nil
		}
	}
	dir := full + "/"
	if j := ix.searchFrom(i, dir); j < ix.len() && strings.HasPrefix(ix.name(j), dir) {
		return entry{name: base, isDir: true}, true, nil
	}
	return entry{}, false, nil
}

// sortEntries sorts a folder's entries by name; a file sorts before a folder
// of the same name (only a damaged index holds both).
func sortEntries(es []entry) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].name != es[j].name {
			return es[i].name < es[j].name
		}
		return !es[i].isDir && es[j].isDir
	})
}
