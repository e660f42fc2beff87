package git

import (
	"io/fs"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/foundryhq/foundry/git/gittest"
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
			if _, err := fs.Stat(fsys, name); err != nil { // as a listing does
				t.Fatal(err)
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
