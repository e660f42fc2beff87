package facts

// This file defines the persisted search cache: the parsed and analysed
// facts of the working tree, kept in .foundry/cache/ between processes, so
// that a one-shot search (the CLI, a freshly spawned server) reads one file
// and the folder's metadata instead of parsing and analysing every fact.
//
// An entry is trusted only when the fact file's identity (size,
// modification and status-change times, device, inode) is the one recorded,
// the file had settled when it was read, and its modification time is older
// than the cache file (git's racy-clean rule); anything else is re-read. A
// cache that does not decode is ignored and rebuilt, never trusted.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
)

// Paths of the cache, relative to the project root.
const (
	CacheDir        = ".foundry/cache"
	searchCachePath = CacheDir + "/search.v1"
	cacheLockPath   = CacheDir + "/.lock"
	cacheIgnorePath = CacheDir + "/.gitignore"
)

// cacheMagic opens the cache file; the version in it changes with the
// format, the parser or the text analysis.
const cacheMagic = "foundry search cache 2\n"

// maxCacheBytes bounds the cache file read.
const maxCacheBytes = 256 << 20

// cacheRecord is one fact file as the cache remembers it.
type cacheRecord struct {
	key  fileKey
	sum  [32]byte
	fact Fact
	an   *analysis // nil when the fact was not indexed
}

// loadCache reads the cache file into s.cached, when the store uses one.
// The caller holds s.mu.
func (s *Store) loadCache() {
	if !s.opts.Cache || s.opts.Root == "" {
		return
	}
	s.cacheDirty = true // until the scan proves every entry current
	info, err := fs.Stat(s.fsys, searchCachePath)
	if err != nil || info.Size() > maxCacheBytes {
		return
	}
	data, err := confined.ReadFile(s.fsys, searchCachePath)
	if err != nil {
		return
	}
	recs, ok := decodeCache(data)
	if !ok {
		return
	}
	s.cached, s.cacheTime = recs, info.ModTime().UnixNano()
}

// adopt takes the fact file at p from the cache when the record is
// trustworthy for the file's current identity, and reports whether it did.
func (s *Store) adopt(p string, info fs.FileInfo) bool {
	rec, ok := s.cached[p]
	if !ok {
		return false
	}
	delete(s.cached, p)
	key := keyOf(info)
	if !key.strong() || key.hash != "" || rec.key != key || key.mtime >= s.cacheTime ||
		time.Since(info.ModTime()) <= racyWindow {
		return false
	}
	c := &cachedFile{key: key, sum: rec.sum, settled: true, fact: rec.fact}
	s.setFile(p, c)
	c.e.an = rec.an
	return true
}

// saveCache writes the cache when the scan found it stale, once per store:
// atomically, under the cache lock, through the project's confined root. A
// cache that cannot be written (read-only file system, lock held, root
// refused) is simply not written. The caller holds s.mu.
func (s *Store) saveCache(ctx context.Context) {
	if !s.opts.Cache || !s.cacheDirty || s.cacheSaved || s.opts.Root == "" {
		return
	}
	s.cacheSaved = true
	r, err := s.root()
	if err != nil {
		return
	}
	if err := r.MkdirAll(CacheDir); err != nil {
		return
	}
	if _, err := fs.Stat(r.FS(), cacheIgnorePath); errors.Is(err, fs.ErrNotExist) {
		if err := r.WriteFile(cacheIgnorePath, []byte("*\n"), 0o644); err != nil {
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	unlock, err := r.Lock(ctx, cacheLockPath)
	if err != nil {
		return
	}
	defer func() { _ = unlock() }()
	_ = r.WriteFile(searchCachePath, s.encodeCache(), 0o644)
}

// encodeCache serialises the settled, parsed fact files of the working tree.
func (s *Store) encodeCache() []byte {
	paths := make([]string, 0, len(s.files))
	for p, c := range s.files {
		if c.err == nil && c.settled && c.key.strong() && c.key.hash == "" {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	vocab := map[string]uint64{}
	var terms []string
	for _, p := range paths {
		if an := s.files[p].e.an; an != nil {
			for _, t := range an.terms {
				if _, ok := vocab[t.term]; !ok {
					vocab[t.term] = uint64(len(terms))
					terms = append(terms, t.term)
				}
			}
			for _, f := range an.forms {
				if _, ok := vocab[f.word]; !ok {
					vocab[f.word] = uint64(len(terms))
					terms = append(terms, f.word)
				}
			}
		}
	}
	b := []byte(cacheMagic)
	b = binary.AppendUvarint(b, uint64(len(terms)))
	for _, t := range terms {
		b = appendString(b, t)
	}
	b = binary.AppendUvarint(b, uint64(len(paths)))
	for _, p := range paths {
		c := s.files[p]
		b = appendString(b, p)
		for _, n := range []uint64{uint64(c.key.size), uint64(c.key.mtime), uint64(c.key.ctime), c.key.dev, c.key.ino} {
			b = binary.AppendUvarint(b, n)
		}
		b = append(b, c.sum[:]...)
		f := c.e.raw
		for _, v := range []string{f.ID, string(f.Type), f.Title, f.Scope, string(f.Confidence), f.Source, f.Created,
			f.Expires, f.Supersedes, f.SupersededBy, string(f.Status), f.Body} {
			b = appendString(b, v)
		}
		// 0 for no tag list at all, else one more than its length.
		ntags := uint64(0)
		if f.Tags != nil {
			ntags = uint64(len(f.Tags)) + 1
		}
		b = binary.AppendUvarint(b, ntags)
		for _, t := range f.Tags {
			b = appendString(b, t)
		}
		an := c.e.an
		if an == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(an.terms)))
		for _, t := range an.terms {
			b = binary.AppendUvarint(b, vocab[t.term])
			b = binary.AppendUvarint(b, uint64(t.tf))
		}
		b = binary.AppendUvarint(b, uint64(len(an.forms)))
		for _, f := range an.forms {
			b = binary.AppendUvarint(b, vocab[f.word])
			b = binary.AppendUvarint(b, uint64(f.term))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// castagnoli is made by the first cache read or write: making it fills
// crc32's slicing tables, work a process that never searches need not do.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// cacheDecoder reads the cache format. Strings are slices of one copy of
// the file, so decoding allocates little.
type cacheDecoder struct {
	s   string
	off int
	bad bool
}

func (d *cacheDecoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	n, k := uvarintString(d.s[d.off:])
	if k <= 0 {
		d.bad = true
		return 0
	}
	d.off += k
	return n
}

func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func (d *cacheDecoder) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.off) {
		d.bad = true
		return ""
	}
	v := d.s[d.off : d.off+int(n)]
	d.off += int(n)
	return v
}

func (d *cacheDecoder) byteN(n int) string {
	if d.bad || n > len(d.s)-d.off {
		d.bad = true
		return ""
	}
	v := d.s[d.off : d.off+n]
	d.off += n
	return v
}

// decodeCache parses a cache file; ok is false for anything but a complete,
// intact file of this version.
func decodeCache(data []byte) (map[string]*cacheRecord, bool) {
	if len(data) < len(cacheMagic)+4 || !bytes.HasPrefix(data, []byte(cacheMagic)) {
		return nil, false
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, false
	}
	d := &cacheDecoder{s: string(body), off: len(cacheMagic)}
	nterms := d.uvarint()
	if nterms > uint64(len(d.s)) {
		return nil, false
	}
	terms := make([]string, nterms)
	for i := range terms {
		terms[i] = d.str()
	}
	nrecs := d.uvarint()
	if d.bad || nrecs > uint64(len(d.s)) {
		return nil, false
	}
	recs := make(map[string]*cacheRecord, nrecs)
	var formSlab []form
	for range nrecs {
		p := d.str()
		r := &cacheRecord{}
		r.key.size, r.key.mtime, r.key.ctime = int64(d.uvarint()), int64(d.uvarint()), int64(d.uvarint())
		r.key.dev, r.key.ino = d.uvarint(), d.uvarint()
		copy(r.sum[:], d.byteN(len(r.sum)))
		f := &r.fact
		f.ID, f.Type, f.Title, f.Scope = d.str(), Type(d.str()), d.str(), d.str()
		f.Confidence, f.Source, f.Created, f.Expires = Confidence(d.str()), d.str(), d.str(), d.str()
		f.Supersedes, f.SupersededBy, f.Status, f.Body = d.str(), d.str(), Status(d.str()), d.str()
		ntags := d.uvarint()
		if d.bad || ntags > uint64(len(d.s)) {
			return nil, false
		}
		if ntags > 0 {
			f.Tags = make([]string, ntags-1)
			for i := range f.Tags {
				f.Tags[i] = d.str()
			}
		}
		f.Path = p
		switch d.byteN(1) {
		case "\x00":
		case "\x01":
			n := d.uvarint()
			if d.bad || n > uint64(len(d.s)-d.off)/2 {
				return nil, false
			}
			an := &analysis{terms: make([]termTF, n)}
			for i := range an.terms {
				ti, tf := d.uvarint(), d.uvarint()
				if ti >= uint64(len(terms)) {
					return nil, false
				}
				an.terms[i] = termTF{terms[ti], float64(tf)}
				an.length += float64(tf)
			}
			n = d.uvarint()
			if d.bad || n > uint64(len(d.s)-d.off)/2 {
				return nil, false
			}
			if n > 0 {
				// The words of all records share a few large arrays:
				// one allocation per record would be ten thousand.
				if uint64(cap(formSlab)-len(formSlab)) < n {
					formSlab = make([]form, 0, max(n, 4096))
				}
				k := len(formSlab)
				formSlab = formSlab[:k+int(n)]
				an.forms = formSlab[k : k+int(n) : k+int(n)]
			}
			for i := range an.forms {
				wi, ti := d.uvarint(), d.uvarint()
				if wi >= uint64(len(terms)) || ti >= uint64(len(an.terms)) {
					return nil, false
				}
				an.forms[i] = form{terms[wi], int32(ti)}
			}
			r.an = an
		default:
			return nil, false
		}
		if d.bad || path.Dir(p) != Dir || !isFactFile(path.Base(p)) {
			return nil, false
		}
		recs[p] = r
	}
	if d.bad || d.off != len(d.s) {
		return nil, false
	}
	return recs, true
}
