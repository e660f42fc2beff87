package facts

// This file defines the Store: reading facts through an fs.FS with a cache
// that is revalidated cheaply on every call.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Paths of the memory folder, relative to the project root (slash-separated,
// as fs.FS paths are).
const (
	Dir       = ".foundry/memory"
	IndexPath = Dir + "/INDEX.md"
	LockPath  = Dir + "/.lock"
)

// Options configure a [Store].
type Options struct {
	// Root is the project root on disk. Writes are possible only when it is
	// set, and then the store's fs.FS must read the same folder (see
	// [OpenDir]). Leave it empty for a revision or the git index.
	Root string
	// Warn receives one line per fact file skipped as malformed, naming the
	// file and line. Nil discards warnings.
	Warn io.Writer
	// Now is the clock: it dates new facts and decides expiry. Nil means
	// time.Now.
	Now func() time.Time
	// IndexBudget is the token budget of INDEX.md (config
	// memory.indexBudgetTokens); 0 means [DefaultIndexBudget].
	IndexBudget int
	// SearchLimit is the number of hits of a [Query] without a Limit
	// (config memoryRetrieval.maxFacts); 0 means [DefaultLimit].
	SearchLimit int
	// Events, when set, records a memory_search event per search and a
	// memory_write event per fact created.
	Events Recorder
}

// Store reads, searches and writes the facts of one project. It caches parsed
// facts and checks on every call, by file identity, that they are current:
// size, modification time and inode in the working tree, the blob hash in git
// views (a FileInfo with a Hash() string method), size, modification time and
// a content digest otherwise. A fact written by another process is therefore
// seen on the next call. A Store is safe for concurrent use.
type Store struct {
	fsys fs.FS
	opts Options

	mu    sync.Mutex
	files map[string]*cachedFile // by path
	snap  *snapshot
	stems map[string]string // word → stem memo; bounded by the vocabulary
}

// NewStore returns a store reading through fsys, which is rooted at the
// project root.
func NewStore(fsys fs.FS, opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IndexBudget <= 0 {
		opts.IndexBudget = DefaultIndexBudget
	}
	if opts.SearchLimit <= 0 || opts.SearchLimit > MaxLimit {
		opts.SearchLimit = DefaultLimit
	}
	if opts.Warn == nil {
		opts.Warn = io.Discard
	}
	return &Store{fsys: fsys, opts: opts, files: map[string]*cachedFile{}, stems: map[string]string{}}
}

// OpenDir returns a writable store on the working tree at root.
func OpenDir(root string, opts Options) *Store {
	opts.Root = root
	return NewStore(os.DirFS(root), opts)
}

// Writable reports whether the store can write (it reads a working tree).
func (s *Store) Writable() bool { return s.opts.Root != "" }

func (s *Store) today() string { return s.opts.Now().Format(DateLayout) }

// fileKey identifies one version of a file without reading it.
type fileKey struct {
	size     int64
	mtime    int64
	dev, ino uint64
	hash     string
}

// strong reports whether the key alone proves the content unchanged: an
// inode changes with every atomic rewrite, a blob hash with every edit.
func (k fileKey) strong() bool { return k.ino != 0 || k.hash != "" }

// racyWindow is how long after its modification a file's identity is
// trusted without reading it: longer than any file system's timestamp
// granularity.
const racyWindow = 2 * time.Second

type hasher interface{ Hash() string }

func keyOf(fi fs.FileInfo) fileKey {
	k := fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if h, ok := fi.(hasher); ok {
		k.hash = h.Hash()
	} else if h, ok := fi.Sys().(hasher); ok {
		k.hash = h.Hash()
	} else if dev, ino, ok := inode(fi); ok {
		k.dev, k.ino = dev, ino
	}
	return k
}

type cachedFile struct {
	key fileKey
	// settled is true when the file's modification time lay well before the
	// moment it was read, so an edit in the same clock tick (same size,
	// same mtime, same inode) cannot have gone unnoticed. Unsettled entries
	// are checked against their content digest, as git treats racily clean
	// files.
	settled bool
	sum     [sha256.Size]byte // content digest, used when key is weak
	fact    Fact
	err     error // parse error; the file is skipped
}

// snapshot is the parsed state of the memory folder at one moment.
type snapshot struct {
	raw      []Fact           // as in the files, sorted by id number then path
	facts    []Fact           // raw with supersession derived from both ends of each link
	maxID    int              // highest id number among fact files, parsed or not
	search   *searchIndex     // built on first search
	problems []error          // parse errors of skipped files
	byID     map[string][]int // indexes into facts
}

// isFactFile reports whether a base name is a fact file: fact-*.md, not a
// temporary file.
func isFactFile(name string) bool {
	return strings.HasPrefix(name, "fact-") && strings.HasSuffix(name, ".md")
}

// fileNumber returns the id number in a fact file name, or -1.
func fileNumber(name string) int {
	rest := strings.TrimPrefix(name, "fact-")
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i < 4 {
		return -1
	}
	return IDNumber("fact-" + rest[:i])
}

// load returns the current snapshot, re-reading only files whose identity
// changed since the last call.
func (s *Store) load(ctx context.Context) (*snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := fs.ReadDir(s.fsys, Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", Dir, err)
	}
	changed := s.snap == nil
	seen := make(map[string]bool, len(entries))
	maxID := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isFactFile(name) {
			continue
		}
		if n := fileNumber(name); n > maxID {
			maxID = n
		}
		p := path.Join(Dir, name)
		seen[p] = true
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			delete(seen, p) // removed since the listing
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", p, err)
		}
		key := keyOf(info)
		c := s.files[p]
		if c != nil && key.strong() && c.key == key && (c.settled || key.hash != "") {
			continue
		}
		data, err := fs.ReadFile(s.fsys, p)
		if errors.Is(err, fs.ErrNotExist) {
			delete(seen, p)
			continue
		}
		if err != nil {
			// One unreadable file is skipped with a warning, like a
			// malformed one, and tried again on the next load.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			nc := &cachedFile{key: key, err: &ParseError{Path: p, Msg: "cannot be read: " + err.Error()}}
			if c == nil || c.err == nil || c.err.Error() != nc.err.Error() {
				fmt.Fprintf(s.opts.Warn, "warning: skip fact file %v\n", nc.err)
				changed = true
			}
			s.files[p] = nc
			continue
		}
		sum := sha256.Sum256(data)
		settled := time.Since(info.ModTime()) > racyWindow
		if c != nil && c.sum == sum {
			c.key, c.settled = key, settled
			continue
		}
		nc := &cachedFile{key: key, sum: sum, settled: settled}
		nc.fact, nc.err = Parse(p, data)
		nc.fact.Path = p
		if nc.err != nil {
			fmt.Fprintf(s.opts.Warn, "warning: skip fact file %v\n", nc.err)
		}
		s.files[p] = nc
		changed = true
	}
	for p := range s.files {
		if !seen[p] {
			delete(s.files, p)
			changed = true
		}
	}
	if !changed {
		return s.snap, nil
	}
	s.snap = s.buildSnapshot(maxID)
	return s.snap, nil
}

func (s *Store) buildSnapshot(maxID int) *snapshot {
	snap := &snapshot{maxID: maxID, byID: map[string][]int{}}
	for _, c := range s.files {
		if c.err != nil {
			snap.problems = append(snap.problems, c.err)
			continue
		}
		snap.raw = append(snap.raw, c.fact)
	}
	sortFacts(snap.raw)
	sort.Slice(snap.problems, func(i, j int) bool { return snap.problems[i].Error() < snap.problems[j].Error() })
	snap.facts = deriveStatus(snap.raw)
	for i, f := range snap.facts {
		snap.byID[f.ID] = append(snap.byID[f.ID], i)
		if n := IDNumber(f.ID); n > snap.maxID {
			snap.maxID = n
		}
	}
	return snap
}

func sortFacts(fs []Fact) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := IDNumber(fs[i].ID), IDNumber(fs[j].ID)
		if a != b {
			return a < b
		}
		return fs[i].Path < fs[j].Path
	})
}

// deriveStatus returns copies of facts in which a fact is superseded when its
// own file says so or when another fact names it in supersedes. Reading both
// ends of the link keeps memory consistent even if a writer died between
// writing a new fact and marking the old one.
func deriveStatus(raw []Fact) []Fact {
	by := map[string]string{} // superseded id → superseding id
	for _, f := range raw {
		if f.Supersedes != "" && f.Supersedes != f.ID {
			if _, ok := by[f.Supersedes]; !ok {
				by[f.Supersedes] = f.ID
			}
		}
	}
	out := make([]Fact, len(raw))
	for i, f := range raw {
		if f.Status == "" {
			f.Status = Active
		}
		if f.SupersededBy != "" {
			f.Status = Superseded
		}
		if newer, ok := by[f.ID]; ok {
			f.Status = Superseded
			if f.SupersededBy == "" {
				f.SupersededBy = newer
			}
		}
		out[i] = f
	}
	return out
}

// isActive reports whether f is loaded: not superseded and not expired.
func isActive(f Fact, today string) bool { return f.Status != Superseded && !f.Expired(today) }

// Facts returns every readable fact, sorted by id, with supersession derived
// from both ends of each link. Malformed files are skipped (and were reported
// to Options.Warn when first read); [Store.Problems] lists them.
func (s *Store) Facts(ctx context.Context) ([]Fact, error) {
	snap, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	return append([]Fact(nil), snap.facts...), nil
}

// RawFacts returns the facts exactly as their files state them (no derived
// status), sorted by id. Doctor checks and repairs these.
func (s *Store) RawFacts(ctx context.Context) ([]Fact, error) {
	snap, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	return append([]Fact(nil), snap.raw...), nil
}

// Problems returns the parse errors of the fact files that were skipped, each
// a *[ParseError] naming the file and line.
func (s *Store) Problems(ctx context.Context) ([]error, error) {
	snap, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	return append([]error(nil), snap.problems...), nil
}

// Get returns the fact with the given id, or an error matching [ErrNotFound].
// When a merge left two facts with one id, the first by file name is
// returned.
func (s *Store) Get(ctx context.Context, id string) (Fact, error) {
	snap, err := s.load(ctx)
	if err != nil {
		return Fact{}, err
	}
	if ix := snap.byID[id]; len(ix) > 0 {
		return snap.facts[ix[0]], nil
	}
	return Fact{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
}

// ListOptions narrow [Store.List].
type ListOptions struct {
	Type Type // only this type; empty for all
	All  bool // include superseded and expired facts
}

// List returns facts sorted by id: the active ones, or all with All.
func (s *Store) List(ctx context.Context, opts ListOptions) ([]Fact, error) {
	if opts.Type != "" && !opts.Type.Valid() {
		return nil, ruleErr("type", "unknown type %q; use one of %s", opts.Type, typeList)
	}
	snap, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	today := s.today()
	var out []Fact
	for _, f := range snap.facts {
		if (opts.Type == "" || f.Type == opts.Type) && (opts.All || isActive(f, today)) {
			out = append(out, f)
		}
	}
	return out, nil
}

// ActiveCount returns the number of active facts.
func (s *Store) ActiveCount(ctx context.Context) (int, error) {
	fs, err := s.List(ctx, ListOptions{})
	return len(fs), err
}

// ListLine renders one fact as a line of `foundry memory list`:
// "fact-0004 · decision · high · 2025-03-14 · Title", followed by its state
// when it is not active.
func ListLine(f Fact, today string) string {
	line := strings.TrimPrefix(indexLine(f), "- ")
	switch {
	case f.Status == Superseded && f.SupersededBy != "":
		line += " · superseded by " + f.SupersededBy
	case f.Status == Superseded:
		line += " · superseded"
	case f.Expired(today):
		line += " · expired " + f.Expires
	}
	return line
}

// osPath turns a slash path relative to the project root into a path on disk.
func (s *Store) osPath(p string) string { return filepath.Join(s.opts.Root, filepath.FromSlash(p)) }

// Today returns the store clock's date, YYYY-MM-DD: the day against which
// expiry is decided.
func (s *Store) Today() string { return s.today() }
