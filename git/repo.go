package git

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/foundryhq/foundry/internal/confined"
	billy "github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	cfgformat "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// Repo is an open git repository together with its working tree root.
type Repo struct {
	// st is go-git's on-disk storage behind lazyStorage. Foundry opens it
	// through go-git's storage and plumbing packages, not its root package,
	// which links every transport (SSH, HTTP), OpenPGP and more into the
	// binary for nothing a reader uses: every process paid for their
	// start-up.
	st *lazyStorage
	// root is the absolute working tree root.
	root string
	// mu serialises object reads: go-git's storage caches are not safe for
	// concurrent use, and one Repo is shared by every request of a server.
	mu sync.Mutex
}

// Open finds the repository that holds dir, walking up as git does, and opens
// it. Linked worktrees (a .git file pointing into another repository) work.
// As in git, GIT_DIR names the git folder instead, and GIT_WORK_TREE (else
// core.worktree, else the current folder) the working tree.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository at %s: %w", dir, err)
	}
	st, top, err := openStorage(abs)
	if err != nil {
		if errors.Is(err, errNoRepository) {
			return nil, fmt.Errorf("open repository at %s: %w", dir, ErrNotRepository)
		}
		return nil, fmt.Errorf("open repository at %s: %w", dir, err)
	}
	root := top
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return &Repo{st: st, root: root}, nil
}

var (
	// errNoRepository means openStorage found no repository.
	errNoRepository = errors.New("repository does not exist")
	// errCommonDirMissing means a linked worktree's git folder names a
	// common folder (its commondir file) that does not exist.
	errCommonDirMissing = errors.New("repository's commondir path does not exist")
)

// openStorage finds the repository holding abs as git does (the folder
// GIT_DIR names, else walking up to a .git folder, or a .git file naming
// one; either way following its commondir) and opens its storage, keeping
// pack files open: by default go-git opens and closes the pack for every
// object it reads, which triples the cost of reading many small files at a
// revision. Objects are found through lazyStorage, which reads only the
// part of each pack index a lookup needs. top is the working tree root.
func openStorage(abs string) (st *lazyStorage, top string, err error) {
	env := os.Getenv("GIT_DIR")
	var gitdir string
	if env != "" {
		gitdir, err = filepath.Abs(env)
		if fi, serr := os.Stat(gitdir); err == nil && serr == nil && fi.Mode().IsRegular() {
			// A .git file, as a submodule or a linked worktree has: git
			// follows it.
			gitdir, err = readGitFile(filepath.Dir(gitdir), gitdir)
		}
	} else {
		gitdir, top, err = discover(abs)
	}
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(gitdir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", errNoRepository
		}
		return nil, "", err
	}
	var dot billy.Filesystem = osfs.New(gitdir)
	b, err := readPointerFile(filepath.Join(gitdir, "commondir"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	if common := strings.TrimSpace(string(b)); common != "" {
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		if _, err := os.Stat(common); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, "", fmt.Errorf("%w: %s", errCommonDirMissing, common)
			}
			return nil, "", err
		}
		dot = dotgit.NewRepositoryFilesystem(dot, osfs.New(common))
	}
	st = newLazyStorage(filesystem.NewStorageWithOptions(dot, cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true}))
	if _, err := st.Reference(plumbing.HEAD); err == plumbing.ErrReferenceNotFound {
		st.Close()
		return nil, "", errNoRepository
	}
	cfg, err := st.Config()
	if err == nil {
		err = verifyExtensions(cfg)
	}
	if err == nil && env != "" {
		top, err = workTree(gitdir, cfg)
	}
	if err != nil {
		st.Close()
		return nil, "", err
	}
	return st, top, nil
}

// workTree returns the working tree root of the repository whose git
// folder GIT_DIR names, as git finds it: GIT_WORK_TREE, else core.worktree
// (relative to the git folder), else the current folder.
func workTree(gitdir string, cfg *config.Config) (string, error) {
	if t := os.Getenv("GIT_WORK_TREE"); t != "" {
		return filepath.Abs(t)
	}
	if t := cfg.Core.Worktree; t != "" {
		if !filepath.IsAbs(t) {
			t = filepath.Join(gitdir, t)
		}
		return filepath.Clean(t), nil
	}
	return os.Getwd()
}

// discover finds the git folder of the repository holding abs as git does
// without GIT_DIR: walking up to a .git folder, or to a .git file naming
// one. top is the working tree root.
func discover(abs string) (gitdir, top string, err error) {
	top = abs
	var fi os.FileInfo
	for {
		if info, err := os.Stat(top); err == nil && !info.IsDir() {
			top = filepath.Dir(top) // a file: its folder is searched
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
		if fi, err = os.Stat(filepath.Join(top, gitDirName)); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
		parent := filepath.Dir(top)
		if parent == top {
			return "", "", errNoRepository
		}
		top = parent
	}
	gitdir = filepath.Join(top, gitDirName)
	if !fi.IsDir() {
		if gitdir, err = readGitFile(top, gitdir); err != nil {
			return "", "", err
		}
	}
	return gitdir, top, nil
}

// gitDirName is the name of a working tree's git folder (or file).
const gitDirName = ".git"

// readGitFile returns the folder a .git file at path names in its first
// line, "gitdir: PATH", relative to the working tree root top.
func readGitFile(top, path string) (string, error) {
	b, err := readPointerFile(path)
	if err != nil {
		return "", err
	}
	const prefix = "gitdir: "
	line, ok := strings.CutPrefix(string(b), prefix)
	if !ok {
		return "", fmt.Errorf(".git file has no %s prefix", prefix)
	}
	line, _, _ = strings.Cut(line, "\n")
	gitdir := strings.TrimSpace(line)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(top, gitdir)
	}
	return gitdir, nil
}

// Close releases the pack files the repository keeps open.
func (r *Repo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.Close()
}

// Merging reports whether the working tree is in a merge: git records the
// commit being merged in the git folder's MERGE_HEAD (the worktree's own,
// in a linked worktree) from a merge that stops, for a conflict or for the
// pre-merge-commit hook, or completes until its commit is made or the
// merge is aborted.
func (r *Repo) Merging() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.st.Filesystem().Lstat("MERGE_HEAD")
	return err == nil
}

// Root is the absolute path of the working tree root.
func (r *Repo) Root() string { return r.root }

// Rel returns dir relative to the working tree root in slash form ("" for the
// root itself). dir must lie inside the working tree.
func (r *Repo) Rel(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(r.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the working tree %s", dir, r.root)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// Commit describes one resolved commit.
type Commit struct {
	Hash    string // full hex hash
	Short   string // first 7 hex digits
	Subject string // first line of the message
	When    string // author date, YYYY-MM-DD
}

// Resolve turns a revision spec into a commit: a branch, tag or other ref,
// a full or abbreviated hash (as in git: a ref of that name wins over a
// hash it abbreviates; an abbreviation has at least four digits and names
// one commit or tag of one), HEAD or @, <ref>@{N} and @{N} (the value a ref
// or the current branch had N changes ago), @{-N} (the branch checked out
// before the N-th last switch), [<branch>]@{u} (its upstream), each
// followed by any number of ~N, ^N and ^{commit}. The reflogs and config are
// read natively, so the answer never depends on a git binary; other syntax
// (reflog dates, :/message, ^{/text}, REV:path) is an error wrapping
// [ErrUnsupportedRevision] that names it.
func (r *Repo) Resolve(rev string) (Commit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.resolveLocked(rev)
	if err != nil {
		return Commit{}, err
	}
	return describe(c), nil
}

func describe(c *object.Commit) Commit {
	h := c.Hash.String()
	subject, _, _ := strings.Cut(c.Message, "\n")
	return Commit{Hash: h, Short: h[:7], Subject: subject, When: c.Author.When.UTC().Format("2006-01-02")}
}

func (r *Repo) resolveLocked(rev string) (*object.Commit, error) {
	if rev == "" {
		return nil, fmt.Errorf("resolve revision: empty spec: %w", ErrRevisionNotFound)
	}
	return r.resolveSpec(rev)
}

func (r *Repo) shallow() bool {
	shallow, err := r.st.Shallow()
	return err == nil && len(shallow) > 0
}

// HasCommits reports whether HEAD points at a commit.
func (r *Repo) HasCommits() bool {
	_, err := r.head()
	return err == nil
}

// head resolves HEAD to the reference it ends at.
func (r *Repo) head() (*plumbing.Reference, error) {
	return storer.ResolveReference(r.st, plumbing.HEAD)
}

// commitObject reads the commit h.
func (r *Repo) commitObject(h plumbing.Hash) (*object.Commit, error) {
	return object.GetCommit(r.st, h)
}

// tagObject reads the annotated tag h.
func (r *Repo) tagObject(h plumbing.Hash) (*object.Tag, error) {
	return object.GetTag(r.st, h)
}

// readOnlyExtensions are the repository extensions (lower case) that change
// nothing for a reader of existing objects, the index and refs; go-git
// implements none of them, and worktreeConfig (set by git
// sparse-checkout) or partialClone (a clone with --filter) would otherwise
// make Foundry unusable in the whole repository.
var readOnlyExtensions = map[string]bool{"worktreeconfig": true, "partialclone": true, "preciousobjects": true, "noop": true, "noop-v1": true}

// ErrUnsupportedFormat marks a repository whose format changes how it is
// read, which Foundry does not implement: a format version above 1, or an
// extension such as objectFormat sha256 (objects named by SHA-256). Foundry
// reads the working tree of such a repository as outside git.
var ErrUnsupportedFormat = errors.New("repository format not supported")

// FormatError is the error of opening a repository whose format Foundry
// does not read; it matches [ErrUnsupportedFormat] for errors.Is.
type FormatError struct {
	Setting string // the config that says so, "extensions.objectformat = sha256"
}

func (e *FormatError) Error() string        { return ErrUnsupportedFormat.Error() + ": " + e.Setting }
func (e *FormatError) Is(target error) bool { return target == ErrUnsupportedFormat }

// verifyExtensions refuses a repository whose format version or extensions
// change how it is read, as go-git does when it opens one, except for
// readOnlyExtensions and an objectFormat that names the default, sha1, with
// a [FormatError] naming the setting.
func verifyExtensions(cfg *config.Config) error {
	switch v := cfg.Core.RepositoryFormatVersion; v {
	case "", cfgformat.Version_0, cfgformat.Version_1:
	default:
		return &FormatError{"core.repositoryformatversion = " + string(v)}
	}
	if cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return nil
	}
	var unknown []string
	for _, o := range cfg.Raw.Section("extensions").Options {
		key := strings.ToLower(o.Key)
		if key == "objectformat" && strings.EqualFold(o.Value, "sha1") || readOnlyExtensions[key] {
			continue
		}
		unknown = append(unknown, "extensions."+key+" = "+o.Value)
	}
	switch {
	case len(unknown) == 0:
	case cfg.Core.RepositoryFormatVersion == cfgformat.Version_1:
		return &FormatError{strings.Join(unknown, ", ")}
	default:
		// git reads a version 0 repository without its extensions; go-git
		// refuses it, and so does Foundry, reading objects with go-git.
		return &FormatError{strings.Join(unknown, ", ") + " in a repository of format version 0"}
	}
	return nil
}

// maxPointerBytes bounds the files of a repository that name another
// folder, a .git file and commondir: a path and a newline.
const maxPointerBytes = 64 << 10

// pointerLimit is maxPointerBytes as the limit a refusal names.
var pointerLimit = confined.Limit{Kind: "git folder pointer", Max: maxPointerBytes}

// readPointerFile reads a regular file of at most maxPointerBytes, its kind
// and size checked on the open file before a byte is read (see
// openRegular), and bounded while it is read, in case it grows meanwhile.
func readPointerFile(name string) ([]byte, error) {
	f, fi, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > maxPointerBytes {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &confined.TooLargeError{Path: name, Size: fi.Size(), Limit: pointerLimit}}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPointerBytes+1))
	if err == nil && len(b) > maxPointerBytes {
		err = &fs.PathError{Op: "read", Path: name, Err: &confined.TooLargeError{Path: name, Size: int64(len(b)), Limit: pointerLimit}}
	}
	return b, err
}

// openRegular opens the file name for reading and refuses it unless it is
// a regular file, checked on the open file: O_NONBLOCK keeps the open of a
// FIFO from waiting for a writer (it changes nothing for a regular file),
// and no other file can be swapped in between the check and the read.
func openRegular(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
