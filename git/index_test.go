package git

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git/gittest"
)

// indexRecord is what the fast reader exposes of one entry, for comparing
// it with go-git's decoder.
type indexRecord struct {
	Name         string
	Hash         string
	Mode         filemode.FileMode
	Stage        int
	IntentToAdd  bool
	SkipWorktree bool
}

func recordsOf(ix *indexFile) []indexRecord {
	out := make([]indexRecord, ix.len())
	for i := range out {
		ext := ix.ents[i].extendedFl
		out[i] = indexRecord{ix.name(i), ix.hash(i).String(), ix.mode(i), ix.stage(i), ext&extIntentToAdd != 0, ext&extSkipWorktree != 0}
	}
	return out
}

func recordsOfGoGit(idx *index.Index) []indexRecord {
	out := make([]indexRecord, len(idx.Entries))
	for i, e := range idx.Entries {
		out[i] = indexRecord{e.Name, e.Hash.String(), e.Mode, int(e.Stage), e.IntentToAdd, e.SkipWorktree}
	}
	return out
}

func decodeGoGit(data []byte) (*index.Index, error) {
	idx := &index.Index{}
	err := index.NewDecoder(bytes.NewReader(data)).Decode(idx)
	return idx, err
}

// withChecksum returns body followed by its SHA-1, a well-formed trailer.
func withChecksum(body []byte) []byte {
	sum := sha1.Sum(body)
	return append(bytes.Clone(body), sum[:]...)
}

// mapIndex lists the folders of an index go-git decoded under prefix, the
// way indexLister must from the file, as the reference it is checked
// against: every folder holding an entry exists,
// gitlinks are left out, the first stage of a path wins.
func mapIndex(entries []*index.Entry, prefix string) mapLister {
	dirs := map[string][]entry{".": nil}
	seen := map[string]bool{}
	dirSeen := map[string]bool{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name, prefix) || seen[e.Name] {
			continue
		}
		seen[e.Name] = true // the first stage of a conflicted path wins
		rel := strings.TrimPrefix(e.Name, prefix)
		dir, base := path.Split(rel)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		if e.Mode != filemode.Submodule && !e.IntentToAdd {
			dirs[dir] = append(dirs[dir], entry{name: base, hash: e.Hash, exec: isExec(e.Mode), link: e.Mode == filemode.Symlink})
		} else if dirs[dir] == nil {
			dirs[dir] = []entry{}
		}
		// Make every ancestor folder exist, each listed once in its parent.
		for d := dir; d != "." && !dirSeen[d]; {
			dirSeen[d] = true
			parent, name := path.Split(d)
			parent = strings.TrimSuffix(parent, "/")
			if parent == "" {
				parent = "."
			}
			dirs[parent] = append(dirs[parent], entry{name: name, isDir: true})
			d = parent
		}
	}
	for _, es := range dirs {
		sortEntries(es)
	}
	return mapLister(dirs)
}

type mapLister map[string][]entry

func (m mapLister) list(dir string) ([]entry, bool, error) {
	es, ok := m[dir]
	return es, ok, nil
}

// compareWithGoGit checks that the fast reader's entries and folder views
// are exactly what go-git's decoder gives for the same file.
func compareWithGoGit(t *testing.T, ix *indexFile, idx *index.Index) {
	t.Helper()
	if diff := cmp.Diff(recordsOfGoGit(idx), recordsOf(ix)); diff != "" {
		t.Fatalf("entries (-go-git +fast reader):\n%s", diff)
	}
	prefixes := []string{""}
	for _, e := range idx.Entries {
		if d := path.Dir(e.Name); d != "." {
			prefixes = append(prefixes, d+"/")
		}
		if len(prefixes) > 8 {
			break
		}
	}
	for _, prefix := range prefixes {
		compareListers(t, &indexLister{ix: ix, prefix: prefix}, mapIndex(idx.Entries, prefix), prefix)
	}
}

// compareListers lists every folder of want through got and looks up every
// path both ways.
func compareListers(t *testing.T, got *indexLister, want mapLister, prefix string) {
	t.Helper()
	opt := cmp.AllowUnexported(entry{})
	for dir, wantEntries := range want {
		gotEntries, ok, err := got.list(dir)
		if err != nil || !ok {
			t.Fatalf("prefix %q: list(%q) = %v, %v; want the folder", prefix, dir, ok, err)
		}
		if len(wantEntries) == 0 {
			wantEntries = nil
		}
		if diff := cmp.Diff(wantEntries, gotEntries, opt); diff != "" {
			t.Fatalf("prefix %q: list(%q) (-map +fast):\n%s", prefix, dir, diff)
		}
		for _, e := range wantEntries {
			name := path.Join(dir, e.name)
			g, ok, err := got.lookup(name)
			if err != nil || !ok {
				t.Fatalf("prefix %q: lookup(%q) = %v, %v", prefix, name, ok, err)
			}
			// A damaged index may hold a file and a folder of one name;
			// lookup, like find over a listing, finds the file.
			if w := wantEntries[sort.Search(len(wantEntries), func(i int) bool { return wantEntries[i].name >= e.name })]; !cmp.Equal(w, g, opt) {
				t.Fatalf("prefix %q: lookup(%q) = %+v, want %+v", prefix, name, g, w)
			}
		}
	}
	// Folders the map does not hold are absent from the fast view too.
	for _, e := range []string{"no-such", "no/such/dir"} {
		if _, ok := want[e]; ok {
			continue
		}
		if _, ok, _ := got.list(e); ok {
			t.Fatalf("prefix %q: list(%q) found a folder that is not there", prefix, e)
		}
		if _, ok, _ := got.lookup(e); ok {
			t.Fatalf("prefix %q: lookup(%q) found a path that is not there", prefix, e)
		}
	}
}

// indexScenario builds an index with the git binary.
type indexScenario struct {
	name  string
	setup func(t testing.TB, r *gittest.Repo)
	// unsupported, when set, is what the reader must name in declining
	// the index.
	unsupported string
	version     byte     // the format version git wrote, when it matters
	exts        []string // extensions git wrote
}

// conflict leaves a merge conflict in d/a (content) and d/both (add/add).
func conflict(t testing.TB, r *gittest.Repo) {
	r.Write("d/a", "base\n")
	r.Write("d/b", "b\n")
	r.CommitAll("base")
	r.Git("checkout", "-q", "-b", "other")
	r.Write("d/a", "other\n")
	r.Write("d/both", "other\n")
	r.CommitAll("other")
	r.Git("checkout", "-q", "main")
	r.Write("d/a", "main\n")
	r.Write("d/both", "main\n")
	r.CommitAll("main")
	if _, err := r.TryGit("merge", "-q", "other"); err == nil {
		t.Fatal("merge succeeded; want a conflict")
	}
}

var longName = strings.Repeat(strings.Repeat("d", 200)+"/", 21) + "long.json" // over 4095 bytes

var indexScenarios = []indexScenario{
	{name: "v2 plain", version: 2, setup: func(t testing.TB, r *gittest.Repo) {
		r.Write("a.json", "{}")
		r.Write("p/bb/w/x.json", "1")
		r.Write("p/bb/w/y.json", "2")
		r.Write("p/bb.json", "3")
		r.Write("p/bb-x/z.json", "4")
		r.Write("p/é space.json", "5")
		r.CommitAll("base")
	}},
	{name: "v3 intent-to-add and skip-worktree", version: 3, setup: func(t testing.TB, r *gittest.Repo) {
		r.Write("a/b.json", "1")
		r.Write("a/c.json", "2")
		r.CommitAll("base")
		r.Write("a/new.json", "3")
		r.Git("add", "-N", "a/new.json")
		r.Git("update-index", "--skip-worktree", "a/c.json")
	}},
	{name: "v4 prefix-compressed names", version: 4, setup: func(t testing.TB, r *gittest.Repo) {
		for _, p := range []string{"x/a.json", "x/ab.json", "x/abc/d.json", "x/b.json", "y.json", "yy/z/z/z.json"} {
			r.Write(p, p)
		}
		r.CommitAll("base")
		r.Git("update-index", "--index-version", "4")
		r.Git("add", "-N", "y.json")
	}},
	{name: "conflicted stages", setup: conflict},
	{name: "resolved conflict", exts: []string{"REUC"}, setup: func(t testing.TB, r *gittest.Repo) {
		conflict(t, r)
		r.Git("add", "d/a")
	}},
	{name: "long name, gitlink, symlink, executable", setup: func(t testing.TB, r *gittest.Repo) {
		r.Write("f.json", "{}")
		r.CommitAll("base")
		blob := r.Git("hash-object", "-w", "f.json")
		r.Git("update-index", "--add", "--cacheinfo", "100644,"+blob+","+longName)
		r.Git("update-index", "--add", "--cacheinfo", "160000,"+r.Git("rev-parse", "HEAD")+",sub/module")
		r.Git("update-index", "--add", "--cacheinfo", "120000,"+blob+",sub/link")
		r.Git("update-index", "--add", "--cacheinfo", "100755,"+blob+",sub/run.sh")
	}},
	{name: "optional extensions", exts: []string{"TREE", "UNTR", "EOIE", "IEOT"}, setup: func(t testing.TB, r *gittest.Repo) {
		// git writes an offset table for 1,000 entries or more.
		for i := range 1100 {
			r.Write(fmt.Sprintf("w/%s/f%04d.json", strings.Repeat("n", i%7+1), i), "x")
		}
		r.CommitAll("base")
		r.Git("update-index", "--untracked-cache")
		r.Git("status", "--porcelain")
		r.Git("-c", "index.recordEndOfIndexEntries=true", "-c", "index.recordOffsetTable=true", "-c", "index.threads=2",
			"update-index", "--force-write-index")
	}},
	{name: "empty index", setup: func(t testing.TB, r *gittest.Repo) {
		r.Write("a", "1")
		r.Git("add", "a")
		r.Git("rm", "-q", "--cached", "a")
	}},
	{name: "split index", unsupported: "a split index (core.splitIndex)", setup: func(t testing.TB, r *gittest.Repo) {
		r.Write("a/b.json", "1")
		r.CommitAll("base")
		r.Git("update-index", "--split-index")
		r.Write("a/c.json", "2")
		r.Git("add", "a/c.json")
	}},
	{name: "sparse index", unsupported: "a sparse index (index.sparse)", setup: func(t testing.TB, r *gittest.Repo) {
		r.Write("in/a.json", "1")
		r.Write("out/b.json", "2")
		r.CommitAll("base")
		r.Git("sparse-checkout", "init", "--cone", "--sparse-index")
		r.Git("sparse-checkout", "set", "in")
	}},
}

// TestParseIndexFromGit reads indexes the git binary wrote, in every format
// and with every kind of entry it writes, and checks the fast reader against
// go-git's decoder: the same entries, the same folder views.
func TestParseIndexFromGit(t *testing.T) {
	t.Parallel()
	for _, tc := range indexScenarios {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			tc.setup(t, r)
			data, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.version != 0 && data[7] != tc.version {
				t.Fatalf("git wrote index version %d, want %d", data[7], tc.version)
			}
			ix, err := parseIndex(data)
			idx, gerr := decodeGoGit(data)
			if tc.unsupported != "" {
				if !errors.Is(err, ErrIndexUnsupported) || !strings.Contains(err.Error(), tc.unsupported) {
					t.Fatalf("parseIndex = %v, want ErrIndexUnsupported naming %s", err, tc.unsupported)
				}
				repo, err := Open(r.Dir)
				if err != nil {
					t.Fatal(err)
				}
				defer repo.Close()
				// A split index is read whole, with its shared file.
				if _, err := repo.ReadIndex(); err != nil && !strings.HasPrefix(err.Error(), "read git index: "+ErrIndexUnsupported.Error()) {
					t.Errorf("ReadIndex = %v, want it to begin: read git index: %v", err, ErrIndexUnsupported)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseIndex: %v", err)
			}
			if gerr != nil {
				t.Fatalf("go-git decoder: %v", gerr)
			}
			compareWithGoGit(t, ix, idx)
			for _, sig := range tc.exts {
				if !bytes.Contains(data[ix.entriesEnd:], []byte(sig)) {
					t.Errorf("git wrote no %s extension; the scenario tests nothing", sig)
				}
			}

			// git itself does not verify the trailer when it reads the
			// index (only git fsck does), and neither does the fast reader.
			bad := bytes.Clone(data)
			bad[len(bad)-1] ^= 0xff
			if _, err := parseIndex(bad); err != nil {
				t.Errorf("parseIndex with a bad trailer: %v", err)
			}
		})
	}
}

// TestParseIndexRejects checks that malformed or unusual files are declined
// rather than misread.
func TestParseIndexRejects(t *testing.T) {
	t.Parallel()
	// One v2 entry "a" (mode 100644), padded to 64 bytes.
	entry := func(name string, mode uint32, flags uint16) []byte {
		b := make([]byte, entryFixedLen)
		b[entryModeOff], b[entryModeOff+1], b[entryModeOff+2], b[entryModeOff+3] = byte(mode>>24), byte(mode>>16), byte(mode>>8), byte(mode)
		b[entryFlagsOff], b[entryFlagsOff+1] = byte(flags>>8), byte(flags)
		b = append(b, name...)
		return append(b, make([]byte, 8-len(b)%8)...)
	}
	file := func(version byte, entries ...[]byte) []byte {
		b := []byte{'D', 'I', 'R', 'C', 0, 0, 0, version, 0, 0, 0, byte(len(entries))}
		for _, e := range entries {
			b = append(b, e...)
		}
		return withChecksum(b)
	}
	ext := func(sig string, payload string) []byte {
		n := len(payload)
		return append([]byte{sig[0], sig[1], sig[2], sig[3], byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, payload...)
	}
	good := file(2, entry("a", 0o100644, 1))
	if _, err := parseIndex(good); err != nil {
		t.Fatalf("the well-formed sample is declined: %v", err)
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"short", []byte("DIRC")},
		{"bad signature", append([]byte("DIRX"), good[4:]...)},
		{"version 1", file(1, entry("a", 0o100644, 1))},
		{"version 5", file(5, entry("a", 0o100644, 1))},
		{"count too large", append(append([]byte{}, good[:11]...), append([]byte{200}, good[12:]...)...)},
		{"unsorted", file(2, entry("b", 0o100644, 1), entry("a", 0o100644, 1))},
		{"duplicate", file(2, entry("a", 0o100644, 1), entry("a", 0o100644, 1))},
		{"stages out of order", file(2, entry("a", 0o100644, 2<<12|1), entry("a", 0o100644, 1<<12|1))},
		{"unknown mode", file(2, entry("a", 0o100664, 1))},
		{"sparse folder entry", file(2, entry("a/", 0o40000, 2))},
		{"absolute path", file(2, entry("/a", 0o100644, 2))},
		{"dot-dot", file(2, entry("a/../b", 0o100644, 6))},
		{"empty component", file(2, entry("a//b", 0o100644, 4))},
		{"empty name", file(2, entry("", 0o100644, 0))},
		{"NUL in name", file(2, entry("a\x00b", 0o100644, 3))},
		{"extended flags in v2", file(2, entry("a", 0o100644, flagExtended|1))},
		{"name longer than the file", file(2, entry("a", 0o100644, 50))},
		{"required extension", withChecksum(append(good[:len(good)-indexHashLen:len(good)-indexHashLen], ext("link", "xxxx")...))},
		{"truncated extension", withChecksum(append(good[:len(good)-indexHashLen:len(good)-indexHashLen], ext("TREE", "xxxx")[:10]...))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if ix, err := parseIndex(tc.in); !errors.Is(err, ErrIndexUnsupported) {
				t.Errorf("parseIndex = %v, %v; want ErrIndexUnsupported", ix, err)
			}
		})
	}
}

// FuzzParseIndex feeds the fast reader arbitrary bytes. It must never panic,
// and whatever it accepts, go-git's decoder must read as the same entries
// and folders. The fast reader skips the trailing checksum and the content
// of optional extensions, so the comparison gives go-git the entries alone
// with a correct checksum.
func FuzzParseIndex(f *testing.F) {
	for _, tc := range indexScenarios {
		if tc.unsupported != "" {
			continue
		}
		r := gittest.New(f)
		tc.setup(f, r)
		data, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := parseIndex(data)
		if err != nil {
			if !errors.Is(err, ErrIndexUnsupported) {
				t.Fatalf("parseIndex error %v is not ErrIndexUnsupported", err)
			}
			return
		}
		parseCacheTree(ix.tree) // must not panic either
		entriesOnly := withChecksum(data[:ix.entriesEnd])
		idx, err := decodeGoGit(entriesOnly)
		if err != nil {
			t.Fatalf("the fast reader accepts what go-git declines: %v", err)
		}
		compareWithGoGit(t, ix, idx)
	})
}

// TestIndexFSPassesFSTest runs testing/fstest over index views built from
// the fast reader, with and without a sub-folder.
func TestIndexFSPassesFSTest(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	indexScenarios[0].setup(t, r)
	r.Write("p/bb/w/staged.json", "5")
	r.Git("add", "p/bb/w/staged.json")
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := repo.ReadIndex()
	if err != nil {
		t.Fatal(err)
	}
	if x.ix == nil {
		t.Fatal("the fast reader declined a plain index")
	}
	if err := fstest.TestFS(x.FS(""), "a.json", "p/bb/w/x.json", "p/bb/w/staged.json", "p/bb.json", "p/bb-x/z.json", "p/é space.json"); err != nil {
		t.Error(err)
	}
	if err := fstest.TestFS(x.FS("p"), "bb/w/x.json", "bb/w/y.json", "bb.json", "bb-x/z.json"); err != nil {
		t.Error(err)
	}
	if b, err := fs.ReadFile(x.FS("p/bb"), "w/staged.json"); err != nil || string(b) != "5" {
		t.Errorf("read a staged file: %q, %v", b, err)
	}
}

// TestStagedDiffReadsOnlyChangedFolders checks that the staged diff trusts
// the cache-tree: with one file staged among many folders, it reads HEAD's
// trees only along the changed path, and reads them all when the index has
// no cache-tree to trust.
func TestStagedDiffReadsOnlyChangedFolders(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	for w := range 20 {
		for a := range 5 {
			r.Write(fmt.Sprintf("p/bb/w%02d/a%d.json", w, a), fmt.Sprint(w, a))
		}
	}
	r.CommitAll("base")
	r.Write("p/bb/w07/a3.json", "changed")
	r.Git("add", "p/bb/w07/a3.json")
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := repo.ReadIndex()
	if err != nil || x.ix == nil || x.ix.tree == nil {
		t.Fatalf("ReadIndex: %v; want the fast reader and a cache-tree", err)
	}
	read := func(ix *indexFile) []string {
		t.Helper()
		d, err := repo.diffIndex(ix, "p/bb")
		if err != nil {
			t.Fatal(err)
		}
		if want := []Change{{Path: "w07/a3.json", Kind: Modified}}; !cmp.Equal(want, d.out) {
			t.Fatalf("changes %v, want %v", d.out, want)
		}
		var dirs []string
		for k := range d.head.cache {
			dirs = append(dirs, k)
		}
		sort.Strings(dirs)
		return dirs
	}
	if diff := cmp.Diff([]string{".", "p", "p/bb", "p/bb/w07"}, read(x.ix)); diff != "" {
		t.Errorf("trees read with a cache-tree (-want +got):\n%s", diff)
	}
	noTree := *x.ix
	noTree.tree = nil
	if got := read(&noTree); len(got) != 3+20 {
		t.Errorf("without a cache-tree, read %d trees, want all %d: %v", len(got), 3+20, got)
	}
}
