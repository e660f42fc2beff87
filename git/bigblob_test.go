package git

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"

	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/confined"
)

// TestLargeBlobReadOnce holds reading a large file at a revision to about
// its size: a loose object is inflated once into a buffer of its size, not
// grown as it is read, and its size is read from its header once; loose or
// packed, the object cache does not keep a second copy of it. Before, a
// blob cost six times its size in allocations and the cache kept up to
// 96 MiB of blobs a view had already copied: 2,000 facts of 60 KB read at
// HEAD took 263 MiB. It is not parallel: it reads the process's allocation
// figures.
func TestLargeBlobReadOnce(t *testing.T) {
	const size = 1 << 20
	rnd := rand.New(rand.NewPCG(3, 4))
	big := make([]byte, size)
	for i := range big {
		big[i] = byte('a' + rnd.IntN(26))
	}
	for _, packed := range []bool{false, true} {
		r := gittest.New(t)
		r.Write("notes/big.md", string(big))
		r.Write("notes/small.md", "a small file")
		r.CommitAll("files")
		if packed {
			r.Git("gc", "-q")
		}
		repo, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		fsys, _, err := repo.RevFS("HEAD", "")
		if err != nil {
			t.Fatal(err)
		}
		st := repo.st
		for _, name := range []string{"notes/big.md", "notes/small.md"} {
			h := plumbing.NewHash(r.Git("rev-parse", "HEAD:"+name))
			info, err := fs.Stat(fsys, name) // as a listing does
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(len(r.Git("show", "HEAD:"+name))); info.Size() != want && name == "notes/big.md" {
				t.Errorf("packed %v: %s: size %d, want %d", packed, name, info.Size(), want)
			}
			if _, ok := st.knownSize(h); !ok && !packed {
				t.Errorf("packed %v: %s: the size read from the loose object's header is not remembered", packed, name)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			data, err := fs.ReadFile(fsys, name)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if name == "notes/big.md" {
				if string(data) != string(big) {
					t.Fatalf("packed %v: %s read back differs", packed, name)
				}
				// The content read, the object's copy of it, the view's
				// copy. A packed object is go-git's packfile reader's to
				// allocate.
				if alloc := after.TotalAlloc - before.TotalAlloc; !packed && alloc > 3*size+256<<10 {
					t.Errorf("packed %v: reading %d bytes allocated %d", packed, size, alloc)
				}
			}
			_, cached := st.cache.Get(h)
			if want := name == "notes/small.md"; cached != want {
				t.Errorf("packed %v: %s in the object cache: %v, want %v", packed, name, cached, want)
			}
		}
		repo.Close()
	}
}

// FuzzLooseHeaderSize holds the short header read of a loose object to
// go-git's: wherever it reads a size, go-git's reader reads the same.
func FuzzLooseHeaderSize(f *testing.F) {
	f.Add([]byte("blob 60000\x00abc"))
	f.Add([]byte("commit 12\x00tree 1234567"))
	f.Add([]byte("blob -1\x00"))
	f.Add([]byte("blob 99999999999999999999\x00"))
	f.Add([]byte("nonsense 3\x00abc"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		_, _ = w.Write(raw)
		_ = w.Close()
		size, ok := looseHeaderSize(bytes.NewReader(z.Bytes()))
		if !ok {
			return
		}
		r, err := objfile.NewReader(bytes.NewReader(z.Bytes()))
		if err != nil {
			t.Fatalf("header read as size %d; go-git: %v", size, err)
		}
		defer r.Close()
		_, want, err := r.Header()
		if err != nil || want != size {
			t.Fatalf("header read as size %d; go-git: %d, %v", size, want, err)
		}
	})
}

// TestResolveLargeBlob: a revision naming a blob over maxObjectBytes says
// so by its size, read from the object's header, without inflating it.
func TestResolveLargeBlob(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes a 65 MiB file")
	}
	r := gittest.New(t)
	r.Write("big.bin", string(make([]byte, maxObjectBytes+confined.MiB)))
	r.CommitAll("big")
	blob := r.Git("rev-parse", "HEAD:big.bin")
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	_, err = repo.Resolve(blob)
	if want := "it names an object of 65 MiB, not a commit"; !errors.Is(err, ErrRevisionNotFound) || !strings.Contains(err.Error(), want) {
		t.Errorf("Resolve(a 65 MiB blob) = %v, want ErrRevisionNotFound saying %q", err, want)
	}
}
