package project_test

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
)

// stagedBase commits a repository holding a project at the top, two below
// it (one nested in another) and one more, and a file of no project.
func stagedBase(t *testing.T) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	for _, p := range []string{".foundry/config.yaml", "services/api/.foundry/config.yaml", "services/api/sub/.foundry/config.yaml",
		"services/web/.foundry/config.yaml", "gone/.foundry/config.yaml", "gone/.foundry/memory/a.md", "src/main.go"} {
		r.Write(p, "x: 1\n")
	}
	r.CommitAll("init")
	return r
}

// TestFindStaged: the projects a commit changes are found from one
// listing of the index, each staged file given to the project in the
// folder holding the first .foundry on its path.
func TestFindStaged(t *testing.T) {
	t.Parallel()
	added, modified, deleted := git.Added, git.Modified, git.Deleted
	// gone's .foundry taken away: its files are deletions, and nothing of
	// it is checked.
	goneRemoved := []project.Staged{{Rel: "gone", Removed: true, Changes: []git.Change{
		{Path: ".foundry/config.yaml", Kind: deleted},
		{Path: ".foundry/memory/a.md", Kind: deleted},
	}}}
	tests := []struct {
		name  string
		link  bool // needs symbolic links
		stage func(t *testing.T, r *gittest.Repo)
		want  []project.Staged
	}{
		{"nothing staged", false, func(*testing.T, *gittest.Repo) {}, nil},
		{"no .foundry folder on the way", false, func(t *testing.T, r *gittest.Repo) {
			r.Write("src/main.go", "changed\n")
			r.Write("notes/.foundry", "a file named .foundry\n")
			r.Write("docs/x.foundry/a.md", "not a .foundry folder\n")
			r.Write("docs/foundry/a.md", "nor this\n")
		}, nil},
		{"each project its own files, nested ones too", false, func(t *testing.T, r *gittest.Repo) {
			r.Write(".foundry/memory/top.md", "new\n")
			r.Write("services/api/.foundry/config.yaml", "x: 2\n")
			r.Write("services/api/sub/.foundry/runbooks/r.md", "new\n")
			r.Remove("services/web/.foundry/config.yaml")
			r.Write("services/web/.foundry/blackboard/w/a.json", "{}\n")
			r.Write("services/api/src/x.go", "not the project's .foundry\n")
		}, []project.Staged{
			{Rel: "", Changes: []git.Change{{Path: ".foundry/memory/top.md", Kind: added}}},
			{Rel: "services/api", Changes: []git.Change{{Path: ".foundry/config.yaml", Kind: modified}}},
			{Rel: "services/api/sub", Changes: []git.Change{{Path: ".foundry/runbooks/r.md", Kind: added}}},
			{Rel: "services/web", Changes: []git.Change{
				{Path: ".foundry/blackboard/w/a.json", Kind: added},
				{Path: ".foundry/config.yaml", Kind: deleted},
			}},
		}},
		{"a .foundry below a .foundry is the project's file", false, func(t *testing.T, r *gittest.Repo) {
			r.Write("services/web/.foundry/blackboard/.foundry/a.json", "{}\n")
		}, []project.Staged{
			{Rel: "services/web", Changes: []git.Change{{Path: ".foundry/blackboard/.foundry/a.json", Kind: added}}},
		}},
		{"the commit removes a project", false, func(t *testing.T, r *gittest.Repo) {
			r.Git("rm", "-rq", "gone/.foundry")
		}, goneRemoved},
		{"a file in place of .foundry", false, func(t *testing.T, r *gittest.Repo) {
			r.Git("rm", "-rq", "gone/.foundry")
			r.Write("gone/.foundry", "a file\n")
		}, goneRemoved},
		// A link the index cannot follow to a folder (one to a file, or to
		// a folder the commit does not hold, gitignored or not there) is
		// no project either: the commit takes its files away.
		{"a link to a file in place of .foundry", true, func(t *testing.T, r *gittest.Repo) {
			r.Git("rm", "-rq", "gone/.foundry")
			r.Write("gone/notes.txt", "a file\n")
			r.Symlink("gone/.foundry", "notes.txt")
		}, goneRemoved},
		{"a link through a file in place of .foundry", true, func(t *testing.T, r *gittest.Repo) {
			r.Git("rm", "-rq", "gone/.foundry")
			r.Write("gone/notes.txt", "a file\n")
			r.Symlink("gone/.foundry", "notes.txt/meta")
		}, goneRemoved},
		{"a link to a folder the index does not hold in place of .foundry", true, func(t *testing.T, r *gittest.Repo) {
			r.Git("rm", "-rq", "gone/.foundry")
			r.Symlink("gone/.foundry", "untracked")
		}, goneRemoved},
		{"a link in place of .foundry: the changes where it leads", true, func(t *testing.T, r *gittest.Repo) {
			r.Git("mv", "gone/.foundry", "gone/meta")
			r.Write("gone/meta/runbooks/r.md", "new\n")
			r.Symlink("gone/.foundry", "meta")
		}, []project.Staged{
			{Rel: "gone", Changes: []git.Change{
				{Path: ".foundry/config.yaml", Kind: added},
				{Path: ".foundry/memory/a.md", Kind: added},
				{Path: ".foundry/runbooks/r.md", Kind: added},
			}},
		}},
		// A .foundry that was a link already has its files staged where
		// it leads, under no .foundry: they are its project's.
		{"a link committed already: the changes where it leads", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "gone", "meta")
			r.CommitAll("link gone's .foundry")
			r.Write("gone/meta/memory/a.md", "changed\n")
			r.Write("gone/meta/runbooks/r.md", "new\n")
			r.Remove("gone/meta/config.yaml")
			r.Write("gone/notes.md", "beside the link, not where it leads\n")
		}, []project.Staged{
			{Rel: "gone", Changes: []git.Change{
				{Path: ".foundry/config.yaml", Kind: deleted},
				{Path: ".foundry/memory/a.md", Kind: modified},
				{Path: ".foundry/runbooks/r.md", Kind: added},
			}},
		}},
		{"a link committed already at the top", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "", "meta")
			r.CommitAll("link the top's .foundry")
			r.Write("meta/config.yaml", "x: 2\n")
			r.Write("services/api/.foundry/config.yaml", "x: 2\n")
		}, []project.Staged{
			{Rel: "", Changes: []git.Change{{Path: ".foundry/config.yaml", Kind: modified}}},
			{Rel: "services/api", Changes: []git.Change{{Path: ".foundry/config.yaml", Kind: modified}}},
		}},
		{"the commit changes the link and the files where it leads", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "gone", "meta")
			r.CommitAll("link gone's .foundry")
			r.Git("mv", "gone/meta", "gone/meta2")
			r.Write("gone/meta2/runbooks/r.md", "new\n")
			relink(t, r, "gone", "meta2")
		}, []project.Staged{
			{Rel: "gone", Changes: []git.Change{
				{Path: ".foundry/config.yaml", Kind: added},
				{Path: ".foundry/memory/a.md", Kind: added},
				{Path: ".foundry/runbooks/r.md", Kind: added},
			}},
		}},
		// A file is the project's whose .foundry folder holds it, whatever
		// link leads to it or above it: services' link to web/.foundry,
		// and the top's to services, take no file of web's or api's.
		{"a link never takes the files of a .foundry folder", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "", "services")
			r.Symlink("services/.foundry", "web/.foundry")
			r.CommitAll("links")
			r.Write("services/README.md", "new\n")
			r.Write("services/api/.foundry/config.yaml", "x: 2\n")
			r.Write("services/api/sub/.foundry/memory/m.md", "new\n")
			r.Write("services/web/.foundry/config.yaml", "x: 2\n")
		}, []project.Staged{
			{Rel: "", Changes: []git.Change{{Path: ".foundry/README.md", Kind: added}}},
			{Rel: "services/api", Changes: []git.Change{{Path: ".foundry/config.yaml", Kind: modified}}},
			{Rel: "services/api/sub", Changes: []git.Change{{Path: ".foundry/memory/m.md", Kind: added}}},
			{Rel: "services/web", Changes: []git.Change{{Path: ".foundry/config.yaml", Kind: modified}}},
		}},
		{"a .foundry folder where a link leads is a project of its own", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "gone", "meta")
			r.Write("gone/meta/sub/.foundry/config.yaml", "x: 1\n")
			r.CommitAll("link gone's .foundry")
			r.Write("gone/meta/sub/.foundry/config.yaml", "x: 2\n")
			r.Write("gone/meta/b.md", "new\n")
		}, []project.Staged{
			{Rel: "gone", Changes: []git.Change{{Path: ".foundry/b.md", Kind: added}}},
			{Rel: "gone/meta/sub", Changes: []git.Change{{Path: ".foundry/config.yaml", Kind: modified}}},
		}},
		// Where links lead into one another, or to one folder, a file is
		// the project's whose link leads nearest to it.
		{"the nearest link has the files", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "gone", "meta")
			relink(t, r, "", "gone")
			r.CommitAll("links")
			r.Write("gone/meta/memory/a.md", "changed\n")
			r.Write("gone/notes.md", "new\n")
		}, []project.Staged{
			{Rel: "", Changes: []git.Change{{Path: ".foundry/notes.md", Kind: added}}},
			{Rel: "gone", Changes: []git.Change{{Path: ".foundry/memory/a.md", Kind: modified}}},
		}},
		{"two links to one folder: the nearer project's", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "gone", "meta")
			relink(t, r, "", "gone/meta")
			r.CommitAll("links")
			r.Write("gone/meta/memory/a.md", "changed\n")
		}, []project.Staged{
			{Rel: "gone", Changes: []git.Change{{Path: ".foundry/memory/a.md", Kind: modified}}},
		}},
		// A link committed already that leads to no folder of the index
		// (the commit deletes it, it leaves the project, it loops) has no
		// files, as its own check finds none, and fails nothing else.
		{"links that lead to no folder have no files", true, func(t *testing.T, r *gittest.Repo) {
			relink(t, r, "gone", "meta")
			relink(t, r, "services/web", "../../src")
			relink(t, r, "services/api/sub", ".foundry")
			relink(t, r, "services/api", "meta")
			r.CommitAll("links")
			r.Git("rm", "-rq", "gone/meta")
			r.Write("src/main.go", "changed\n")
			r.Write("services/api/meta/config.yaml", "x: 2\n")
		}, []project.Staged{
			{Rel: "services/api", Changes: []git.Change{{Path: ".foundry/config.yaml", Kind: modified}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.link && runtime.GOOS == "windows" {
				t.Skip("needs symbolic links")
			}
			r := stagedBase(t)
			tt.stage(t, r)
			r.Git("add", "-A")
			idx := readIndex(t, r)
			got, err := project.FindStaged(idx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FindStaged (-want +got):\n%s", diff)
			}
		})
	}
}

// readIndex reads r's index, its repository closed when the test ends.
func readIndex(t *testing.T, r *gittest.Repo) *git.Index {
	t.Helper()
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	idx, err := repo.ReadIndex()
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// relink makes the .foundry of the project rel (slash form, "" at the
// top) a symbolic link to target, its path from rel: a .foundry folder
// is moved there, or removed when something is there already; a link is
// only pointed at target.
func relink(t *testing.T, r *gittest.Repo, rel, target string) {
	t.Helper()
	name := path.Join(rel, project.Dir)
	to := path.Join(rel, target)
	fi, err := os.Lstat(filepath.Join(r.Dir, filepath.FromSlash(name)))
	switch {
	case err != nil:
		t.Fatal(err)
	case !fi.IsDir():
		r.Remove(name)
	case exists(r, to):
		r.Git("rm", "-rq", name)
	default:
		if err := os.MkdirAll(filepath.Join(r.Dir, filepath.FromSlash(path.Dir(to))), 0o755); err != nil {
			t.Fatal(err)
		}
		r.Git("mv", name, to)
	}
	r.Symlink(name, target)
}

// exists reports whether name (slash form) is in r's working tree.
func exists(r *gittest.Repo, name string) bool {
	_, err := os.Lstat(filepath.Join(r.Dir, filepath.FromSlash(name)))
	return err == nil
}

// TestOpenStaged: each project is opened on the one reading of the index
// it was found in, leniently, and closing one leaves the repository open
// for the next.
func TestOpenStaged(t *testing.T) {
	t.Parallel()
	r := stagedBase(t)
	r.Git("gc", "-q") // packed: the packs a project reads stay open
	r.Write("services/api/.foundry/memory/a.md", "staged\n")
	r.Write("services/web/.foundry/config.yaml", "memoryRetrieval: [not a map\n")
	r.Git("add", "-A")
	r.Write("services/api/.foundry/memory/a.md", "on disk\n")
	idx := readIndex(t, r)
	for _, rel := range []string{"services/api", "services/web", "", "services/api"} {
		p, err := project.OpenStaged(idx, rel)
		if err != nil {
			t.Fatalf("OpenStaged(%q): %v", rel, err)
		}
		if want := filepath.Join(idx.Repo().Root(), filepath.FromSlash(rel)); p.Root != want || p.Index != idx || p.Writable() {
			t.Errorf("OpenStaged(%q): root %s, index %p, writable %v; want %s, %p, false", rel, p.Root, p.Index, p.Writable(), want, idx)
		}
		if g, grel, err := p.Git(); g != idx.Repo() || grel != rel || err != nil {
			t.Errorf("OpenStaged(%q).Git() = %p, %q, %v; want %p, %q", rel, g, grel, err, idx.Repo(), rel)
		}
		// The config, in HEAD's pack, reads through every project in turn.
		if _, err := fs.ReadFile(p.FS, ".foundry/config.yaml"); err != nil {
			t.Errorf("OpenStaged(%q): read config: %v", rel, err)
		}
		if rel == "services/api" {
			if got, err := fs.ReadFile(p.FS, ".foundry/memory/a.md"); string(got) != "staged\n" || err != nil {
				t.Errorf("OpenStaged(%q): a.md = %q, %v; want the staged version", rel, got, err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		// Its Close left the repository's packs open for the next one.
		if runtime.GOOS == "linux" && !packOpen(t, r.Dir) {
			t.Errorf("OpenStaged(%q): Close closed the repository it was given", rel)
		}
	}
}

// packOpen reports whether this process holds a pack file of the
// repository at dir open (linux: through /proc/self/fd).
func packOpen(t *testing.T, dir string) bool {
	t.Helper()
	packs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	if err != nil || len(packs) == 0 {
		t.Fatalf("no pack in %s: %v", dir, err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && slices.Contains(packs, target) {
			return true
		}
	}
	return false
}

// TestOpenStagedRefusesUnmerged: a project whose files the index holds unmerged
// is refused, as --staged refuses it.
func TestOpenStagedRefusesUnmerged(t *testing.T) {
	t.Parallel()
	r := stagedBase(t)
	r.Git("checkout", "-q", "-b", "other")
	r.Write("services/api/.foundry/config.yaml", "x: other\n")
	r.CommitAll("other")
	r.Git("checkout", "-q", "main")
	r.Write("services/api/.foundry/config.yaml", "x: main\n")
	r.CommitAll("main")
	if _, err := r.TryGit("merge", "-q", "other"); err == nil {
		t.Fatal("the merge had no conflict")
	}
	idx := readIndex(t, r)
	if _, err := project.OpenStaged(idx, "services/api"); !errors.Is(err, project.ErrUnmerged) {
		t.Errorf("OpenStaged(services/api) = %v, want ErrUnmerged", err)
	}
	p, err := project.OpenStaged(idx, "services/web")
	if err != nil {
		t.Fatalf("OpenStaged(services/web), no file of it unmerged: %v", err)
	}
	p.Close()
}

// TestProjectStagedChanges: a project read from the index lists what the
// commit changes under its .foundry, or where a linked .foundry leads,
// named through .foundry; one read from the working tree has no staged
// changes to list.
func TestProjectStagedChanges(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("needs symbolic links")
	}
	r := stagedBase(t)
	r.Write("services/api/.foundry/memory/b.md", "new\n")
	r.Git("mv", "gone/.foundry", "gone/meta")
	r.Write("gone/meta/runbooks/r.md", "new\n")
	r.Symlink("gone/.foundry", "meta")
	r.Git("add", "-A")
	r.CommitAll("link gone's .foundry")
	r.Write("gone/meta/runbooks/r.md", "changed\n")
	r.Write("services/api/.foundry/config.yaml", "x: 2\n")
	r.Git("add", "-A")
	tests := []struct {
		dir  string
		want []git.Change
	}{
		{"services/api", []git.Change{{Path: ".foundry/config.yaml", Kind: git.Modified}}},
		{"gone", []git.Change{{Path: ".foundry/runbooks/r.md", Kind: git.Modified}}},
		{"services/web", []git.Change{}},
	}
	for _, tt := range tests {
		p, err := project.OpenLenient(filepath.Join(r.Dir, tt.dir), project.Source{Staged: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.StagedChanges()
		p.Close()
		if err != nil {
			t.Fatalf("%s: %v", tt.dir, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: StagedChanges (-want +got):\n%s", tt.dir, diff)
		}
	}
	p, err := project.OpenLenient(filepath.Join(r.Dir, "services/api"), project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.StagedChanges(); err == nil || !strings.Contains(err.Error(), "is read from the working tree, not the index") {
		t.Errorf("StagedChanges of the working tree = %v, want an error", err)
	}
}
