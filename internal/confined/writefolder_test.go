package confined_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestFolder checks that a folder held open writes where its path led when
// it was opened, names files by their project path in messages, refuses a
// symbolic link, and knows when its path no longer leads to it.
func TestWriteFolder(t *testing.T) {
	t.Parallel()
	root, secret := project(t)
	r := open(t, root)
	mem, err := r.OpenWriteFolder(".foundry/memory")
	if err != nil {
		t.Fatal(err)
	}
	if !mem.Current() {
		t.Fatal("a folder just opened is not current")
	}
	if err := mem.WriteFile("a.md", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".foundry", "memory", "a.md")); err != nil || string(b) != "a" {
		t.Errorf("file written through the folder: %q, %v", b, err)
	}
	symlink(t, secret, filepath.Join(root, ".foundry", "memory", "INDEX.md"))
	err = mem.WriteFile("INDEX.md", []byte("x"), 0o644)
	if !errors.Is(err, confined.ErrSymlink) || !strings.Contains(err.Error(), "refuse to write through .foundry/memory/INDEX.md") {
		t.Errorf("write through a linked file: %v, want ErrSymlink naming .foundry/memory/INDEX.md", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "top secret\n" {
		t.Errorf("file outside the project changed: %q", b)
	}

	// The folder moved away and another made at its path.
	dir := filepath.Join(root, ".foundry", "memory")
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if mem.Current() {
		t.Error("a folder moved away is still current")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if mem.Current() {
		t.Error("a folder replaced is still current")
	}
	again, err := r.OpenWriteFolder(".foundry/memory")
	if err != nil || !again.Current() {
		t.Fatalf("reopened folder: current %v, %v", err == nil && again.Current(), err)
	}
	// A symbolic link at the path is never current, nor opened.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	symlink(t, dir+".old", dir)
	if again.Current() {
		t.Error("a symbolic link to a folder is current")
	}
	if _, err := r.OpenWriteFolder(".foundry/memory"); !errors.Is(err, confined.ErrSymlink) {
		t.Errorf("OpenWriteFolder of a symbolic link: %v, want ErrSymlink", err)
	}
	if _, err := r.OpenWriteFolder(".foundry/memory.old/a.md"); !errors.Is(err, confined.ErrNotDir) {
		t.Errorf("OpenWriteFolder of a file: %v, want ErrNotDir", err)
	}
}

// TestWriteFileDeferSync checks that files written with their folder's
// sync deferred replace their targets atomically, with their mode, leave
// no temp file, and that syncing the folder afterwards, the folder of a
// Root or of a WriteFolder, succeeds.
func TestWriteFileDeferSync(t *testing.T) {
	t.Parallel()
	root, r, mem := memFolder(t)
	for _, w := range []struct {
		r    *confined.Root
		name string
	}{{mem.Root, "a.md"}, {mem.Root, "b.md"}, {r, "mem/c.md"}} {
		if err := w.r.WriteFileDeferSync(w.name, []byte("new "+w.name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mem.SyncDir(".")
	r.SyncDir("mem")
	for name, want := range map[string]string{"a.md": "new a.md\n", "b.md": "new b.md\n", "c.md": "new mem/c.md\n"} {
		p := filepath.Join(root, "mem", name)
		b, err := os.ReadFile(p)
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, %v; want 0644", name, fi.Mode().Perm(), err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(root, "mem", confined.TempPrefix+"*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestWriteFolderCurrentWalksOnce: Current compares the folder its walk of
// the path ends on, instead of looking the folder up again after the walk
// (an lstat through .foundry/ and its allocations, on every write and
// every log append).
func TestWriteFolderCurrentWalksOnce(t *testing.T) {
	root, _ := project(t)
	r := open(t, root)
	mem, err := r.OpenWriteFolder(".foundry/memory")
	if err != nil {
		t.Fatal(err)
	}
	walk := testing.AllocsPerRun(100, func() { _ = r.NoFollow(".foundry/memory") })
	if current := testing.AllocsPerRun(100, func() { _ = mem.Current() }); current > walk {
		t.Errorf("Current allocates %.0f times, the walk of its path %.0f", current, walk)
	}
}

// TestWriteFolderSyncsItsDescriptor: a folder held open syncs the
// descriptor it holds, opening nothing (a write syncs its folder once per
// change), and a write into it leaves no temp file.
func TestWriteFolderSyncsItsDescriptor(t *testing.T) {
	root, _ := project(t)
	r := open(t, root)
	mem, err := r.OpenWriteFolder(".foundry/memory")
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { mem.SyncDir(".") }); n != 0 {
		t.Errorf("SyncDir of the folder held allocates %.0f times: it opens the folder again", n)
	}
	for i := range 3 {
		if err := mem.WriteFileDeferSync("a.md", []byte(strings.Repeat("a", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mem.SyncDir(".")
	entries, err := os.ReadDir(filepath.Join(root, ".foundry", "memory"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), confined.TempPrefix) {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, ".foundry", "memory", "a.md")); err != nil || string(b) != "aaa" {
		t.Errorf("a.md = %q, %v", b, err)
	}
}

// TestStage checks that a staged file is complete and synced beside its
// name but not in place until committed, that committing replaces the
// target atomically with its mode, that a discarded one leaves nothing,
// and that a staged file is committed once.
func TestStage(t *testing.T) {
	t.Parallel()
	root, _, mem := memFolder(t)
	a, err := mem.Stage("a.md", []byte("new a\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	b, err := mem.Stage("b.md", []byte("new b\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	temps, _ := filepath.Glob(filepath.Join(root, "mem", confined.TempPrefix+"*"))
	if len(temps) != 2 {
		t.Fatalf("temp files while staged: %v, want 2", temps)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "mem", "a.md")); string(got) != "old\n" {
		t.Errorf("a.md before the commit = %q, want the old content", got)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err == nil {
		t.Error("a second commit succeeded")
	}
	a.Discard() // after a commit: nothing to remove
	b.Discard()
	mem.SyncDir(".")
	p := filepath.Join(root, "mem", "a.md")
	if got, err := os.ReadFile(p); err != nil || string(got) != "new a\n" {
		t.Errorf("a.md = %q, %v; want the staged content", got, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("a.md: mode %v, %v; want 0644", fi.Mode().Perm(), err)
	}
	if _, err := os.Stat(filepath.Join(root, "mem", "b.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b.md, discarded, exists: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "mem", confined.TempPrefix+"*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
	if _, err := mem.Stage("../x.md", []byte("x"), 0o644); err == nil {
		t.Error("staged a file outside the folder")
	}
}

// TestStageAll: the files of one change are staged together or not at
// all: each staged file holds its content and mode before it is put in
// place, and a file that cannot be staged leaves no temp file of any.
func TestStageAll(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		files   []confined.File
		wantErr string // "" when all are staged
	}{
		{"one", []confined.File{{Name: "a.md", Data: []byte("new a\n"), Perm: 0o644}}, ""},
		{"three", []confined.File{
			{Name: "a.md", Data: []byte("new a\n"), Perm: 0o644},
			{Name: "b.md", Data: []byte("new b\n"), Perm: 0o600},
			{Name: "INDEX.md", Data: []byte(strings.Repeat("- a line of the index\n", 800)), Perm: 0o644},
		}, ""},
		{"the last outside the folder", []confined.File{
			{Name: "a.md", Data: []byte("new a\n"), Perm: 0o644},
			{Name: "../x.md", Data: []byte("x"), Perm: 0o644},
		}, "x.md"},
		{"the first through a link", []confined.File{
			{Name: "link.md", Data: []byte("l"), Perm: 0o644},
			{Name: "b.md", Data: []byte("new b\n"), Perm: 0o644},
		}, "link.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, _, mem := memFolder(t)
			dir := filepath.Join(root, "mem")
			if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
				t.Skip("no symbolic links:", err)
			}
			staged, err := mem.StageAll(tt.files...)
			temps, _ := filepath.Glob(filepath.Join(dir, confined.TempPrefix+"*"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("StageAll: %v, want an error naming %s", err, tt.wantErr)
				}
				if staged != nil || len(temps) > 0 {
					t.Errorf("a failed StageAll left %d staged files, temp files %v", len(staged), temps)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(staged) != len(tt.files) || len(temps) != len(tt.files) {
				t.Fatalf("%d staged, temp files %v; want %d", len(staged), temps, len(tt.files))
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(got) != "old\n" {
				t.Errorf("a.md before the commit = %q, want the old content", got)
			}
			for i, st := range staged {
				f := tt.files[i]
				tmp := filepath.Join(dir, st.Temp())
				if got, err := os.ReadFile(tmp); err != nil || string(got) != string(f.Data) {
					t.Errorf("staged %s holds %q, %v; want its data", f.Name, got, err)
				}
				if err := st.Commit(); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, f.Name)
				if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm() != f.Perm {
					t.Errorf("%s after the commit: %v, want mode %v", f.Name, err, f.Perm)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, confined.TempPrefix+"*")); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}

// memFolder returns a new root folder holding mem/a.md ("old\n", mode
// 0600), its Root, closed when t ends, and mem held open for writing.
func memFolder(t *testing.T) (string, *confined.Root, *confined.WriteFolder) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "mem"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mem", "a.md"), []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := confined.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	mem, err := r.OpenWriteFolder("mem")
	if err != nil {
		t.Fatal(err)
	}
	return root, r, mem
}
