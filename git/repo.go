package git

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	billy "github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// Repo is an open git repository together with its working tree root.
type Repo struct {
	repo *gogit.Repository
	root string // absolute working tree root
	// mu serialises object reads: go-git's storage caches are not safe for
	// concurrent use, and one Repo is shared by every request of a server.
	mu sync.Mutex
}

// Open finds the repository that holds dir, walking up as git does, and opens
// it. Linked worktrees (a .git file pointing into another repository) work.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository at %s: %w", dir, err)
	}
	r, err := gogit.PlainOpenWithOptions(abs, &gogit.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, gogit.ErrUnknownExtension) || errors.Is(err, gogit.ErrUnsupportedExtensionRepositoryFormatVersion) {
		r, err = openWithExtensions(abs)
	}
	if err != nil {
		if errors.Is(err, gogit.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("open repository at %s: %w", dir, ErrNotRepository)
		}
		return nil, fmt.Errorf("open repository at %s: %w", dir, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open repository at %s: bare repositories are not supported: %w", dir, ErrNotRepository)
	}
	// Reopen the same storage keeping pack files open: by default go-git
	// opens and closes the pack for every object it reads, which triples the
	// cost of reading many small files at a revision.
	// Objects are then found through lazyStorage, which reads only the
	// part of each pack index a lookup needs.
	if st, ok := r.Storer.(*filesystem.Storage); ok {
		keep := filesystem.NewStorageWithOptions(st.Filesystem(), cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
		if r2, err := gogit.Open(newLazyStorage(keep), wt.Filesystem); err == nil {
			r = r2
		}
	}
	root := wt.Filesystem.Root()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return &Repo{repo: r, root: root}, nil
}

// Close releases the pack files the repository keeps open.
func (r *Repo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st, ok := r.repo.Storer.(interface{ Close() error }); ok {
		return st.Close()
	}
	return nil
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
// a full or abbreviated hash, HEAD or @, <ref>@{N} and @{N} (the value a ref
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
	shallow, err := r.repo.Storer.Shallow()
	return err == nil && len(shallow) > 0
}

// HasCommits reports whether HEAD points at a commit.
func (r *Repo) HasCommits() bool {
	_, err := r.repo.Head()
	return err == nil
}

// readOnlyExtensions are the repository extensions (lower case) that change
// nothing for a reader of existing objects, the index and refs: go-git
// refuses every extension it does not implement, and worktreeConfig (set by
// git sparse-checkout) or partialClone (a clone with --filter) would
// otherwise make Foundry unusable in the whole repository.
var readOnlyExtensions = map[string]bool{"worktreeconfig": true, "partialclone": true, "preciousobjects": true, "noop": true, "noop-v1": true}

// extStorage is a storage whose config hides readOnlyExtensions from
// go-git's check.
type extStorage struct{ storage.Storer }

// Config implements config.ConfigStorer.
func (s *extStorage) Config() (*config.Config, error) {
	cfg, err := s.Storer.Config()
	if err != nil || cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return cfg, err
	}
	sec := cfg.Raw.Section("extensions")
	opts := sec.Options[:0:0]
	for _, o := range sec.Options {
		key := strings.ToLower(o.Key)
		if key == "objectformat" && strings.EqualFold(o.Value, "sha1") {
			continue // the default, spelled out
		}
		if !readOnlyExtensions[key] {
			opts = append(opts, o)
		}
	}
	if len(opts) == 0 {
		cfg.Raw.RemoveSection("extensions")
	} else {
		sec.Options = opts
	}
	return cfg, nil
}

// Close releases what the wrapped storage keeps open.
func (s *extStorage) Close() error {
	if c, ok := s.Storer.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// Filesystem is the wrapped storage's .git folder.
func (s *extStorage) Filesystem() billy.Filesystem {
	return s.Storer.(interface{ Filesystem() billy.Filesystem }).Filesystem()
}

// openWithExtensions opens the repository holding abs as
// gogit.PlainOpenWithOptions does (walking up to .git, following a .git
// file and commondir), through extStorage over lazyStorage.
func openWithExtensions(abs string) (*gogit.Repository, error) {
	top := abs
	var fi os.FileInfo
	for {
		var err error
		if fi, err = os.Stat(filepath.Join(top, gogit.GitDirName)); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		parent := filepath.Dir(top)
		if parent == top {
			return nil, gogit.ErrRepositoryNotExists
		}
		top = parent
	}
	gitdir := filepath.Join(top, gogit.GitDirName)
	if !fi.IsDir() {
		b, err := os.ReadFile(gitdir)
		if err != nil {
			return nil, err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return nil, fmt.Errorf("%s has no gitdir: line", gitdir)
		}
		if p = strings.TrimSpace(p); !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		gitdir = p
	}
	var dot billy.Filesystem = osfs.New(gitdir)
	if b, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil && len(bytes.TrimSpace(b)) > 0 {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		dot = dotgit.NewRepositoryFilesystem(dot, osfs.New(common))
	}
	st := filesystem.NewStorageWithOptions(dot, cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	return gogit.Open(&extStorage{Storer: newLazyStorage(st)}, osfs.New(top))
}
