package facts

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestListMemoryMatchesReadDir holds the working tree's listing (listFacts
// on Linux) to fs.ReadDir through the store's fs.FS: the same fact files,
// with the same identity, links and folders reported as such, other names
// left out.
func TestListMemoryMatchesReadDir(t *testing.T) {
	root := writeTree(t, genFacts(t, 5000)) // enough for several workers
	mem := filepath.Join(root, filepath.FromSlash(Dir))
	writeFile(t, root, Dir+"/INDEX.md", "# Memory index\n")
	writeFile(t, root, Dir+"/notes.txt", "not a fact\n")
	if err := os.Mkdir(filepath.Join(mem, "fact-9999-a-folder.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fact-0001-nowhere.md", filepath.Join(mem, "fact-9998-link.md")); err != nil {
		t.Fatal(err)
	}
	s := OpenDir(root, Options{Now: fixedNow})
	got, _, ok, err := s.listFacts()
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
	if got, _, _, err := s.listFacts(); err != nil || len(got) != 0 {
		t.Errorf("missing folder: %d entries, %v", len(got), err)
	}
	writeFile(t, root, Dir, "a file")
	if _, _, _, err := s.listFacts(); err == nil {
		t.Error("a file in place of the folder listed without error")
	}
}
