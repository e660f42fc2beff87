package project_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
)

func TestOpenSources(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("examples/demo/.foundry/config.yaml", "memoryRetrieval:\n  maxFacts: 3\n")
	r.Write("examples/demo/.foundry/memory/a.md", "old\n")
	r.CommitAll("one")
	r.Write("examples/demo/.foundry/config.yaml", "memoryRetrieval:\n  maxFacts: 5\n")
	r.Write("examples/demo/.foundry/memory/a.md", "new\n")
	r.CommitAll("two")
	r.Write("examples/demo/.foundry/memory/a.md", "staged\n")
	r.Git("add", "-A")
	r.Write("examples/demo/.foundry/memory/a.md", "disk\n")
	sub := filepath.Join(r.Dir, "examples", "demo", ".foundry", "memory")

	tests := []struct {
		name     string
		src      project.Source
		want     string
		maxFacts int
	}{
		{"worktree", project.Source{}, "disk\n", 5},
		{"staged", project.Source{Staged: true}, "staged\n", 5},
		{"rev", project.Source{Rev: "HEAD~1"}, "old\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := project.Open(sub, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if repo, rel, err := p.Git(); err != nil || repo == nil || rel != "examples/demo" {
				t.Errorf("Git() = %v, %q, %v; want the repository, examples/demo", repo, rel, err)
			}
			got, err := fs.ReadFile(p.FS, ".foundry/memory/a.md")
			if err != nil || string(got) != tt.want {
				t.Errorf("content = %q, %v; want %q", got, err, tt.want)
			}
			if p.Config.MemoryRetrieval.MaxFacts != tt.maxFacts {
				t.Errorf("maxFacts = %d, want %d (config of that source)", p.Config.MemoryRetrieval.MaxFacts, tt.maxFacts)
			}
			if (tt.src == project.Source{}) != p.Writable() {
				t.Errorf("Writable = %v", p.Writable())
			}
			if !p.Writable() && !errors.Is(p.CheckWritable(), project.ErrReadOnly) {
				t.Errorf("CheckWritable = %v", p.CheckWritable())
			}
		})
	}
}

func TestOpenOutsideGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(dir, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	if repo, _, err := p.Git(); repo != nil || err != nil || p.Config.MemoryRetrieval.MaxFacts != config.Default().MemoryRetrieval.MaxFacts {
		t.Errorf("unexpected project %+v", p)
	}
	for _, src := range []project.Source{{Rev: "HEAD"}, {Staged: true}} {
		if _, err := project.Open(dir, src); !errors.Is(err, project.ErrNoGit) {
			t.Errorf("Open(%v) error = %v, want ErrNoGit", src, err)
		}
	}
}

func TestFindNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := project.Find(dir)
	var nf *project.NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, project.ErrNoProject) {
		t.Fatalf("error = %v, want NotFoundError", err)
	}
}

// TestFindNotAFolder: a .foundry file where the search starts is no
// project, and the error says so; one further up is passed over.
func TestFindNotAFolder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		file      string // the .foundry file, relative to the temp folder
		from      string // where Find starts
		notFolder bool
	}{
		{"here", ".foundry", ".", true},
		{"above", ".foundry", "sub", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := project.Find(filepath.Join(dir, tt.from))
			var nf *project.NotFoundError
			if !errors.As(err, &nf) || !errors.Is(err, project.ErrNoProject) {
				t.Fatalf("error = %v, want NotFoundError", err)
			}
			if nf.NotFolder != tt.notFolder {
				t.Errorf("NotFolder = %v, want %v (%v)", nf.NotFolder, tt.notFolder, err)
			}
			if got := strings.Contains(err.Error(), "is not a folder"); got != tt.notFolder {
				t.Errorf("error %q says 'is not a folder': %v, want %v", err, got, tt.notFolder)
			}
		})
	}
}

func TestOpenRevBeforeProject(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("README", "before foundry\n")
	r.CommitAll("one")
	r.Write(".foundry/memory/a.md", "x\n")
	r.CommitAll("two")
	if _, err := project.Open(r.Dir, project.Source{Rev: "HEAD"}); err != nil {
		t.Fatalf("HEAD: %v", err)
	}
	if _, err := project.Open(r.Dir, project.Source{Rev: "HEAD~1"}); !errors.Is(err, project.ErrNoProjectAtRev) {
		t.Fatalf("HEAD~1 error = %v, want ErrNoProjectAtRev", err)
	}
}

// TestOpenDefersGit: Open on the working tree does not open the repository
// (a repository go-git refuses, here for an unknown extension, does not
// stop it); Git opens it on first use and gives git.Open's error, the error
// Open gave before it deferred this. With --rev and --staged Open opens it
// at once and fails with that error.
func TestOpenDefersGit(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(".foundry/memory/a.md", "x\n")
	r.CommitAll("one")
	r.FutureExtension()
	_, want := git.Open(r.Dir)
	if want == nil {
		t.Fatal("git.Open accepted an unknown extension; the test needs a repository it refuses")
	}

	p, err := project.Open(r.Dir, project.Source{})
	if err != nil {
		t.Fatalf("Open(working tree) = %v; want the repository left for Git to open", err)
	}
	defer p.Close()
	got, err := fs.ReadFile(p.FS, ".foundry/memory/a.md")
	if err != nil || string(got) != "x\n" {
		t.Fatalf("read = %q, %v", got, err)
	}
	for range 2 {
		if repo, _, err := p.Git(); repo != nil || err == nil || err.Error() != want.Error() {
			t.Errorf("Git() = %v, %v; want %v", repo, err, want)
		}
	}
	for _, src := range []project.Source{{Rev: "HEAD"}, {Staged: true}} {
		if _, err := project.Open(r.Dir, src); err == nil || err.Error() != want.Error() {
			t.Errorf("Open(%v) = %v, want %v", src, err, want)
		}
	}
}

// TestGitOpensOnce: a project's repository is opened once, shared by a copy
// of the Project and by concurrent callers, and Close releases it once.
func TestGitOpensOnce(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(".foundry/memory/a.md", "x\n")
	r.CommitAll("one")
	p, err := project.Open(r.Dir, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	cp := *p
	repos := make(chan *git.Repo, 8)
	for range cap(repos) {
		go func() {
			repo, _, err := cp.Git()
			if err != nil {
				t.Error(err)
			}
			repos <- repo
		}()
	}
	first, _, _ := p.Git()
	if first == nil || !first.HasCommits() {
		t.Fatalf("Git() = %v, want the repository with its commit", first)
	}
	for range cap(repos) {
		if repo := <-repos; repo != first {
			t.Errorf("a concurrent Git() opened a second repository")
		}
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
	if err := cp.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestGitAfterClose checks that Git after Close neither hands out the
// closed repository nor opens one again that nothing would close, whether
// or not Git was called before Close, on the working tree and at a
// revision.
func TestGitAfterClose(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(".foundry/memory/a.md", "x\n")
	r.CommitAll("one")
	for _, tc := range []struct {
		name      string
		src       project.Source
		gitBefore bool
	}{
		{"worktree, never opened", project.Source{}, false},
		{"worktree, opened", project.Source{}, true},
		{"rev", project.Source{Rev: "HEAD"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := project.Open(r.Dir, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if tc.gitBefore {
				if repo, _, err := p.Git(); err != nil || repo == nil {
					t.Fatalf("Git() before Close = %v, %v; want the repository", repo, err)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			repo, _, err := p.Git()
			if !errors.Is(err, project.ErrClosed) || repo != nil {
				t.Errorf("Git() after Close = %v, %v; want nil, ErrClosed", repo, err)
			}
			if err := p.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
		})
	}
}

// TestOpenStagedUnmerged: during a merge that left a file of the project
// in conflict, the index has no staged version of it, and --staged says so
// rather than read one stage; a conflict outside .foundry does not stop it.
func TestOpenStagedUnmerged(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, file string
		unmerged   bool
		link       bool // .foundry is a link to meta
	}{
		{"a fact in conflict", ".foundry/memory/fact-0001-a.md", true, false},
		{"a file outside the project's folder", "README.md", false, false},
		// Git stages the files of a linked .foundry where it leads.
		{"a fact in conflict where a linked .foundry leads", "meta/memory/fact-0001-a.md", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.link && runtime.GOOS == "windows" {
				t.Skip("needs symbolic links")
			}
			r := gittest.New(t)
			if tt.link {
				r.Write("meta/config.yaml", "")
				r.Symlink(".foundry", "meta")
			} else {
				r.Write(".foundry/config.yaml", "")
			}
			r.Write(tt.file, "base\n")
			r.CommitAll("base")
			r.Git("checkout", "-q", "-b", "other")
			r.Write(tt.file, "theirs\n")
			r.CommitAll("theirs")
			r.Git("checkout", "-q", "-")
			r.Write(tt.file, "ours\n")
			r.CommitAll("ours")
			if _, err := r.TryGit("merge", "-q", "other"); err == nil {
				t.Fatal("the merge did not conflict")
			}
			p, err := project.Open(r.Dir, project.Source{Staged: true})
			if !tt.unmerged {
				if err != nil {
					t.Fatalf("Open(--staged) = %v, want the project", err)
				}
				p.Close()
				return
			}
			if !errors.Is(err, project.ErrUnmerged) || !strings.Contains(err.Error(), "("+tt.file+"): resolve the merge") {
				t.Fatalf("Open(--staged) = %v, want ErrUnmerged naming %s", err, tt.file)
			}
			r.Git("add", tt.file)
			p, err = project.Open(r.Dir, project.Source{Staged: true})
			if err != nil {
				t.Fatalf("Open(--staged) after git add = %v", err)
			}
			p.Close()
		})
	}
}
