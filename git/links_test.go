package git_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/confined"
)

// TestViewsFollowLinks checks that a symbolic link committed under a project
// (the folder p) reads the same at a revision and in the index as in the
// working tree: one inside .foundry followed while its target stays inside
// .foundry, refused when absolute or climbing out of it (to the project
// around it too: .git/config, an .env), missing when dangling, a loop when
// it loops, a folder when it names one.
func TestViewsFollowLinks(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("p/.foundry/a.json", `{"a":1}`)
	r.Write("p/.foundry/sub/b.json", `{"b":2}`)
	r.Write("p/top.json", `{"top":3}`)
	r.Write("p/.env", "API_KEY=3")
	r.Write("p/.foundry/far/c.json", `{"c":5}`)
	r.Write("p/.foundry/far/deeper/d.json", `{"d":6}`)
	r.Write("outside.json", `{"outside":4}`)
	tests := []struct {
		link, target string
		want         string // the content, or what reading it says
	}{
		{"same.json", "a.json", `{"a":1}`},
		{"sub/up.json", "../a.json", `{"a":1}`},
		{"down.json", "sub/b.json", `{"b":2}`},
		{"chain.json", "same.json", `{"a":1}`},
		{"top.json", "../top.json", "outside .foundry"},
		{"env.json", "../.env", "outside .foundry"},
		{"out.json", "../../outside.json", "outside .foundry"},
		{"abs.json", filepath.Join(r.Dir, "p", ".foundry", "a.json"), "outside .foundry"},
		{"dangling.json", "nowhere.json", "missing"},
		{"loop.json", "loop.json", "loop"},
		{"dir.json", "sub", "folder"},
		{"wave", "sub", "folder"},
		{"wave/b.json", "", `{"b":2}`},     // read through a linked folder
		{"wave/up.json", "", `{"a":1}`},    // a link inside a linked folder
		{"dir.json/b.json", "", `{"b":2}`}, // a linked folder named like a file
		// os.Root follows 8 links, no more, on the way to one file.
		{"c1", "c2", ""}, {"c2", "c3", ""}, {"c3", "c4", ""}, {"c4", "c5", ""},
		{"c5", "c6", ""}, {"c6", "c7", ""}, {"c7", "c8", ""}, {"c8", "a.json", ""},
		{"chain8.json", "c2", `{"a":1}`},
		{"chain9.json", "c1", "loop"},
		// ".." after a link climbs from where the link led, not from
		// where it stands: deep/.. is far, not .foundry.
		{"deep", "far/deeper", ""},
		{"back.json", "deep/../c.json", `{"c":5}`},
		// A file is no folder, even when ".." would leave it at once,
		// and a target ending in a slash names a folder.
		{"through.json", "a.json/../a.json", "not a directory"},
		{"slash.json", "a.json/", "not a directory"},
		{"slashdir", "sub/", "folder"},
		{"slashdir/b.json", "", `{"b":2}`},
		{"out-and-in.json", "../../p/.foundry/a.json", "outside .foundry"},
		{"in-and-out.json", "sub/../../top.json", "outside .foundry"},
		{"far/up.json", "../../top.json", "outside .foundry"},
	}
	for _, tt := range tests {
		if tt.target == "" && tt.want != "" {
			continue // a path through a link the table makes
		}
		name := filepath.Join(r.Dir, "p", ".foundry", filepath.FromSlash(tt.link))
		if err := os.Symlink(tt.target, name); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	r.CommitAll("links")
	views := threeViews(t, r.Dir, "p")
	read := func(fsys fs.FS, name string) string {
		b, err := fs.ReadFile(fsys, name)
		switch {
		case err == nil:
			return string(b)
		case errors.Is(err, confined.ErrOutsideFoundry):
			return "outside .foundry"
		case errors.Is(err, confined.ErrOutside):
			return "outside"
		case errors.Is(err, fs.ErrNotExist):
			return "missing"
		case strings.Contains(err.Error(), "too many levels of symbolic links"):
			return "loop"
		case errors.Is(err, syscall.ENOTDIR):
			return "not a directory"
		}
		if fi, serr := fs.Stat(fsys, name); serr == nil && fi.IsDir() {
			return "folder"
		}
		return "error: " + err.Error()
	}
	for _, tt := range tests {
		if tt.want == "" {
			continue // a link only others lead through
		}
		for _, v := range views {
			if got := read(v.fsys, ".foundry/"+tt.link); got != tt.want {
				t.Errorf("%s: .foundry/%s -> %s reads %q, want %q", v.name, tt.link, tt.target, got, tt.want)
			}
		}
	}
	// The path git holds a file under, through the links on the way.
	for _, v := range views {
		want := ".foundry/sub/b.json"
		if v.name == "working tree" {
			want = ".foundry/wave/b.json" // no view of this package: as named
		}
		if got, err := git.RealPath(confined.Bounded(v.fsys), ".foundry/wave/b.json"); err != nil || got != want {
			t.Errorf("%s: RealPath(.foundry/wave/b.json) = %q, %v; want %q", v.name, got, err, want)
		}
		if _, err := git.RealPath(v.fsys, ".foundry/out.json"); v.name != "working tree" && !errors.Is(err, confined.ErrOutside) {
			t.Errorf("%s: RealPath(.foundry/out.json): %v, want it refused", v.name, err)
		}
	}
	// The link itself, as os.Lstat, os.Readlink and os.ReadDir describe
	// one on disk: listings tell it from a file.
	for _, v := range views[1:] {
		name := ".foundry/same.json"
		if fi, err := fs.Lstat(v.fsys, name); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: Lstat(%s) = %v, %v; want a symbolic link", v.name, name, fi, err)
		}
		if target, err := fs.ReadLink(v.fsys, name); err != nil || target != "a.json" {
			t.Errorf("%s: ReadLink(%s) = %q, %v; want a.json", v.name, name, target, err)
		}
		if _, err := fs.ReadLink(v.fsys, ".foundry/a.json"); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("%s: ReadLink of a file: %v, want fs.ErrInvalid", v.name, err)
		}
		if fi, err := fs.Lstat(v.fsys, ".foundry/wave/up.json"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: Lstat through a linked folder = %v, %v; want the link up.json", v.name, fi, err)
		}
		if es, err := fs.ReadDir(v.fsys, ".foundry/wave"); err != nil || len(es) != 2 || es[0].Name() != "b.json" || es[1].Name() != "up.json" {
			t.Errorf("%s: ReadDir of a linked folder = %v, %v; want b.json and up.json", v.name, es, err)
		}
		es, err := fs.ReadDir(v.fsys, ".foundry")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if isLink := e.Type()&fs.ModeSymlink != 0; isLink != (e.Name() != "a.json" && e.Name() != "sub" && e.Name() != "far") {
				t.Errorf("%s: entry %s has type %v", v.name, e.Name(), e.Type())
			}
			// A link that cannot be followed describes itself, as on
			// disk: one bad link fails no listing.
			fi, err := e.Info()
			if err != nil {
				t.Errorf("%s: Info of %s: %v", v.name, e.Name(), err)
			} else if bad := strings.HasPrefix(e.Name(), "out") || strings.HasPrefix(e.Name(), "abs") || e.Name() == "loop.json" || e.Name() == "chain9.json"; bad && fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s: Info of %s = %v, want the link itself", v.name, e.Name(), fi.Mode())
			}
		}
	}
}

// TestViewsFoundryLink checks that a .foundry that is itself a committed
// link reads the same in every view: followed to a folder inside the
// project, refused when it is the project's own folder (which holds
// .git/config and an untracked .env: it would confine nothing) or leads
// out of the project.
func TestViewsFoundryLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target string // of p/.foundry
		want   string // reading .foundry/a.json and .foundry/w/env.json
	}{
		{"meta", "A, missing"},
		{"sub/../meta", "A, missing"},
		{"meta/", "A, missing"},
		{".", "the project, the project"},
		{"./", "the project, the project"},
		{"meta/..", "the project, the project"},
		{"up", "the project, the project"}, // up -> .
		{"..", "outside, outside"},
		{"../p", "outside, outside"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write("p/meta/a.json", "A")
			r.Write("p/a.json", "TOP")
			r.Write("p/.env", "SECRET")
			r.Write("p/sub/keep", "")
			for link, target := range map[string]string{"p/w/env.json": "../.env", "p/up": ".", "p/.foundry": tt.target} {
				r.Symlink(link, target)
			}
			r.CommitAll("links")
			for _, v := range threeViews(t, r.Dir, "p") {
				var got []string
				for _, name := range []string{".foundry/a.json", ".foundry/w/env.json"} {
					b, err := fs.ReadFile(v.fsys, name)
					switch {
					case err == nil:
						got = append(got, string(b))
					case errors.Is(err, confined.ErrFoundryIsProject):
						got = append(got, "the project")
					case errors.Is(err, confined.ErrOutside):
						got = append(got, "outside")
					case errors.Is(err, fs.ErrNotExist):
						got = append(got, "missing")
					default:
						got = append(got, err.Error())
					}
				}
				if g := strings.Join(got, ", "); g != tt.want {
					t.Errorf("%s: .foundry -> %s reads %s, want %s", v.name, tt.target, g, tt.want)
				}
			}
		})
	}
}

// TestViewsBoundLinkTarget checks that a committed link whose target is
// longer than any the system stores (git keeps whatever blob it is given)
// is refused as the system refuses one, "file name too long", before its
// target is read: a self-referring target of many components would
// otherwise grow at each hop.
func TestViewsBoundLinkTarget(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(".foundry/a.json", `{"a":1}`)
	tests := []struct {
		link, target string
		want         error
	}{
		{".foundry/long.json", strings.Repeat("long.json/", 100000), syscall.ENAMETOOLONG},
		{".foundry/longest.json", strings.Repeat("./", 2044) + "/a.json", nil}, // 4,095 bytes
		{".foundry/over.json", strings.Repeat("./", 2045) + "a.json", syscall.ENAMETOOLONG},
	}
	for _, tt := range tests {
		file := filepath.Join(t.TempDir(), "target")
		if err := os.WriteFile(file, []byte(tt.target), 0o644); err != nil {
			t.Fatal(err)
		}
		hash := r.Git("hash-object", "-w", file)
		r.Git("update-index", "--add", "--cacheinfo", "120000,"+hash+","+tt.link)
	}
	r.Git("add", ".foundry/a.json")
	r.Git("commit", "-q", "-m", "long links")
	for _, v := range threeViews(t, r.Dir, "")[1:] {
		for _, tt := range tests {
			data, err := fs.ReadFile(v.fsys, tt.link)
			if !errors.Is(err, tt.want) || err == nil && string(data) != `{"a":1}` {
				t.Errorf("%s: read %s (a %d-byte target): %q, %v, want %v", v.name, tt.link, len(tt.target), data, err, tt.want)
			}
			_, err = fs.ReadLink(v.fsys, tt.link)
			if tooLong := errors.Is(err, syscall.ENAMETOOLONG); tooLong != (len(tt.target) > 4095) || !tooLong && err != nil {
				t.Errorf("%s: readlink %s (a %d-byte target): %v", v.name, tt.link, len(tt.target), err)
			}
		}
	}
}

// view is one source a project is read from, named for messages.
type view struct {
	name string
	fsys fs.FS
}

// threeViews returns the folder sub of the repository at dir in the
// working tree (read as Foundry reads it, through os.Root), at HEAD and in
// the index, in that order.
func threeViews(t testing.TB, dir, sub string) []view {
	t.Helper()
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	rev, _, err := repo.RevFS("HEAD", sub)
	if err != nil {
		t.Fatal(err)
	}
	index, err := repo.IndexFS(sub)
	if err != nil {
		t.Fatal(err)
	}
	return []view{
		{"working tree", confined.OpenFS(filepath.Join(dir, sub))},
		{"revision", rev},
		{"index", index},
	}
}
