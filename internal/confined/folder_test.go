package confined_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestFolderReadsAsRoot checks that reading a file through a Folder gives
// what reading the joined path through the root's FS gives, content or
// error, for links the folder cannot resolve on its own (to a sibling
// folder, out of the project), oversized files, missing ones and folders.
func TestFolderReadsAsRoot(t *testing.T) {
	t.Parallel()
	root, secret := project(t)
	const dir = ".foundry/blackboard/w1"
	write := func(name, content string) { t.Helper(); testenv.WriteFile(t, root, name, content) }
	write(dir+"/a.json", `{"a": 1}`)
	write(".foundry/blackboard/w2/b.json", `{"b": 2}`)
	write(dir+"/big.json", "")
	if err := os.Truncate(filepath.Join(root, dir, "big.json"), confined.ArtifactMax+1); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, dir, "sub.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a.json", filepath.Join(root, dir, "same.json"))
	symlink(t, "../w2/b.json", filepath.Join(root, dir, "sibling.json"))
	symlink(t, "../../../../secret.txt", filepath.Join(root, dir, "rel.json"))
	symlink(t, secret, filepath.Join(root, dir, "abs.json"))
	symlink(t, "nowhere.json", filepath.Join(root, dir, "dangling.json"))

	r := open(t, root)
	f, err := r.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{"a.json", "same.json", "sibling.json", "rel.json", "abs.json", "dangling.json", "missing.json", "big.json", "sub.json", "../w2/b.json"} {
		t.Run(name, func(t *testing.T) {
			full := dir + "/" + name
			want, werr := readOpen(r.FS(), full)
			got, err := readOpen(f, name)
			if string(got) != string(want) || (err == nil) != (werr == nil) {
				t.Fatalf("ReadFile through the folder = %q, %v; through the root %q, %v", got, err, want, werr)
			}
			// ReadRegular takes the plain regular file alone, with the
			// same bytes; everything else is left to Open.
			if b, ok := f.ReadRegular(name, confined.ArtifactMax); ok != (name == "a.json" && runtime.GOOS != "windows") || ok && string(b) != string(want) {
				t.Errorf("ReadRegular = %q, %v", b, ok)
			}
			if name == "../w2/b.json" {
				return // not a valid fs.FS name in either, for different reasons
			}
			if err != nil && err.Error() != werr.Error() {
				t.Errorf("error through the folder %q, through the root %q", err, werr)
			}
			fi, err := f.Stat(name)
			wfi, werr := fs.Stat(r.FS(), full)
			if (err == nil) != (werr == nil) || err == nil && (fi.Size() != wfi.Size() || fi.Mode() != wfi.Mode()) {
				t.Errorf("Stat through the folder = %v, %v; through the root %v, %v", fi, err, wfi, werr)
			}
		})
	}
}

// readOpen reads name through fsys.Open, the way a Folder is read.
func readOpen(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// TestRootReadDir checks that listing a folder through the root gives the
// names, types and (lstat) information the OS gives, sorted, for files,
// folders and links, and refuses a folder reached through a link out of the
// project.
func TestRootReadDir(t *testing.T) {
	t.Parallel()
	root, secret := project(t)
	dir := filepath.Join(root, ".foundry", "blackboard")
	for _, name := range []string{"b.json", "a.json", "c.txt"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "w1"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a.json", filepath.Join(dir, "link.json"))
	symlink(t, filepath.Dir(secret), filepath.Join(root, ".foundry", "out"))
	r := open(t, root)
	got, err := fs.ReadDir(r.FS(), ".foundry/blackboard")
	if err != nil {
		t.Fatal(err)
	}
	want, err := fs.ReadDir(os.DirFS(root), ".foundry/blackboard")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) != 5 {
		t.Fatalf("%d entries, the OS lists %d (want 5)", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		gi, gerr := g.Info()
		wi, werr := w.Info()
		if g.Name() != w.Name() || g.Type() != w.Type() || g.IsDir() != w.IsDir() || gerr != nil || werr != nil ||
			gi.Size() != wi.Size() || gi.Mode() != wi.Mode() || gi.Name() != wi.Name() {
			t.Errorf("entry %d: %v (%v, %v); the OS says %v (%v, %v)", i, g, gi, gerr, w, wi, werr)
		}
	}
	if _, err := fs.ReadDir(r.FS(), ".foundry/out"); !errors.Is(err, confined.ErrOutside) {
		t.Errorf("ReadDir through a link out of the project: %v, want ErrOutside", err)
	}
}

// TestFolderOf: a folder opens only on a root's FS and only where it
// exists; the nil Folder of the other cases closes as one with nothing
// to release.
func TestFolderOf(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	testenv.WriteFile(t, root, ".foundry/blackboard/w1/a.json", "{}")
	fsys := confined.OpenFS(root)
	for _, tt := range []struct {
		fsys fs.FS
		dir  string
		want bool
	}{
		{fsys, ".foundry/blackboard/w1", true},
		{fsys, ".foundry/blackboard/missing", false},
		{fsys, "../outside", false},
		{os.DirFS(root), ".foundry/blackboard/w1", false},
	} {
		f := confined.FolderOf(tt.fsys, tt.dir)
		if got := f != nil; got != tt.want {
			t.Errorf("FolderOf(%T, %s) opened: %v, want %v", tt.fsys, tt.dir, got, tt.want)
		}
		if err := f.Close(); err != nil {
			t.Errorf("FolderOf(%T, %s).Close: %v", tt.fsys, tt.dir, err)
		}
	}
}
