package doctor

import (
	"fmt"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/project"
)

// restricted is the onlyFS restrict makes of fsys for the changes.
func restricted(fsys fs.FS, changes []git.Change) *onlyFS {
	r := &run{p: &project.Project{FS: fsys}}
	r.restrict(changes)
	return r.p.FS.(*onlyFS)
}

// TestOnlyFSReadDir: a restricted view lists, in each visible folder, the
// visible folders below it and the changed files in it that exist, sorted,
// and nothing else; a folder outside the changes does not exist.
func TestOnlyFSReadDir(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		".foundry/memory/fact-0001-a.md":        {Data: []byte("a")},
		".foundry/memory/fact-0002-b.md":        {Data: []byte("b")},
		".foundry/memory/fact-0003-c.md":        {Data: []byte("c")},
		".foundry/blackboard/audit/x.json":      {Data: []byte("{}")},
		".foundry/blackboard/audit/y.json":      {Data: []byte("{}")},
		".foundry/blackboard/build/deep/z.json": {Data: []byte("{}")},
		".foundry/runbooks/deploy.md":           {Data: []byte("r")},
		"README.md":                             {Data: []byte("top")},
	}
	changes := []git.Change{
		{Path: ".foundry/memory/fact-0002-b.md", Kind: git.Modified},
		{Path: ".foundry/memory/fact-0001-a.md", Kind: git.Added},
		{Path: ".foundry/memory/fact-0009-gone.md", Kind: git.Deleted},
		{Path: ".foundry/memory/fact-0010-missing.md", Kind: git.Added}, // staged, since removed from the view
		{Path: ".foundry/blackboard/audit/y.json", Kind: git.Added},
		{Path: ".foundry/blackboard/build/deep/z.json", Kind: git.Added},
		{Path: ".foundry/blackboard/audit/y.json", Kind: git.Modified}, // twice
		{Path: "README.md", Kind: git.Modified},
	}
	only := restricted(fsys, changes)
	for dir, want := range map[string][]string{
		".":                         {".foundry", "README.md"},
		".foundry":                  {"blackboard", "memory"},
		".foundry/memory":           {"fact-0001-a.md", "fact-0002-b.md"},
		".foundry/blackboard":       {"audit", "build"},
		".foundry/blackboard/audit": {"y.json"},
		".foundry/blackboard/build": {"deep"},
	} {
		es, err := fs.ReadDir(only, dir)
		if err != nil {
			t.Fatalf("ReadDir(%s): %v", dir, err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Name())
		}
		if !slices.Equal(got, want) {
			t.Errorf("ReadDir(%s) = %q, want %q", dir, got, want)
		}
	}
	for _, dir := range []string{".foundry/runbooks", ".foundry/blackboard/other"} {
		if _, err := fs.ReadDir(only, dir); err == nil {
			t.Errorf("ReadDir(%s) listed a folder outside the changes", dir)
		}
	}
}

// BenchmarkOnlyFSWalk walks the restricted view of a commit that adds a
// memory of 20,000 artifacts in 200 waves and 20,000 facts, as the staged
// check's walks do: each folder lists its own children.
func BenchmarkOnlyFSWalk(b *testing.B) {
	fsys := fstest.MapFS{}
	var changes []git.Change
	add := func(p string) {
		fsys[p] = &fstest.MapFile{Data: []byte("{}")}
		changes = append(changes, git.Change{Path: p, Kind: git.Added})
	}
	for i := range 20000 {
		add(fmt.Sprintf(".foundry/blackboard/wave-%03d/agent-%03d.json", i%200, i/200))
		add(fmt.Sprintf(".foundry/memory/fact-%05d-a.md", i+1))
	}
	only := restricted(fsys, changes)
	for b.Loop() {
		n := 0
		err := fs.WalkDir(only, ".foundry", func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return err
		})
		if err != nil || n != len(changes) {
			b.Fatalf("walked %d files of %d: %v", n, len(changes), err)
		}
	}
}
