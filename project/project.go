// Package project finds a Foundry project and opens it on one source: the
// working tree, the git index or a revision. A Project carries the fs.FS every
// domain package reads through, the project's config as of that source, and
// the on-disk root that writes go to (only for the working tree).
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
)

// Dir is the name of the folder that marks a project root: the folder
// whose links package confined holds within it.
const Dir = confined.FoundryDir

var (
	// ErrNoProject means no .foundry folder exists in a folder or above it.
	ErrNoProject = errors.New("no .foundry folder found")
	// ErrReadOnly means a write was asked of a --rev or --staged view.
	ErrReadOnly = errors.New("writes are only possible on the working tree")
	// ErrNoProjectAtRev means the revision asked for has no .foundry folder.
	ErrNoProjectAtRev = errors.New("no .foundry folder at this revision")
	// ErrUnmerged means --staged was asked while the index holds files of
	// the project unmerged (a merge in progress): it has no one staged
	// version of them to read.
	ErrUnmerged = errors.New("the git index holds unmerged files of the project")
	// ErrNoGit means --rev or --staged was asked outside a git repository.
	ErrNoGit = errors.New("project is not inside a git repository")
	// ErrNested means init was asked below an existing project, whose
	// .foundry/ the new one would shadow; the error is a *[NestedError].
	ErrNested = errors.New("inside an existing project")
	// ErrClosed means Git was called on a project after its Close.
	ErrClosed = errors.New("project is closed")
)

// Source chooses what a project is read from. The zero value is the working
// tree.
type Source struct {
	Rev    string // a revision spec, e.g. HEAD~5
	Staged bool   // the git index
}

// Project is one opened Foundry project.
type Project struct {
	Root string // absolute path of the folder holding .foundry/
	FS   fs.FS  // the chosen source, rooted at Root, confined and size-bounded
	// Files is the working tree's confined root, through which every write
	// goes (nil with --rev or --staged).
	Files  *confined.Root
	Source Source        //
	Config config.Config // as of the chosen source
	Commit git.Commit    // the resolved commit with --rev
	// Index is the reading of the git index that FS shows with --staged
	// (nil otherwise): its StagedChanges list the same snapshot FS reads.
	Index *git.Index

	// git is the repository, see Git: opened by Open with --rev or
	// --staged, on the first call of Git on the working tree. A pointer,
	// so that a copy of the Project shares it.
	git *lazyGit
}

// lazyGit is a project's repository, opened once.
type lazyGit struct {
	mu     sync.Mutex
	done   bool
	repo   *git.Repo
	rel    string
	err    error
	closed bool
	// borrowed: repo was opened by the caller of [OpenStaged], who
	// closes it once every project opened on it is done.
	borrowed bool
}

// Git returns the git repository that holds the project (nil outside git)
// and Root relative to its working tree root, in slash form ("" at the
// top). With --rev or --staged Open has opened it. On the working tree it
// is opened on the first call, which returns the errors of opening it (a
// repository go-git refuses): a command or a server that needs no git,
// such as an MCP server answering its first request, never reads the
// repository.
//
// A Project made other than by Open (a literal) has no repository.
func (p *Project) Git() (*git.Repo, string, error) {
	g := p.git
	if g == nil {
		return nil, "", nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, "", ErrClosed
	}
	if !g.done {
		g.done = true
		g.repo, g.rel, g.err = openGit(p.Root)
	}
	return g.repo, g.rel, g.err
}

// openGit opens the repository holding root: nil, "", nil outside git.
func openGit(root string) (*git.Repo, string, error) {
	repo, err := git.Open(root)
	switch {
	case errors.Is(err, git.ErrNotRepository):
		return nil, "", nil
	case err != nil:
		return nil, "", err
	}
	rel, err := repo.Rel(root)
	if err != nil {
		repo.Close()
		return nil, "", err
	}
	return repo, rel, nil
}

// Close releases the pack files of the project's repository if it was
// opened (by this project: not the one [OpenStaged] was given); it opens
// none. Git then returns [ErrClosed]: neither a closed
// repository nor one opened again that nothing would close.
func (p *Project) Close() error {
	g := p.git
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	if g.repo == nil || g.borrowed {
		return nil
	}
	return g.repo.Close()
}

// Find walks up from dir to the nearest folder holding .foundry/ and returns
// its absolute path.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find project from %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	notFolder := false
	for d := abs; ; {
		fi, err := os.Stat(filepath.Join(d, Dir))
		if err == nil && fi.IsDir() {
			return d, nil
		}
		if d == abs {
			notFolder = err == nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", &NotFoundError{From: abs, NotFolder: notFolder}
		}
		d = parent
	}
}

// NotFoundError says where the search for .foundry/ started, and whether a
// .foundry that is not a folder (a file) is there, which init cannot turn
// into one.
type NotFoundError struct {
	From      string
	NotFolder bool
}

func (e *NotFoundError) Error() string {
	if e.NotFolder {
		return fmt.Sprintf("%v in %s or any parent folder: %s is not a folder", ErrNoProject, e.From, filepath.Join(e.From, Dir))
	}
	return fmt.Sprintf("%v in %s or any parent folder", ErrNoProject, e.From)
}
func (e *NotFoundError) Unwrap() error { return ErrNoProject }

// Open finds the project that holds dir and opens it on src.
func Open(dir string, src Source) (*Project, error) {
	root, err := Find(dir)
	if err != nil {
		return nil, err
	}
	return OpenRoot(root, src)
}

// OpenRoot opens the project rooted at root (which holds .foundry/) on src.
func OpenRoot(root string, src Source) (*Project, error) {
	return openRoot(root, src, false)
}

// OpenLenient is Open for checkers such as foundry doctor, which report an
// invalid config themselves: a config that does not load gives the
// defaults instead of an error.
func OpenLenient(dir string, src Source) (*Project, error) {
	root, err := Find(dir)
	if err != nil {
		return nil, err
	}
	return openRoot(root, src, true)
}

func openRoot(root string, src Source, lenient bool) (*Project, error) {
	if src.Rev != "" && src.Staged {
		return nil, errors.New("--rev and --staged cannot be used together")
	}
	p := &Project{Root: root, Source: src, git: &lazyGit{}}
	var repo *git.Repo
	var rel string
	if src.Rev != "" || src.Staged {
		var err error
		if repo, rel, err = p.Git(); err != nil {
			return nil, err
		}
		if repo == nil {
			return nil, fmt.Errorf("read %s: %w", src, ErrNoGit)
		}
	}
	var err error
	switch {
	case src.Rev != "":
		fsys, c, err := repo.RevFS(src.Rev, rel)
		if err != nil {
			return nil, err
		}
		fi, err := fs.Stat(fsys, Dir)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			// A tree that cannot be read is damage, not absence.
			return nil, fmt.Errorf("read revision %s (%s): %w", src.Rev, c.Short, err)
		case err != nil || !fi.IsDir():
			// An empty view would pass every check and find no fact:
			// say plainly that the project did not exist yet.
			return nil, fmt.Errorf("read revision %s (%s): %w", src.Rev, c.Short, ErrNoProjectAtRev)
		}
		p.FS, p.Commit = confined.Bounded(fsys), c
	case src.Staged:
		idx, err := repo.ReadIndex()
		if err != nil {
			return nil, err
		}
		if err := p.onIndex(idx, rel); err != nil {
			return nil, err
		}
	default:
		if p.Files, err = confined.Open(root); err != nil {
			return nil, err
		}
		p.FS = p.Files.FS()
	}
	if err := p.loadConfig(lenient); err != nil {
		return nil, err
	}
	return p, nil
}

// onIndex makes idx, a reading of the index of the project's repository,
// the source p reads, its root being rel in the working tree.
func (p *Project) onIndex(idx *git.Index, rel string) error {
	// A merge in progress leaves the index stages 1 to 3 of a file in
	// conflict, none of which is what will be committed: reading one
	// would check a version nobody chose. The files of a linked .foundry
	// are staged where it leads.
	fsys := idx.FS(rel)
	u := idx.Unmerged(path.Join(rel, Dir))
	if real, err := git.RealPath(fsys, Dir); err == nil && real != Dir {
		u = append(u, idx.Unmerged(path.Join(rel, real))...)
	}
	if len(u) > 0 {
		shown := u
		if len(shown) > 3 {
			shown = append(slices.Clip(shown[:3]), fmt.Sprintf("and %d more", len(u)-3))
		}
		return fmt.Errorf("%w (%s): resolve the merge and stage the result (git add) first", ErrUnmerged, strings.Join(shown, ", "))
	}
	p.Index, p.FS = idx, confined.Bounded(fsys)
	return nil
}

// loadConfig reads p's config from its source; lenient gives the defaults
// for a config that does not load, as [OpenLenient] says.
func (p *Project) loadConfig(lenient bool) error {
	cfg, err := config.Load(p.FS)
	switch {
	case lenient && errors.Is(err, config.ErrInvalid):
		cfg = config.Default()
	case err != nil:
		return err
	}
	p.Config = cfg
	return nil
}

// String names the source for messages: "working tree", "index" or
// "HEAD~5 (abc1234)".
func (s Source) String() string {
	switch {
	case s.Rev != "":
		return "revision " + s.Rev
	case s.Staged:
		return "index"
	}
	return "working tree"
}

// Label names the opened source, with the resolved commit at a revision.
func (p *Project) Label() string {
	if p.Source.Rev != "" {
		return fmt.Sprintf("%s (%s)", p.Source.Rev, p.Commit.Short)
	}
	return p.Source.String()
}

// Writable reports whether writes may go to this project's disk.
func (p *Project) Writable() bool { return p.Source.Rev == "" && !p.Source.Staged }

// CheckWritable returns ErrReadOnly, naming the source, when the project was
// opened on a revision or the index.
func (p *Project) CheckWritable() error {
	if p.Writable() {
		return nil
	}
	return fmt.Errorf("cannot write to the %s: %w", p.Source, ErrReadOnly)
}

// Path joins slash-separated parts under the project root into an OS path.
func (p *Project) Path(slashPath string) string {
	return filepath.Join(p.Root, filepath.FromSlash(slashPath))
}
