package facts

// This file defines the persisted search cache: the parsed and analysed
// facts of the working tree, kept in .foundry/cache/ between processes, so
// that a one-shot process (the CLI, a freshly spawned server) reads one file
// and the folder's metadata instead of parsing and analysing every fact.
// The first scan of a store that finds it missing or stale saves it,
// whatever the call (see Store.sync).
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
	"io"
	"io/fs"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/fileid"
	"github.com/foundryhq/foundry/internal/hugepages"
	"github.com/foundryhq/foundry/internal/pause"
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
const cacheMagic = "foundry search cache 7\n"

// cacheHeapPerByte is about how much loading the cache grows the heap,
// collection paused, per byte of the cache file: 18 MB from a file of
// 3.5 MB at 10,000 facts.
const cacheHeapPerByte = 6

// maxCacheBytes bounds the cache file, read and written: the size table's
// limit for .foundry/cache/. A memory whose cache would be larger (facts of
// tens of kilobytes by the thousand) is not cached: writing it would cost
// its size on disk and in time for a file no read accepts.
var maxCacheBytes = confined.LimitFor(searchCachePath).Max

// The cache file holds, after cacheMagic:
//
//   - its head: the length of the listing of the memory folder the facts
//     were read from (see dirListing), the listing, 0 for none, or 1, the
//     folder's identity and its fact and temp file names, sorted, and a
//     CRC-32C of the file up to there: a fresh process reads the head
//     first and stats the folder's files while it reads the rest;
//   - the fact files, sorted by path: path, identity, content digest,
//     then 0, the parsed fact's fields and its slot in the index (0 for
//     none, else one more than the slot), or 1 for a file that does not
//     parse, the line, message and conflict flag (0 or 1) of its
//     *ParseError: a malformed file is remembered as such, so that it
//     neither keeps the cache from proving whole nor is read again while
//     it stays as it was, and is reported as a read would report it;
//   - the search index of the facts that have a slot: each one's length,
//     then the terms, sorted, each with its postings in slot order (slot
//     as the gap from the previous one, weighted term frequency), then the
//     words as written that differ from their term, sorted, each with its
//     term and the number of facts that contain it;
//   - a CRC-32C of all that.
//
// Loading it is a few large arrays and one map entry per term, not an
// analysis per fact: a fact's own terms are computed again only when it
// leaves the index.

// cacheRecord is one fact file as the cache remembers it, with the live
// state it becomes when adopted.
type cacheRecord struct {
	path string
	file cachedFile // file.err set for a file that does not parse
	ent  entry
	// warned says that the skipped file's warning has been given, when
	// the cache was proved whole before reconcile ran.
	warned bool
}

// searchCache is a decoded cache file: its records, sorted by path, the
// search index whose slots their entries hold, and the folder's listing.
//
// consistent says that the records index exactly the facts that their own
// supersession links leave current, as a scan of files holding just those
// records would: then, when every record proves current and no other fact
// file is listed, the index answers a search as it is (see
// [Store.rankFirst]), each indexed fact's status derived already.
type searchCache struct {
	recs       []cacheRecord
	idx        *liveIndex
	listed     *dirListing // nil for none
	consistent bool
}

// loadCache reads the cache file into s.cache, when the store uses one.
// It sends one value on known, as soon as it can: the cache's listing of
// the memory folder once it has decoded it intact, or nil (no cache, a
// damaged one, none recorded, or one not older than the cache file). The
// heap the load takes is readied in huge pages (see hugepages.Prepare)
// until the caller, whose build fills it, calls endHeap. The caller holds
// s.mu.
func (s *Store) loadCache(known chan<- *dirListing) (endHeap func()) {
	endHeap = func() {}
	sent := false
	send := func(l *dirListing) {
		if !sent {
			sent = true
			known <- l
		}
	}
	defer send(nil)
	if !s.opts.Cache || s.opts.Root == "" {
		return
	}
	s.cacheDirty = true // until the scan proves every entry current
	f, err := s.fsys.Open(searchCachePath)
	if err != nil {
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxCacheBytes || info.Size() < int64(len(cacheMagic))+4 {
		return
	}
	endHeap = hugepages.Prepare(cacheHeapPerByte * info.Size())
	cacheTime := info.ModTime().UnixNano()
	// The head first, so that the folder's files are statted while the
	// rest is read and decoded; a short read is a damaged file.
	data := make([]byte, info.Size())
	n := min(len(data), 64<<10)
	if _, err := io.ReadFull(f, data[:n]); err != nil {
		return
	}
	end, ok := headLen(data[:n])
	if !ok || end > len(data)-4 {
		return
	}
	if end > n {
		if _, err := io.ReadFull(f, data[n:end]); err != nil {
			return
		}
		n = end
	}
	l, ok := decodeHead(data[:end])
	if !ok {
		return
	}
	if l != nil && l.key.mtime < cacheTime {
		send(l)
	}
	send(nil)
	if _, err := io.ReadFull(f, data[n:]); err != nil {
		return
	}
	if c, ok := decodeBody(data, end, l); ok {
		s.cache, s.cacheTime = c, cacheTime
	}
	return endHeap
}

// prebuild links every record of the cache c into the live state of a
// store that knows no fact yet, as if each were current, derives their
// status and takes c's index as the store's: the work of adopting the
// cache, done while the folder is still being listed. No record is trusted
// yet: each stays unsettled, so that anything but [Store.reconcile]
// re-reads it, until reconcile has held it against the file's identity.
// The caller holds s.mu.
func (s *Store) prebuild(c *searchCache) {
	n := len(c.recs)
	s.files, s.byID, s.nums, s.pending = make(map[string]*cachedFile, n), make(map[string][]*entry, n), make(map[int]int, n), make(map[string]bool, n)
	s.sorted = make([]*entry, 0, n)
	s.bulk = &bulkLink{}
	for i := range c.recs {
		r := &c.recs[i]
		if r.file.err == nil {
			r.file.e = &r.ent
		}
		s.setFile(r.path, &r.file)
	}
	c.idx.memo = s.stems
	s.idx = c.idx
	s.settle()
	// The records come in path order, which is nearly id order: sorted
	// now, the listing still under way, not after it.
	slices.SortFunc(s.sorted, entryOrder)
	s.bulk.unsorted = false
}

// reconcile holds the listing of the memory folder (sorted by name)
// against the records of c, which prebuild linked: a record is trusted
// when the file's identity is the one recorded, strong, and settled before
// the cache was written and well before now (git's racy-clean rule); any
// other listed file is read, keeping the cached parse if its content is
// unchanged; a record no file claims is unlinked. A file that does not
// parse is reported on Options.Warn as reading it reports it: from its
// record, or read again as a file never seen. It reports whether the
// cache held every fact file as it is. The caller holds s.mu, in the bulk
// link prebuild began.
func (s *Store) reconcile(c *searchCache, infos []fs.FileInfo) (current bool) {
	cutoff := time.Now().Add(-fileid.RacyWindow).UnixNano()
	recs, i, current := c.recs, 0, true
	for _, info := range infos {
		if info.IsDir() {
			continue
		}
		n := info.Name()
		for i < len(recs) && recs[i].name() < n {
			s.setFile(recs[i].path, nil)
			current = false
			i++
		}
		recorded := false
		if i < len(recs) && recs[i].name() == n {
			r := &recs[i]
			i++
			if s.proves(r, info, cutoff) {
				r.file.settled = true
				if !info.Mode().IsRegular() { // a cache made to disagree
					s.rekey(&r.file, r.file.key, false)
				}
				if unseen(info) {
					s.links[r.path] = true // see sync
				}
				if r.file.err != nil && !r.warned {
					s.warnSkip(r.file.err)
				}
				continue
			}
			if r.file.err != nil {
				s.setFile(r.path, nil)
			}
			recorded = true
		}
		p := Dir + "/" + n
		if !s.revalidate(p, info, false) && s.files[p] != nil {
			s.setFile(p, nil)
		}
		// The cache is stale where saving it would change what it
		// records: a record that did not prove current, or a file it
		// lacks that it would record now. A file it can never record (a
		// link, whose key is never strong, see keyOf; one over its read
		// limit, unreadable, or dated ahead, never settled) leaves it
		// current, or every process that reads the facts would write it
		// again.
		if c := s.files[p]; recorded || c != nil && c.recordable() {
			current = false
		}
	}
	for ; i < len(recs); i++ {
		s.setFile(recs[i].path, nil)
		current = false
	}
	return current
}

// name is the record's file name in the memory folder.
func (r *cacheRecord) name() string { return r.path[len(Dir)+1:] }

// proves reports whether the listed file info proves the record r current:
// its identity is the one recorded, strong, and the file was modified
// before the cache was written and before cutoff, the racy window before
// now (git's racy-clean rule).
func (s *Store) proves(r *cacheRecord, info fs.FileInfo, cutoff int64) bool {
	key := keyOf(info)
	return key.strong() && key.hash == "" && r.file.key == key && key.mtime < s.cacheTime && key.mtime < cutoff
}

// whole reports whether the cache c is the live state as it stands: it is
// consistent, every record is proved current by the listing of the memory
// folder (sorted by name), and no other fact file is listed. Then the scan
// that reconcile would finish changes nothing c's index says.
func (s *Store) whole(c *searchCache, infos []fs.FileInfo) bool {
	if !c.consistent {
		return false
	}
	cutoff := time.Now().Add(-fileid.RacyWindow).UnixNano()
	i := 0
	for _, info := range infos {
		if info.IsDir() {
			continue
		}
		if i == len(c.recs) || c.recs[i].name() != info.Name() || !s.proves(&c.recs[i], info, cutoff) {
			return false
		}
		i++
	}
	return i == len(c.recs)
}

// warnWhole gives the warnings of the files of the cache c that do not
// parse, in path order, as reconcile would: for a cache proved whole, whose
// first search is answered before reconcile runs.
func (s *Store) warnWhole(c *searchCache) {
	for i := range c.recs {
		if r := &c.recs[i]; r.file.err != nil {
			s.warnSkip(r.file.err)
			r.warned = true
		}
	}
}

// saveCache writes the cache when the scan found it stale, once per store:
// atomically, under the cache lock, through the project's confined root. A
// cache that cannot be written (read-only file system, lock held, root
// refused) is simply not written. The cache holds the search index: a
// store that has not searched builds it first, as its first search would.
// The caller holds s.mu, with the live state settled.
func (s *Store) saveCache(ctx context.Context) {
	if !s.cacheDue() {
		return
	}
	s.cacheSaved = true
	r, err := s.root()
	if err != nil || r.CheckFoundry() != nil {
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
	pause.Point(ctx, "facts.cache-saving")
	s.indexAll() // once the cache can be written
	_ = r.WriteFileFunc(searchCachePath, 0o644, func(w io.Writer) error { return s.encodeCache(w, maxCacheBytes) })
}

// cacheDue reports whether the store keeps a cache that a scan found stale
// and has not saved yet (see saveCache). The caller holds s.mu.
func (s *Store) cacheDue() bool {
	return s.opts.Cache && s.opts.Root != "" && s.cacheDirty && !s.cacheSaved
}

// saveDue saves the cache when a scan found it stale (see saveCache), its
// status derived, unless the save falls to another: a first search that
// may be answered early saves it after its answer (see rankFirst), a
// change under the memory lock once the lock is released (see locked,
// saveUnlocked). The caller holds s.mu.
func (s *Store) saveDue(ctx context.Context) {
	if s.early == nil && s.lockers == 0 && s.cacheDue() {
		s.settle()
		s.saveCache(ctx)
	}
}

// saveUnlocked is saveDue for a call that has just released the memory
// lock (see locked).
func (s *Store) saveUnlocked(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced {
		s.saveDue(ctx)
	}
}

// recordable reports whether a fact file's parse, or its parse error, may
// be persisted: its identity alone proves it current, and it had settled
// when read. A file that could not be read never settled: it is tried
// again.
func (c *cachedFile) recordable() bool {
	if !c.settled || !c.key.strong() || c.key.hash != "" {
		return false
	}
	if c.err == nil {
		return true
	}
	_, ok := c.err.(*ParseError)
	return ok
}

// errCacheTooLarge stops writing a cache file that would pass maxCacheBytes.
var errCacheTooLarge = errors.New("search cache over its size limit")

// cacheSink receives the cache file in chunks: the encoder appends to a
// small buffer as it would to a whole file and spills it here, so writing
// the cache of a large memory holds a chunk in memory, not the file.
type cacheSink struct {
	w   io.Writer
	crc uint32
	n   int64 // bytes spilled
	max int64
	err error
}

// spill writes b out when it holds min bytes or more and returns it emptied
// for reuse; b as it is otherwise. After a failure, or past max bytes,
// nothing more is written.
func (c *cacheSink) spill(b []byte, min int) []byte {
	if len(b) < min {
		return b
	}
	if c.err == nil {
		c.n += int64(len(b))
		if c.n > c.max {
			c.err = errCacheTooLarge
		} else {
			c.crc = crc32.Update(c.crc, castagnoli(), b)
			_, c.err = c.w.Write(b)
		}
	}
	return b[:0]
}

// cacheChunk is the size from which the encoder spills its buffer.
const cacheChunk = 64 << 10

// encodeCache writes to w the settled, parsed fact files of the working
// tree and the search index of those among them that are indexed, as
// cacheMagic introduces them, in chunks; it fails with errCacheTooLarge,
// before writing anything when the fact texts alone tell, once the file
// would pass max bytes. The caller holds s.mu and has built the index.
func (s *Store) encodeCache(w io.Writer, max int64) error {
	paths := make([]string, 0, len(s.files))
	text := int64(0)
	for p, c := range s.files {
		switch {
		case !c.recordable():
		case c.err != nil:
			paths = append(paths, p)
			text += int64(len(c.err.(*ParseError).Msg))
		default:
			paths = append(paths, p)
			text += int64(len(c.e.raw.Body) + len(c.e.raw.Title))
		}
	}
	if text > max {
		return errCacheTooLarge
	}
	sort.Strings(paths)
	x := s.idx
	if x == nil {
		x = newLiveIndex()
	}
	// The slots written are the indexed slots of recorded files, renumbered
	// densely in their order, so every posting list stays in slot order.
	slots := make([]int32, len(x.docs))
	for _, p := range paths {
		if e := s.files[p].e; e != nil && e.slot >= 0 && int(e.slot) < len(x.docs) && x.docs[e.slot] == e {
			slots[e.slot] = 1
		}
	}
	ndocs := int32(0)
	var left []*entry // indexed, but not recorded: unsettled files
	for slot, e := range x.docs {
		switch {
		case slots[slot] == 1:
			slots[slot] = ndocs
			ndocs++
		case e != nil:
			left = append(left, e)
			slots[slot] = -1
		default:
			slots[slot] = -1
		}
	}

	sink := &cacheSink{w: w, max: max - 4} // the CRC-32C follows
	var head []byte
	if l := s.listed; l == nil {
		head = append(head, 0)
	} else {
		head = append(head, 1)
		head = appendKey(head, l.key)
		head = binary.AppendUvarint(head, uint64(len(l.names)))
		for _, n := range l.names {
			head = appendString(head, n)
		}
	}
	b := make([]byte, 0, 2*cacheChunk)
	b = append(b, cacheMagic...)
	b = binary.AppendUvarint(b, uint64(len(head)))
	b = append(b, head...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
	b = binary.AppendUvarint(b, uint64(len(paths)))
	for _, p := range paths {
		b = sink.spill(b, cacheChunk)
		c := s.files[p]
		b = appendString(b, p)
		b = appendKey(b, c.key)
		b = append(b, c.sum[:]...)
		if pe, ok := c.err.(*ParseError); ok {
			b = append(b, 1)
			b = binary.AppendUvarint(b, uint64(pe.Line))
			b = appendString(b, pe.Msg)
			b = append(b, boolByte(pe.Conflict))
			continue
		}
		b = append(b, 0)
		f := c.e.raw
		for _, v := range []string{f.ID, string(f.Type), f.Title, f.Scope, string(f.Confidence), f.Source, f.Created,
			f.Expires, f.Supersedes, f.SupersededBy, string(f.Status), f.RetiredReason, f.Body} {
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
		slot := uint64(0)
		if e := c.e; e.slot >= 0 && int(e.slot) < len(slots) && slots[e.slot] >= 0 && x.docs[e.slot] == e {
			slot = uint64(slots[e.slot]) + 1
		}
		b = binary.AppendUvarint(b, slot)
	}

	b = binary.AppendUvarint(b, uint64(ndocs))
	for slot, l := range x.lens {
		b = sink.spill(b, cacheChunk)
		if slots[slot] >= 0 {
			b = binary.AppendUvarint(b, uint64(l)) // a sum of integer weights
		}
	}
	terms := make([]string, 0, len(x.postings))
	total := 0
	for t, pl := range x.postings {
		n := 0
		for _, p := range pl.ps {
			if slots[p.slot] >= 0 {
				n++
			}
		}
		if n > 0 {
			terms = append(terms, t)
			total += n
		}
	}
	sort.Strings(terms)
	b = binary.AppendUvarint(b, uint64(len(terms)))
	b = binary.AppendUvarint(b, uint64(total))
	for _, t := range terms {
		b = sink.spill(b, cacheChunk)
		ps := x.postings[t].ps
		n := 0
		for _, p := range ps {
			if slots[p.slot] >= 0 {
				n++
			}
		}
		b = appendString(b, t)
		b = binary.AppendUvarint(b, uint64(n))
		prev := int32(-1)
		for _, p := range ps {
			if slot := slots[p.slot]; slot >= 0 {
				b = binary.AppendUvarint(b, uint64(slot-prev-1))
				b = binary.AppendUvarint(b, uint64(p.tf))
				prev = slot
			}
		}
	}
	// The words as written of the facts left out do not count.
	var leftForms map[string]int
	if len(left) > 0 {
		leftForms = map[string]int{}
		for _, e := range left {
			for _, f := range x.analysis(e).forms {
				leftForms[f.word]++
			}
		}
	}
	type formOut struct {
		word string
		term int
		live int
	}
	forms := make([]formOut, 0, len(x.forms))
	for w, r := range x.forms {
		live := r.live - leftForms[w]
		if live <= 0 {
			continue
		}
		if i, ok := slices.BinarySearch(terms, r.term); ok {
			forms = append(forms, formOut{w, i, live})
		}
	}
	slices.SortFunc(forms, func(a, b formOut) int { return strings.Compare(a.word, b.word) })
	b = binary.AppendUvarint(b, uint64(len(forms)))
	for _, f := range forms {
		b = sink.spill(b, cacheChunk)
		b = appendString(b, f.word)
		b = binary.AppendUvarint(b, uint64(f.term))
		b = binary.AppendUvarint(b, uint64(f.live))
	}
	b = sink.spill(b, 0)
	if sink.err != nil {
		return sink.err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(b, sink.crc))
	return err
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// castagnoli is made by the first cache read or write: making it fills
// crc32's slicing tables, work a process that never searches need not do.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// appendKey appends a file's identity on disk: size, times, device, inode.
func appendKey(b []byte, k fileKey) []byte {
	for _, n := range []uint64{uint64(k.size), uint64(k.mtime), uint64(k.ctime), k.dev, k.ino} {
		b = binary.AppendUvarint(b, n)
	}
	return b
}

// key reads what appendKey appends.
func (d *cacheDecoder) key() fileKey {
	var k fileKey
	k.size, k.mtime, k.ctime = int64(d.uvarint()), int64(d.uvarint()), int64(d.uvarint())
	k.dev, k.ino = d.uvarint(), d.uvarint()
	return k
}

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

// count reads a number of items of at least per bytes each that follow
// it: anything the rest of the file cannot hold marks the decoder bad.
func (d *cacheDecoder) count(per int) int {
	n := d.uvarint()
	if d.bad || n > uint64((len(d.s)-d.off)/per) {
		d.bad = true
		return 0
	}
	return int(n)
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

// maxTF bounds a weighted term frequency and a fact's length: float32
// holds every integer up to it exactly.
const maxTF = 1 << 24

// decodeCache parses a cache file; ok is false for anything but a complete,
// intact, consistent file of this version: a listing of fact and temp file
// names, sorted and distinct; records in path order, each indexed slot
// held by exactly one record, posting lists in slot order over existing
// slots, terms and words sorted and distinct.
func decodeCache(data []byte) (*searchCache, bool) {
	end, ok := headLen(data)
	if !ok || end > len(data)-4 {
		return nil, false
	}
	l, ok := decodeHead(data[:end])
	if !ok {
		return nil, false
	}
	return decodeBody(data, end, l)
}

// headLen returns the length of the head of a cache file (see the format
// above) from its first bytes: enough for the magic and the listing's
// length. ok is false when they are not those of a cache file of this
// version.
func headLen(data []byte) (int, bool) {
	if !bytes.HasPrefix(data, []byte(cacheMagic)) {
		return 0, false
	}
	n, k := binary.Uvarint(data[len(cacheMagic):])
	if k <= 0 || n > uint64(maxCacheBytes) {
		return 0, false
	}
	return len(cacheMagic) + k + int(n) + 4, true
}

// decodeHead parses the head of a cache file, all of data: the listing of
// the memory folder, nil for none. ok is false unless the head is intact
// and its listing names fact and temp files, sorted and distinct.
func decodeHead(data []byte) (*dirListing, bool) {
	if len(data) < len(cacheMagic)+5 {
		return nil, false
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, false
	}
	d := &cacheDecoder{s: unsafe.String(unsafe.SliceData(body), len(body)), off: len(cacheMagic)}
	d.uvarint() // the length, which headLen read
	var l *dirListing
	switch d.uvarint() {
	case 0:
	case 1:
		l = &dirListing{key: d.key()}
		l.names = make([]string, d.count(2))
		for i := range l.names {
			n := d.str()
			if d.bad || (i > 0 && n <= l.names[i-1]) || strings.ContainsAny(n, "/\x00") || !isFactFile(n) && !isTempFile(n) {
				return nil, false
			}
			l.names[i] = n
		}
	default:
		return nil, false
	}
	if d.bad || d.off != len(d.s) {
		return nil, false
	}
	return l, true
}

// decodeBody parses the rest of a cache file whose head, data[:end],
// decodeHead has read as l.
func decodeBody(data []byte, end int, l *dirListing) (*searchCache, bool) {
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, false
	}
	// The strings of the facts are slices of the file as read, which
	// nothing writes to again: no copy of it.
	d := &cacheDecoder{s: unsafe.String(unsafe.SliceData(body), len(body)), off: end}
	// A record takes 32 bytes of digest and a byte at least for each of
	// 10 numbers and strings at least (those of a file that does not
	// parse).
	recs := make([]cacheRecord, d.count(32+10))
	slotOf := make([]uint64, len(recs)) // one more than the slot; 0 for none
	var tagSlab []string
	for i := range recs {
		r := &recs[i]
		r.path = d.str()
		// A path is the folder's and a fact file's name, nothing else: a
		// string test, cheaper than path.Dir's cleaning, and exact.
		name, inDir := strings.CutPrefix(r.path, Dir+"/")
		if d.bad || (i > 0 && r.path <= recs[i-1].path) || !inDir || strings.IndexByte(name, '/') >= 0 || !isFactFile(name) {
			return nil, false
		}
		c := &r.file
		// A record is of a file read, and only a regular file is read
		// (confined.ReadFile refuses any other).
		c.key, c.regular = d.key(), true
		copy(c.sum[:], d.byteN(len(c.sum)))
		e := &r.ent
		e.slot = -1
		switch d.byteN(1) {
		case "\x00":
		case "\x01":
			line, msg, conflict := d.uvarint(), d.str(), d.byteN(1)
			if d.bad || line > math.MaxInt32 || msg == "" || conflict > "\x01" {
				return nil, false
			}
			c.err = &ParseError{Path: r.path, Line: int(line), Msg: msg, Conflict: conflict == "\x01"}
			continue
		default:
			return nil, false
		}
		f := &e.raw
		f.ID, f.Type, f.Title, f.Scope = d.str(), Type(d.str()), d.str(), d.str()
		f.Confidence, f.Source, f.Created, f.Expires = Confidence(d.str()), d.str(), d.str(), d.str()
		f.Supersedes, f.SupersededBy, f.Status = d.str(), d.str(), Status(d.str())
		f.RetiredReason, f.Body = d.str(), d.str()
		if ntags := d.count(1); ntags > 0 {
			// The tags of all records share a few large arrays.
			if cap(tagSlab)-len(tagSlab) < ntags-1 {
				tagSlab = make([]string, 0, max(ntags-1, 4096))
			}
			k := len(tagSlab)
			tagSlab = tagSlab[:k+ntags-1]
			f.Tags = tagSlab[k : k+ntags-1 : k+ntags-1]
			if f.Tags == nil {
				// An empty list sliced from a slab not yet allocated
				// is nil: "tags": [], never null, as when parsed.
				f.Tags = []string{}
			}
			for i := range f.Tags {
				f.Tags[i] = d.str()
			}
		}
		f.Path = r.path
		slotOf[i] = d.uvarint()
		if d.bad {
			return nil, false
		}
		e.status, e.supersededBy, e.idnum, e.slot = f.Status, f.SupersededBy, IDNumber(f.ID), -1
	}

	ndocs := d.count(1)
	if d.bad || ndocs > len(recs) {
		return nil, false
	}
	x := &liveIndex{docs: make([]*entry, ndocs), lens: make([]float64, ndocs), n: ndocs, expiries: map[string]int{}}
	// The ids that another record's supersedes names, as settle derives
	// them: a record is current when none does and its own fields do not
	// say otherwise.
	var superseded map[string]bool
	for i := range recs {
		if f := &recs[i].ent.raw; recs[i].file.err == nil && f.Supersedes != "" && f.Supersedes != f.ID {
			if superseded == nil {
				superseded = map[string]bool{}
			}
			superseded[f.Supersedes] = true
		}
	}
	consistent := true
	for i := range recs {
		if recs[i].file.err != nil {
			continue // no fact, no slot
		}
		e := &recs[i].ent
		current := e.raw.SupersededBy == "" && !superseded[e.raw.ID] && e.raw.current()
		if current != (slotOf[i] != 0) {
			consistent = false
		}
		if slotOf[i] == 0 {
			continue
		}
		slot := slotOf[i] - 1
		if slot >= uint64(ndocs) || x.docs[slot] != nil {
			return nil, false
		}
		e.slot = int32(slot)
		if current && e.status == "" {
			e.status = Active // as settle derives it
		}
		x.docs[slot] = e
		if e.raw.Expires != "" {
			x.expiries[e.raw.Expires]++
		}
	}
	for slot, e := range x.docs {
		l := d.uvarint()
		if e == nil || l > maxTF {
			return nil, false
		}
		x.lens[slot] = float64(l)
		x.total += float64(l)
	}

	nterms := d.count(3) // a term, its count and one posting
	total := d.count(2)
	if d.bad {
		return nil, false
	}
	terms := make([]string, nterms)
	lists := make([]postingList, nterms)
	slab := make([]posting, total)
	x.postings = make(map[string]*postingList, nterms)
	k := 0
	for i := range terms {
		t := d.str()
		n := d.count(2)
		if d.bad || n == 0 || n > total-k || (i > 0 && t <= terms[i-1]) {
			return nil, false
		}
		terms[i] = t
		ps := slab[k : k+n : k+n]
		k += n
		prev := uint64(0) // one more than the previous slot
		for j := range ps {
			gap, tf := d.uvarint(), d.uvarint()
			if gap >= uint64(ndocs)-prev || tf == 0 || tf > maxTF {
				return nil, false
			}
			prev += gap + 1
			ps[j] = posting{slot: int32(prev - 1), tf: float32(tf)}
		}
		lists[i] = postingList{ps: ps, live: n}
		x.postings[t] = &lists[i]
	}
	if d.bad || k != total {
		return nil, false
	}

	nforms := d.count(3)
	refs := make([]formRef, nforms)
	x.forms = make(map[string]*formRef, nforms)
	// The vocabulary is the terms and the words, merged.
	x.vocab = make([]string, 0, nterms+nforms)
	prevWord, ti := "", 0
	for i := range refs {
		w := d.str()
		term, live := d.uvarint(), d.uvarint()
		if d.bad || (i > 0 && w <= prevWord) || term >= uint64(nterms) || live == 0 || live > uint64(ndocs) {
			return nil, false
		}
		prevWord = w
		refs[i] = formRef{term: terms[term], live: int(live)}
		x.forms[w] = &refs[i]
		for ti < len(terms) && terms[ti] < w {
			x.vocab = append(x.vocab, terms[ti])
			ti++
		}
		if ti == len(terms) || terms[ti] != w {
			x.vocab = append(x.vocab, w)
		}
	}
	x.vocab = append(x.vocab, terms[ti:]...)
	if d.bad || d.off != len(d.s) {
		return nil, false
	}
	return &searchCache{recs: recs, idx: x, listed: l, consistent: consistent}, true
}
