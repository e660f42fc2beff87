package facts

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestListMemoryMatchesReadDir holds the working tree's listing (listFacts
// on Linux) to fs.ReadDir through the store's fs.FS: the same fact files,
// with the same identity, links and folders reported as such, other names
// left out.
func TestListMemoryMatchesReadDir(t *testing.T) {
	root := writeTree(t, genFacts(t, 5000)) // enough for several workers
	mem := filepath.Join(root, filepath.FromSlash(Dir))
	testenv.WriteFile(t, root, Dir+"/INDEX.md", "# Memory index\n")
	testenv.WriteFile(t, root, Dir+"/notes.txt", "not a fact\n")
	if err := os.Mkdir(filepath.Join(mem, "fact-9999-a-folder.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fact-0001-nowhere.md", filepath.Join(mem, "fact-9998-link.md")); err != nil {
		t.Fatal(err)
	}
	s := OpenDir(root, Options{Now: fixedNow})
	got, _, _, ok, err := s.listFacts(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && !ok {
		t.Fatal("listFacts does not apply to a working tree on Linux")
	}
	if !ok {
		t.Skip("listFacts applies on Linux only")
	}
	entries, err := fs.ReadDir(s.fsys, Dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []fs.FileInfo
	for _, e := range entries {
		if isFactFile(e.Name()) {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, info)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("listed %d fact files, ReadDir %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name() != w.Name() || keyOf(g) != keyOf(w) || g.IsDir() != w.IsDir() || g.Mode().Type() != w.Mode().Type() ||
			!g.ModTime().Equal(w.ModTime()) || g.Size() != w.Size() {
			t.Errorf("entry %d: listed %s %v %v %v, ReadDir %s %v %v %v", i, g.Name(), keyOf(g), g.Mode(), g.ModTime(), w.Name(), keyOf(w), w.Mode(), w.ModTime())
		}
	}

	// A missing folder lists nothing; a file in its place is an error.
	if err := os.RemoveAll(mem); err != nil {
		t.Fatal(err)
	}
	if got, _, _, _, err := s.listFacts(nil, nil); err != nil || len(got) != 0 {
		t.Errorf("missing folder: %d entries, %v", len(got), err)
	}
	testenv.WriteFile(t, root, Dir, "a file")
	if _, _, _, _, err := s.listFacts(nil, nil); err == nil {
		t.Error("a file in place of the folder listed without error")
	}
}

// TestListingTrustsSettledFolder: listFacts takes a folder's names from a
// listing recorded at the folder's current identity, once the folder has
// settled, instead of reading them (the listing here leaves a file out on
// purpose, so a read would show); it reads them again when the folder
// changed (a file added: new times), or changed too recently for its
// identity to prove anything. The listing it returns is the one the next
// call may trust: nil while the folder is unsettled.
func TestListingTrustsSettledFolder(t *testing.T) {
	const tempName = confined.TempPrefix + "left"
	if runtime.GOOS != "linux" {
		t.Skip("listFacts applies on Linux only")
	}
	root := writeTree(t, genFacts(t, 30)) // the folder settled long ago
	s := OpenDir(root, Options{Now: fixedNow})
	list := func(known *dirListing) ([]string, []string, *dirListing) {
		t.Helper()
		c := make(chan *dirListing, 1)
		c <- known
		infos, temps, listed, _, err := s.listFacts(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, fi := range infos {
			names = append(names, fi.Name())
		}
		return names, temps, listed
	}
	all, _, listed := list(nil)
	if len(all) != 30 || listed == nil || !slices.Equal(listed.names, all) {
		t.Fatalf("settled folder: %d names, listing %+v", len(all), listed)
	}

	// A listing at the folder's identity is trusted as it stands.
	partial := &dirListing{key: listed.key, names: append([]string{tempName}, all[1:]...)}
	slices.Sort(partial.names)
	names, temps, again := list(partial)
	if !slices.Equal(names, all[1:]) || !slices.Equal(temps, []string{tempName}) || again == nil || again.key != listed.key {
		t.Errorf("trusted listing: names %v, temps %v, listing %+v; want the recorded names", names, temps, again)
	}
	// At another identity it is not.
	stale := *partial
	stale.key.mtime--
	if names, temps, _ := list(&stale); !slices.Equal(names, all) || len(temps) != 0 {
		t.Errorf("listing of another identity trusted: names %v, temps %v", names, temps)
	}

	// A file added changes the folder: its names are read again, and the
	// folder, changed just now, yields no listing to trust.
	testenv.WriteFile(t, root, Dir+"/fact-0100-added.md", "---\nid: fact-0100\n---\n")
	names, _, listed = list(partial)
	if len(names) != 31 || !slices.Contains(names, "fact-0100-added.md") || listed != nil {
		t.Errorf("after an addition: %d names, listing %+v; want 31 read, none", len(names), listed)
	}
	// Settled again (its times set back), the folder's identity is still
	// not the one recorded before the addition.
	dateBack(t, filepath.Join(root, Dir))
	if names, _, listed = list(partial); len(names) != 31 || listed == nil {
		t.Errorf("settled after an addition: %d names, listing %+v; want 31 read and a listing", len(names), listed)
	}
}

// BenchmarkListFacts10k measures listing a memory folder of 10,000 fact
// files on Linux: reading its names and stat-ing each file, against
// stat-ing the names of a listing recorded at the folder's identity. The
// machine is shared: cpu-ms/op is the processor time of the process.
func BenchmarkListFacts10k(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("listFacts applies on Linux only")
	}
	root := writeTree(b, genFacts(b, 10000))
	s := OpenDir(root, Options{Now: fixedNow})
	list := func(known *dirListing) *dirListing {
		c := make(chan *dirListing, 1)
		c <- known
		infos, _, listed, _, err := s.listFacts(c, nil)
		if err != nil || len(infos) != 10000 {
			b.Fatalf("%d files, %v", len(infos), err)
		}
		return listed
	}
	recorded := list(nil)
	if recorded == nil {
		b.Fatal("no listing of a settled folder")
	}
	for _, bc := range []struct {
		name  string
		known *dirListing
	}{{"read", nil}, {"recorded", recorded}} {
		b.Run(bc.name, func(b *testing.B) {
			cpu0 := testenv.CPUTime()
			for b.Loop() {
				list(bc.known)
			}
			b.ReportMetric(float64(testenv.CPUTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
