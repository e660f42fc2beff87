package git

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/foundryhq/foundry/git/gittest"
)

// packedRepo builds a repository whose objects lie in two packs (the
// second one thin on history, with deltas against the first) and in loose
// files, with delta chains from many versions of the same files.
func packedRepo(t testing.TB) *gittest.Repo {
	r := gittest.New(t)
	for v := range 12 {
		for f := range 6 {
			r.Write(fmt.Sprintf("d%d/f%d.json", f%3, f), strings.Repeat(fmt.Sprintf(`{"line":%d,"v":%d}`+"\n", f, v), 40+v))
		}
		r.CommitAll(fmt.Sprint("v", v))
		if v == 7 {
			r.Git("gc", "-q", "--aggressive")
		}
	}
	r.Git("repack", "-q", "-d") // the commits since the gc, in a second pack
	r.Write("d0/loose.json", `{"loose": true}`)
	r.CommitAll("loose")
	return r
}

// allObjects lists every object id in the repository.
func allObjects(t testing.TB, r *gittest.Repo) []plumbing.Hash {
	var out []plumbing.Hash
	for _, line := range strings.Split(r.Git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)"), "\n") {
		out = append(out, plumbing.NewHash(line))
	}
	return out
}

// TestLazyStorageReadsWhatGoGitReads reads every object of a repository
// with packs, deltas and loose objects through lazyStorage and through
// go-git's own storage: same type, same content.
func TestLazyStorageReadsWhatGoGitReads(t *testing.T) {
	t.Parallel()
	r := packedRepo(t)
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.idx"))
	if len(packs) != 2 {
		t.Fatalf("%d packs, want 2", len(packs))
	}
	plainRepo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	lazy := plainRepo.st
	plain := lazy.Storage
	defer plainRepo.Close()

	objects := allObjects(t, r)
	if len(objects) < 100 {
		t.Fatalf("only %d objects", len(objects))
	}
	for _, h := range objects {
		got, err := lazy.read(h) // never through the fallback
		if err != nil {
			t.Fatalf("lazy read %s: %v", h, err)
		}
		want, err := plain.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatal(err)
		}
		if got.Type() != want.Type() || got.Size() != want.Size() {
			t.Fatalf("%s: %s of %d bytes, go-git says %s of %d", h, got.Type(), got.Size(), want.Type(), want.Size())
		}
		if g, w := content(t, got), content(t, want); !bytes.Equal(g, w) {
			t.Fatalf("%s: content differs from go-git's", h)
		}
		if size, err := lazy.EncodedObjectSize(h); err != nil || size != want.Size() {
			t.Fatalf("%s: size %d, %v", h, size, err)
		}
		if err := lazy.HasEncodedObject(h); err != nil {
			t.Fatalf("%s: HasEncodedObject: %v", h, err)
		}
	}
	missing := plumbing.NewHash("0123456789012345678901234567890123456789")
	if _, err := lazy.EncodedObject(plumbing.AnyObject, missing); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("missing object: %v", err)
	}
	if _, err := lazy.EncodedObject(plumbing.TreeObject, objects[0]); err == nil {
		if obj, _ := plain.EncodedObject(plumbing.AnyObject, objects[0]); obj.Type() != plumbing.TreeObject {
			t.Errorf("an object of type %s read as a tree", obj.Type())
		}
	}
}

// TestLazyStoragePackedSizes: the size of a packed object, asked before
// it is read, is go-git's, and is remembered, so that asking again (a
// view stats a file it listed) reads no header again; deltas included.
func TestLazyStoragePackedSizes(t *testing.T) {
	t.Parallel()
	r := packedRepo(t)
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	lazy := repo.st
	plain, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	packed := 0
	for _, h := range allObjects(t, r) {
		want, err := plain.st.Storage.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatal(err)
		}
		_, loose := os.Stat(filepath.Join(r.Dir, ".git", "objects", h.String()[:2], h.String()[2:]))
		for range 2 {
			if size, err := lazy.EncodedObjectSize(h); err != nil || size != want.Size() {
				t.Fatalf("%s: size %d, %v; want %d", h, size, err, want.Size())
			}
		}
		if loose != nil { // packed
			packed++
			if size, ok := lazy.knownSize(h); !ok || size != want.Size() {
				t.Errorf("%s: packed size not remembered (%d, %v)", h, size, ok)
			}
		}
	}
	if packed < 100 {
		t.Fatalf("only %d packed objects", packed)
	}
}

func content(t testing.TB, obj plumbing.EncodedObject) []byte {
	rd, err := obj.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLazyStorageFollowsRepack checks that a repository opened before a gc
// still reads objects after it: the packs are listed again when an object
// is not in the ones known.
func TestLazyStorageFollowsRepack(t *testing.T) {
	t.Parallel()
	r := packedRepo(t)
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if _, err := repo.Resolve("HEAD~3"); err != nil {
		t.Fatal(err)
	}
	r.Write("after.json", "{}")
	r.CommitAll("after the open")
	r.Git("gc", "-q", "--prune=now")
	for _, h := range allObjects(t, r) {
		if _, err := repo.st.read(h); err != nil {
			t.Fatalf("read %s after gc: %v", h, err)
		}
	}
	if c, err := repo.Resolve("HEAD"); err != nil || c.Subject != "after the open" {
		t.Fatalf("Resolve(HEAD) after gc = %+v, %v", c, err)
	}
}

// TestPackIndexLargeOffsets checks the 8-byte offsets of packs over 2 GiB
// with an index built by hand, and the rejection of malformed ones.
func TestPackIndexLargeOffsets(t *testing.T) {
	t.Parallel()
	h1 := plumbing.NewHash("1000000000000000000000000000000000000000")
	h2 := plumbing.NewHash("2000000000000000000000000000000000000000")
	build := func(offsets []uint32, large []uint64) []byte {
		b := []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}
		for i := range 256 {
			n := 0
			if i >= 0x10 {
				n++
			}
			if i >= 0x20 {
				n++
			}
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		b = append(b, h1[:]...)
		b = append(b, h2[:]...)
		b = binary.BigEndian.AppendUint32(b, 11)
		b = binary.BigEndian.AppendUint32(b, 22)
		for _, o := range offsets {
			b = binary.BigEndian.AppendUint32(b, o)
		}
		for _, o := range large {
			b = binary.BigEndian.AppendUint64(b, o)
		}
		b = append(b, make([]byte, 20)...) // the pack's checksum
		sum := sha1.Sum(b)
		return append(b, sum[:]...)
	}
	data := build([]uint32{12, 0x80000000}, []uint64{5 << 30})
	p, err := parsePackIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	want := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(data)).Decode(want); err != nil {
		t.Fatalf("go-git declines the sample: %v", err)
	}
	comparePackIndex(t, p, want)
	if o, err := p.FindOffset(h2); err != nil || o != 5<<30 {
		t.Errorf("large offset = %d, %v", o, err)
	}

	for name, bad := range map[string][]byte{
		"large offset out of range": build([]uint32{12, 0x80000001}, []uint64{5 << 30}),
		"version 1":                 append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 1}, data[8:]...),
		"truncated":                 data[:len(data)-41],
		"short":                     data[:100],
	} {
		p, err := parsePackIndex(bad)
		if err != nil {
			continue
		}
		if _, err := p.FindOffset(h2); err == nil {
			t.Errorf("%s: read an offset from a malformed index", name)
		}
	}
}

// comparePackIndex checks every entry go-git's decoder found against the
// lazy index.
func comparePackIndex(t *testing.T, got *packIndex, want *idxfile.MemoryIndex) {
	t.Helper()
	n, _ := want.Count()
	if c, _ := got.Count(); c != n {
		t.Fatalf("Count = %d, want %d", c, n)
	}
	it, err := want.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var all []*idxfile.Entry
	for {
		e, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return // go-git cannot list this index either (a bad 8-byte offset)
		}
		all = append(all, e)
	}
	sorted := wellFormed(got)
	for _, e := range all {
		o, err := got.FindOffset(e.Hash)
		switch {
		case err != nil && sorted:
			t.Fatalf("FindOffset(%s): %v", e.Hash, err)
		case err == nil && uint64(o) != e.Offset:
			// Two entries of one hash in a damaged index may differ.
			if wo, _ := want.FindOffset(e.Hash); uint64(o) != uint64(wo) && countHash(all, e.Hash) == 1 {
				t.Fatalf("FindOffset(%s) = %d, want %d", e.Hash, o, e.Offset)
			}
		}
		if err == nil {
			crc, _ := got.FindCRC32(e.Hash)
			if wcrc, _ := want.FindCRC32(e.Hash); crc != wcrc && countHash(all, e.Hash) == 1 {
				t.Fatalf("FindCRC32(%s) = %x, want %x", e.Hash, crc, wcrc)
			}
		}
		h, err := got.FindHash(int64(e.Offset))
		if err != nil {
			t.Fatalf("FindHash(%d): %v", e.Offset, err)
		}
		if i := got.find(h); i >= 0 && sorted {
			if o, _ := got.offset(i); uint64(o) != e.Offset {
				t.Fatalf("FindHash(%d) = %s, at offset %d", e.Offset, h, o)
			}
		}
	}
}

// wellFormed reports whether the names are strictly sorted and each lies
// in the fan-out bucket of its first byte: only then must every lookup hit.
func wellFormed(p *packIndex) bool {
	for i := 0; i < p.n; i++ {
		h := p.hash(i)
		if i > 0 && bytes.Compare(p.names[20*(i-1):20*i], h[:]) >= 0 {
			return false
		}
		lo := 0
		if h[0] > 0 {
			lo = int(binary.BigEndian.Uint32(p.fanout[4*(int(h[0])-1):]))
		}
		if i < lo || i >= int(binary.BigEndian.Uint32(p.fanout[4*int(h[0]):])) {
			return false
		}
	}
	return true
}

func countHash(es []*idxfile.Entry, h plumbing.Hash) int {
	n := 0
	for _, e := range es {
		if e.Hash == h {
			n++
		}
	}
	return n
}

// TestPackIndexMatchesGoGit compares the lazy index with go-git's decoder on
// the .idx files git wrote, including the sorted reverse look-up that takes
// over after a few scans.
func TestPackIndexMatchesGoGit(t *testing.T) {
	t.Parallel()
	r := packedRepo(t)
	idxs, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.idx"))
	for _, name := range idxs {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parsePackIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		want := idxfile.NewMemoryIndex()
		if err := idxfile.NewDecoder(bytes.NewReader(data)).Decode(want); err != nil {
			t.Fatal(err)
		}
		comparePackIndex(t, p, want) // past reverseScans: both ways of FindHash
		if p.byOffset == nil {
			t.Errorf("%s: the sorted reverse index was never built", filepath.Base(name))
		}
		es, err := p.EntriesByOffset()
		if err != nil {
			t.Fatal(err)
		}
		var last uint64
		for e, err := es.Next(); err == nil; e, err = es.Next() {
			if e.Offset < last {
				t.Fatalf("EntriesByOffset out of order at %s", e.Hash)
			}
			last = e.Offset
		}
	}
}

// FuzzParsePackIndex feeds arbitrary .idx files to the lazy index. It must
// never panic; on what go-git's decoder accepts, every entry must be found
// at the offset go-git finds (a lookup may miss only where the names are
// not sorted, and a miss falls through to go-git's storage).
func FuzzParsePackIndex(f *testing.F) {
	r := packedRepo(f)
	idxs, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.idx"))
	for _, name := range idxs {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parsePackIndex(data)
		if err != nil {
			return
		}
		for i := 0; i < p.n && i < 64; i++ {
			h := p.hash(i)
			if o, err := p.FindOffset(h); err == nil {
				_, _ = p.FindHash(o)
			}
		}
		if len(data) < 20 {
			return
		}
		fixed := append(bytes.Clone(data[:len(data)-20]), make([]byte, 20)...)
		sum := sha1.Sum(fixed[:len(fixed)-20])
		copy(fixed[len(fixed)-20:], sum[:])
		want := idxfile.NewMemoryIndex()
		if err := idxfile.NewDecoder(bytes.NewReader(fixed)).Decode(want); err != nil {
			return
		}
		comparePackIndex(t, p, want)
	})
}

// TestOpenReadsObjectsLazily checks that reading one object of a fresh
// repository leaves go-git's whole-index decoding untouched.
func TestOpenReadsObjectsLazily(t *testing.T) {
	t.Parallel()
	r := packedRepo(t)
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if _, err := repo.Resolve("HEAD~2"); err != nil {
		t.Fatal(err)
	}
	fsys, _, err := repo.RevFS("HEAD~2", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.(*objectFS).ReadFile("d1/f1.json"); err != nil {
		t.Fatal(err)
	}
	// go-git's storage keeps the indexes it decoded in a private map, nil
	// until its first packed read.
	st := repo.st
	decoded := reflect.ValueOf(st.Storage).Elem().FieldByName("ObjectStorage").FieldByName("index")
	if !decoded.IsValid() {
		t.Fatal("go-git's storage no longer has the index map this test looks at; update the test")
	}
	if !decoded.IsNil() {
		t.Error("go-git decoded the pack indexes whole")
	}
	if len(st.packs) != 2 {
		t.Errorf("%d packs listed, want 2", len(st.packs))
	}
}
