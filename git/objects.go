// This file defines lazyStorage, go-git's on-disk storage with one change:
// objects are found in pack files by binary search in each pack's .idx
// file, as git does, instead of decoding every .idx file whole before the
// first object can be read. Opening a repository and reading a few objects
// then costs the same with ten objects or a million.

package git

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"

	billy "github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/foundryhq/foundry/internal/confined"
)

// lazyStorage reads objects from loose files and from packs through
// packIndex; anything it cannot answer (an object in an alternate, a
// version 1 .idx, a damaged file) goes to go-git's own storage, which then
// decides. Everything else is go-git's storage unchanged.
type lazyStorage struct {
	*filesystem.Storage
	dotgit billy.Filesystem

	mu     sync.Mutex
	packs  []*lazyPack // nil until the first packed object is looked for
	listed string      // the pack names packs was built from
	cache  cache.Object

	// sizes remembers the sizes read from objects' headers, loose and
	// packed (see packedSize). Reading a loose header inflates the first
	// block of the object, up to 32 KiB, and a view asks for a file's size
	// when it lists the folder and again before it reads the file: for a
	// memory of large facts, more work than inflating the content once.
	// An object's size is part of what its hash names, so an entry never
	// goes stale.
	sizesMu sync.Mutex
	sizes   map[plumbing.Hash]int64
}

// looseHeaderInput is how much of a loose object file looseHeaderSize
// inflates: the header ("blob 60000\x00") is the start of the stream, and
// even a block's largest Huffman tables leave room for it.
const looseHeaderInput = 1024

// looseHeaderSize reads the size from the header of the loose object file
// f, inflating no more than its first looseHeaderInput bytes; ok is false
// when they do not hold a well-formed header, and the caller reads it the
// long way. go-git's header reader inflates a whole window, up to 32 KiB
// of the object, to read a few bytes.
func looseHeaderSize(f io.Reader) (size int64, ok bool) {
	zr, err := zlib.NewReader(io.LimitReader(f, looseHeaderInput))
	if err != nil {
		return 0, false
	}
	defer zr.Close()
	var buf [32]byte // "commit " and 20 digits fit
	n := 0
	for n < len(buf) {
		k, err := zr.Read(buf[n:])
		n += k
		if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
			typ, num, found := strings.Cut(string(buf[:i]), " ")
			if _, terr := plumbing.ParseObjectType(typ); !found || terr != nil {
				return 0, false
			}
			size, err := strconv.ParseInt(num, 10, 64)
			return size, err == nil && size >= 0
		}
		if err != nil || k == 0 {
			return 0, false
		}
	}
	return 0, false
}

// maxSizes bounds lazyStorage.sizes: past it, the sizes start over.
const maxSizes = 1 << 16

func (s *lazyStorage) knownSize(h plumbing.Hash) (int64, bool) {
	s.sizesMu.Lock()
	defer s.sizesMu.Unlock()
	size, ok := s.sizes[h]
	return size, ok
}

func (s *lazyStorage) rememberSize(h plumbing.Hash, size int64) {
	s.sizesMu.Lock()
	defer s.sizesMu.Unlock()
	if s.sizes == nil || len(s.sizes) >= maxSizes {
		s.sizes = map[plumbing.Hash]int64{}
	}
	s.sizes[h] = size
}

// lazyPack is one pack file and its index.
type lazyPack struct {
	name string // "pack-<hash>", without extension
	idx  *packIndex
	file billy.File         // opened on first read
	pack *packfile.Packfile // over file
}

func newLazyStorage(st *filesystem.Storage) *lazyStorage {
	return &lazyStorage{Storage: st, dotgit: st.Filesystem(), cache: smallBlobs{cache.NewObjectLRUDefault()}}
}

// cachedBlobMax is the largest blob the object cache keeps.
const cachedBlobMax = 8 * confined.KiB

// smallBlobs is an object cache that keeps commits, trees and small blobs
// but no larger blob. A view reads each file's blob once into memory of
// its own: a cache of go-git's default 96 MiB kept a second copy of up to
// that much of a memory of large facts (2,000 facts of 60 KB read at a
// revision: 263 MiB resident), while commits and trees are what history
// walks read again and again. A large blob that is the delta base of
// another in a pack is inflated again when that one is read.
type smallBlobs struct{ cache.Object }

func (c smallBlobs) Put(o plumbing.EncodedObject) {
	if o.Type() != plumbing.BlobObject || o.Size() <= cachedBlobMax {
		c.Object.Put(o)
	}
}

// EncodedObject implements storer.EncodedObjectStorer.
func (s *lazyStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := s.read(h)
	if errors.Is(err, ErrObjectTooLarge) {
		return nil, err // go-git's storage would inflate it whole
	}
	if err != nil {
		return s.Storage.EncodedObject(t, h)
	}
	if t != plumbing.AnyObject && obj.Type() != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return obj, nil
}

// EncodedObjectSize implements storer.EncodedObjectSizeQuerier. It reads
// only the object's header (a loose object's first bytes, a packed object's
// header or its delta's target size), never its content, so a caller can
// refuse an object by its size before it is inflated.
func (s *lazyStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if obj, ok := s.cache.Get(h); ok {
		return obj.Size(), nil
	}
	if size, ok := s.knownSize(h); ok {
		return size, nil
	}
	// The packs already listed first, as in read.
	s.mu.Lock()
	if s.listedPack(h) != nil {
		defer s.mu.Unlock()
		return s.packedSize(h)
	}
	s.mu.Unlock()
	f, err := s.dotgit.Open(loosePath(h))
	switch {
	case err == nil:
		defer f.Close()
		if size, ok := looseHeaderSize(f); ok {
			s.rememberSize(h, size)
			return size, nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
		r, err := objfile.NewReader(f)
		if err != nil {
			return 0, err
		}
		defer r.Close()
		_, size, err := r.Header()
		if err == nil {
			s.rememberSize(h, size)
		}
		return size, err
	case !errors.Is(err, fs.ErrNotExist):
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	size, err := s.packedSize(h)
	if errors.Is(err, errNotHere) {
		return s.Storage.EncodedObjectSize(h)
	}
	return size, err
}

// packedSize returns the size of the object h from its header in a pack
// (the error is errNotHere when no listed pack holds it), and remembers
// it: a view asks for a file's size when it lists its folder, again when
// it stats the file before reading it, and the header of a packed object
// is read again each time. The caller holds s.mu.
func (s *lazyStorage) packedSize(h plumbing.Hash) (int64, error) {
	p, off, err := s.packed(h)
	if err != nil {
		return 0, err
	}
	size, err := p.pack.GetSizeByOffset(off)
	if err == nil {
		s.rememberSize(h, size)
	}
	return size, err
}

// HasEncodedObject implements storer.EncodedObjectStorer.
func (s *lazyStorage) HasEncodedObject(h plumbing.Hash) error {
	if _, err := s.dotgit.Stat(loosePath(h)); err == nil {
		return nil
	}
	s.mu.Lock()
	p := s.findPacked(h)
	s.mu.Unlock()
	if p != nil {
		return nil
	}
	return s.Storage.HasEncodedObject(h)
}

// Close closes the pack files this storage opened, then go-git's.
func (s *lazyStorage) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, p := range s.packs {
		if p.file != nil {
			errs = append(errs, p.file.Close())
			p.file, p.pack = nil, nil
		}
	}
	errs = append(errs, s.Storage.Close())
	return errors.Join(errs...)
}

func loosePath(h plumbing.Hash) string {
	hex := h.String()
	return "objects/" + hex[:2] + "/" + hex[2:]
}

// errNotHere means read found no object: go-git's storage looks further.
var errNotHere = errors.New("object not in a loose file or a listed pack")

// read finds h in the packs already listed, then in a loose file, then in
// the packs listed again, as git does: looking in a pack's index is a
// binary search in memory, while looking for a loose file costs an open
// (through go-billy's chroot, an lstat of every folder on the way too), so
// a history walk over a packed repository would otherwise pay a failed
// open for every object it reads.
func (s *lazyStorage) read(h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok := s.cache.Get(h); ok {
		return obj, nil
	}
	s.mu.Lock()
	if s.listedPack(h) != nil {
		defer s.mu.Unlock()
		return s.readPacked(h)
	}
	s.mu.Unlock()
	f, err := s.dotgit.Open(loosePath(h))
	switch {
	case err == nil:
		obj, err := readLoose(f, h)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		s.cache.Put(obj)
		return obj, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readPacked(h)
}

// readPacked reads h from the pack that holds it, refusing from its header
// an object over maxObjectBytes. s.mu is held.
func (s *lazyStorage) readPacked(h plumbing.Hash) (plumbing.EncodedObject, error) {
	p, off, err := s.packed(h)
	if err != nil {
		return nil, err
	}
	size, err := p.pack.GetSizeByOffset(off)
	if err != nil {
		return nil, err
	}
	if size > maxObjectBytes {
		return nil, &TooLargeError{Hash: h.String(), Size: size}
	}
	return p.pack.Get(h)
}

// packed finds h in a pack, opened for reading, and its offset there; the
// error is errNotHere when no listed pack holds it. s.mu is held.
func (s *lazyStorage) packed(h plumbing.Hash) (*lazyPack, int64, error) {
	for retried := false; ; retried = true {
		p := s.findPacked(h)
		if p == nil {
			return nil, 0, errNotHere
		}
		if p.pack == nil {
			f, err := s.dotgit.Open("objects/pack/" + p.name + ".pack")
			if errors.Is(err, fs.ErrNotExist) && !retried && s.listPacks() {
				continue // a gc removed the pack since it was listed
			}
			if err != nil {
				return nil, 0, err
			}
			// No filesystem: every object is read into memory, as the
			// views read them anyway.
			p.file, p.pack = f, packfile.NewPackfileWithCache(p.idx, nil, f, s.cache, 0)
		}
		off, err := p.idx.FindOffset(h)
		return p, off, err
	}
}

// readLoose reads the loose object file of h, refusing from its header an
// object over maxObjectBytes before inflating it.
func readLoose(f io.Reader, h plumbing.Hash) (plumbing.EncodedObject, error) {
	r, err := objfile.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t, size, err := r.Header()
	if err != nil {
		return nil, err
	}
	if size > maxObjectBytes {
		return nil, &TooLargeError{Hash: h.String(), Size: size}
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(t)
	// Read to the size the header states, and one byte more to see that
	// the content ends there: a buffer grown as it reads would allocate
	// twice the object's size.
	data := make([]byte, size+1)
	n, err := io.ReadFull(r, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if int64(n) != size {
		return nil, fmt.Errorf("loose object %s: %d bytes, header says %d", r.Hash(), n, size)
	}
	if _, err := obj.Write(data[:n]); err != nil {
		return nil, err
	}
	return obj, nil
}

// listedPack returns the pack holding h among those listed already (listing
// them on first use), without listing them again when none does. s.mu is
// held.
func (s *lazyStorage) listedPack(h plumbing.Hash) *lazyPack {
	if s.packs == nil {
		s.listPacks()
	}
	for _, p := range s.packs {
		if _, err := p.idx.FindOffset(h); err == nil {
			return p
		}
	}
	return nil
}

// findPacked returns the pack holding h, listing the packs again when they
// changed since the last listing (a gc or a fetch since). s.mu is held.
func (s *lazyStorage) findPacked(h plumbing.Hash) *lazyPack {
	if p := s.listedPack(h); p != nil {
		return p
	}
	if s.listPacks() {
		for _, p := range s.packs {
			if _, err := p.idx.FindOffset(h); err == nil {
				return p
			}
		}
	}
	return nil
}

// listPacks reads the .idx files of objects/pack, keeping the packs already
// open that are still there; it reports whether the listing changed.
func (s *lazyStorage) listPacks() bool {
	infos, err := s.dotgit.ReadDir("objects/pack")
	if err != nil {
		infos = nil
	}
	var names []string
	for _, fi := range infos {
		if n, ok := strings.CutSuffix(fi.Name(), ".idx"); ok && strings.HasPrefix(n, "pack-") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	listing := strings.Join(names, "\n")
	if s.packs != nil && listing == s.listed {
		return false
	}
	old := map[string]*lazyPack{}
	for _, p := range s.packs {
		old[p.name] = p
	}
	packs := []*lazyPack{}
	for _, n := range names {
		if p := old[n]; p != nil {
			packs = append(packs, p)
			delete(old, n)
			continue
		}
		data, err := readAll(s.dotgit, "objects/pack/"+n+".idx")
		if err != nil {
			continue
		}
		idx, err := parsePackIndex(data)
		if err != nil {
			continue // go-git's storage reads it, or says why not
		}
		packs = append(packs, &lazyPack{name: n, idx: idx})
	}
	for _, p := range old {
		if p.file != nil {
			_ = p.file.Close() // the pack is gone; nothing to report
		}
	}
	s.packs, s.listed = packs, listing
	return true
}

// readAll reads a whole file of fsys, as os.ReadFile does: into one
// buffer of the file's size, which the runtime need not clear when it comes
// fresh from the system (a bytes.Buffer clears every byte it grows by).
//
// Only a regular file is opened (links followed): the kind is checked
// first, since opening a FIFO blocks until a writer comes.
func readAll(fsys billy.Filesystem, name string) ([]byte, error) {
	fi, err := fsys.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readWhole(f, fi.Size())
}

// readWhole reads r to its end into one buffer of size, its length when
// stat'ed, grown only if it grew since.
func readWhole(r io.Reader, size int64) ([]byte, error) {
	data := make([]byte, 0, 512+int(size)) // a few bytes more to see the end at once
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew since Stat
		}
	}
}

// packIndex is a pack's .idx file (version 2) read but not decoded. It
// implements go-git's idxfile.Index: an object's offset is found by binary
// search in its fan-out bucket; the object at an offset, which delta
// resolution asks for, by a scan of the offsets until it has been asked
// often enough to sort them once.
type packIndex struct {
	fanout  []byte // 256 big-endian counts
	names   []byte // n × 20
	crcs    []byte // n × 4
	offsets []byte // n × 4; the high bit selects an entry of large
	large   []byte // m × 8
	n       int

	byOffset []int32 // entry numbers sorted by offset, once built
	scans    int     // reverse look-ups answered by scanning
}

// Layout of a version 2 .idx file.
const (
	packIdxHeaderLen = 8 // "\377tOc", version
	packIdxFanoutLen = 256 * 4
	packIdxTrailer   = 2 * 20 // the pack's checksum, the .idx's own
	reverseScans     = 16     // reverse look-ups by scanning before sorting
)

var errPackIndex = errors.New("unsupported or malformed pack index")

// parsePackIndex checks the layout of a version 2 .idx file. Like git it
// does not verify the file's checksum; a lookup that misses because the
// file lies falls through to go-git's storage.
func parsePackIndex(data []byte) (*packIndex, error) {
	if len(data) < packIdxHeaderLen+packIdxFanoutLen+packIdxTrailer ||
		string(data[:4]) != "\377tOc" || binary.BigEndian.Uint32(data[4:]) != 2 {
		return nil, errPackIndex
	}
	fanout := data[packIdxHeaderLen : packIdxHeaderLen+packIdxFanoutLen]
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		c := binary.BigEndian.Uint32(fanout[4*i:])
		if c < prev {
			return nil, errPackIndex
		}
		prev = c
	}
	n := uint64(prev)
	rest := uint64(len(data) - packIdxHeaderLen - packIdxFanoutLen - packIdxTrailer)
	if n*28 > rest || (rest-n*28)%8 != 0 {
		return nil, errPackIndex
	}
	p := &packIndex{fanout: fanout, n: int(n)}
	b := data[packIdxHeaderLen+packIdxFanoutLen:]
	p.names, b = b[:20*n], b[20*n:]
	p.crcs, b = b[:4*n], b[4*n:]
	p.offsets, b = b[:4*n], b[4*n:]
	p.large = b[:len(b)-packIdxTrailer]
	return p, nil
}

// find returns the entry number of h, or -1.
func (p *packIndex) find(h plumbing.Hash) int {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(p.fanout[4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(p.fanout[4*int(h[0]):]))
	i := lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(p.names[20*(lo+i):20*(lo+i)+20], h[:]) >= 0 })
	if i < hi && bytes.Equal(p.names[20*i:20*i+20], h[:]) {
		return i
	}
	return -1
}

// offset returns the pack offset of entry i.
func (p *packIndex) offset(i int) (int64, error) {
	o := binary.BigEndian.Uint32(p.offsets[4*i:])
	if o&0x80000000 == 0 {
		return int64(o), nil
	}
	j := int(o & 0x7fffffff)
	if 8*j+8 > len(p.large) {
		return 0, errPackIndex
	}
	v := binary.BigEndian.Uint64(p.large[8*j:])
	if v > 1<<62 {
		return 0, errPackIndex
	}
	return int64(v), nil
}

func (p *packIndex) hash(i int) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], p.names[20*i:])
	return h
}

// Contains implements idxfile.Index.
func (p *packIndex) Contains(h plumbing.Hash) (bool, error) { return p.find(h) >= 0, nil }

// FindOffset implements idxfile.Index.
func (p *packIndex) FindOffset(h plumbing.Hash) (int64, error) {
	i := p.find(h)
	if i < 0 {
		return 0, plumbing.ErrObjectNotFound
	}
	return p.offset(i)
}

// FindCRC32 implements idxfile.Index.
func (p *packIndex) FindCRC32(h plumbing.Hash) (uint32, error) {
	i := p.find(h)
	if i < 0 {
		return 0, plumbing.ErrObjectNotFound
	}
	return binary.BigEndian.Uint32(p.crcs[4*i:]), nil
}

// FindHash implements idxfile.Index.
func (p *packIndex) FindHash(o int64) (plumbing.Hash, error) {
	if p.byOffset == nil && p.scans < reverseScans {
		p.scans++
		for i := 0; i < p.n; i++ {
			if off, err := p.offset(i); err == nil && off == o {
				return p.hash(i), nil
			}
		}
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	if p.byOffset == nil {
		p.byOffset = make([]int32, p.n)
		for i := range p.byOffset {
			p.byOffset[i] = int32(i)
		}
		sort.Slice(p.byOffset, func(a, b int) bool {
			oa, _ := p.offset(int(p.byOffset[a]))
			ob, _ := p.offset(int(p.byOffset[b]))
			return oa < ob
		})
	}
	k := sort.Search(p.n, func(k int) bool {
		off, _ := p.offset(int(p.byOffset[k]))
		return off >= o
	})
	if k < p.n {
		if off, err := p.offset(int(p.byOffset[k])); err == nil && off == o {
			return p.hash(int(p.byOffset[k])), nil
		}
	}
	return plumbing.ZeroHash, plumbing.ErrObjectNotFound
}

// Count implements idxfile.Index.
func (p *packIndex) Count() (int64, error) { return int64(p.n), nil }

// Entries implements idxfile.Index, in hash order.
func (p *packIndex) Entries() (idxfile.EntryIter, error) {
	es := make([]*idxfile.Entry, p.n)
	for i := range es {
		o, err := p.offset(i)
		if err != nil {
			return nil, err
		}
		es[i] = &idxfile.Entry{Hash: p.hash(i), CRC32: binary.BigEndian.Uint32(p.crcs[4*i:]), Offset: uint64(o)}
	}
	return &entryIter{es: es}, nil
}

// EntriesByOffset implements idxfile.Index.
func (p *packIndex) EntriesByOffset() (idxfile.EntryIter, error) {
	it, err := p.Entries()
	if err != nil {
		return nil, err
	}
	es := it.(*entryIter).es
	sort.Slice(es, func(a, b int) bool { return es[a].Offset < es[b].Offset })
	return it, nil
}

type entryIter struct {
	es []*idxfile.Entry
}

func (it *entryIter) Next() (*idxfile.Entry, error) {
	if len(it.es) == 0 {
		return nil, io.EOF
	}
	e := it.es[0]
	it.es = it.es[1:]
	return e, nil
}

func (it *entryIter) Close() error { return nil }
