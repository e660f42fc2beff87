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
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/fileid"
	"github.com/foundryhq/foundry/internal/gcpace"
	"github.com/foundryhq/foundry/internal/hugepages"
	"github.com/foundryhq/foundry/tokens"
)

// Paths of the memory folder, relative to the project root (slash-separated,
// as fs.FS paths are).
const (
	Dir       = confined.MemoryDir
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
	// Watch makes a writable store learn changes to the memory folder from
	// file-system events instead of listing it on every call: for a
	// long-running process. Where events are unavailable the store says so
	// once on Warn and revalidates on every call. [Store.Close] stops it.
	Watch bool
	// Cache keeps the parsed and analysed facts of a working tree in
	// .foundry/cache/ between processes (see [CacheDir]), so a fresh
	// process need not parse every fact: whichever call first scans the
	// facts (a search, a list, a write) saves it when it is stale.
	Cache bool
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

	mu      sync.RWMutex           // held for reading only to rank; everything else changes the live state
	files   map[string]*cachedFile // by path
	links   map[string]bool        // fact files that are symbolic links or have other names (see sync)
	byID    map[string][]*entry    // parsed facts by id, sorted by path
	sorted  []*entry               // parsed facts by id number, then path
	supers  map[string][]*entry    // superseded id → facts that name it in supersedes
	pending map[string]bool        // ids whose derived status a change may have changed
	idx     *liveIndex             // built on first search, then kept current
	ixOrder *indexOrder            // built when INDEX.md is first rendered, then kept current
	ver     uint64                 // counts changes
	held    uint64                 // writes whose INDEX.md rendered ahead held (see indexAfter)
	snap    *snapshot              // built on demand for version snapVer
	snapVer uint64
	stems   map[string]string // word → stem memo; bounded by the vocabulary
	titles  map[string]*titleInfo
	nums    map[int]int // id number of each fact file (see fileNum) → files with it
	maxNum  int         // the highest key of nums; -1 when it must be recomputed
	byTitle *titleIndex // built when a write needs it, then kept current
	// dupVisits counts the postings the similar-title checks visited
	// before the title index was built (see nearDuplicates).
	dupVisits int
	// sizes measures the fact files of files that are regular files (see
	// cachedFile.regular), kept as each is set; odd holds the fact files
	// listed that are none (see FactFiles).
	sizes tokens.FactsCost
	odd   map[string]bool
	// The most entries links and odd held since they were last shrunk
	// (see shrunk): each is ranged over on calls that find it small.
	linksPeak, oddPeak int

	cache      *searchCache // the persisted cache, until the first scan
	listed     *dirListing  // the last scan's listing, when the folder had settled
	cacheTime  int64        // its modification time, ns
	cacheTried bool
	cacheDirty bool // the persisted cache is missing or stale
	lockers    int  // calls inside locked: a stale cache waits for them (see saveUnlocked)
	cacheSaved bool

	// early, set by rankFirst for the first scan, answers the first
	// search from the persisted cache's index once the scan has proved it
	// the live state as it stands, before the facts are linked.
	early func()

	w        watcher   // nil when not watching
	watchOff bool      // watching failed; revalidate on every call
	synced   bool      // the live state reflects one full scan at least
	bulk     *bulkLink // during a scan that starts from no facts
	// resync says that a sync failed after draining events it did not
	// all apply: they are spent, so the next sync scans the folder.
	resync bool

	// temps are the temp files of the memory folder as of the last sync:
	// its listing, then the events since. Any still there once the memory
	// lock is held were left by a killed writer, so a lock holder removes
	// them by name instead of listing a large folder.
	temps map[string]bool
	scans uint64 // counts syncs, so a lock holder knows temps is as of its lock

	// own maps the fact files a write of this store put in place, until
	// the write returns, to their identity then: the event of the rename
	// is recognised (see refresh) instead of read back.
	own map[string]fileKey

	rootOnce sync.Once
	wroot    *confined.Root // writes; opened on the first one
	wrootErr error
	mem      *confined.WriteFolder // the memory folder, held open from the first write on
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
	s := &Store{fsys: fsys, opts: opts, stems: map[string]string{}, titles: map[string]*titleInfo{}, temps: map[string]bool{}}
	s.clearLive()
	return s
}

// clearLive sets the live state as a store that has read nothing has it.
func (s *Store) clearLive() {
	s.files, s.byID, s.supers, s.pending, s.nums = map[string]*cachedFile{}, map[string][]*entry{}, map[string][]*entry{}, map[string]bool{}, map[int]int{}
	s.links, s.odd, s.sizes = map[string]bool{}, map[string]bool{}, tokens.FactsCost{}
	s.linksPeak, s.oddPeak = 0, 0
	s.sorted, s.idx, s.ixOrder, s.byTitle, s.bulk, s.snap = nil, nil, nil, nil, nil, nil
	s.maxNum, s.synced, s.early, s.cache, s.listed = 0, false, nil, nil, nil
}

// forget drops the live state (see clearLive): the next call lists the
// folder and reads every fact file again. The caller holds s.mu.
func (s *Store) forget() {
	s.clearLive()
	s.ver++
}

// Close stops watching the memory folder. A closed store still works; it
// revalidates by file identity on every call.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchOff = true
	if s.w == nil {
		return nil
	}
	err := s.w.close()
	s.w = nil
	return err
}

// OpenDir returns a writable store on the working tree at root.
func OpenDir(root string, opts Options) *Store {
	opts.Root = root
	return NewStore(confined.OpenFS(root), opts)
}

// Writable reports whether the store can write (it reads a working tree).
func (s *Store) Writable() bool { return s.opts.Root != "" }

func (s *Store) today() string { return s.opts.Now().Format(DateLayout) }

// fileKey identifies one version of a file without reading it.
type fileKey struct {
	size     int64
	mtime    int64
	ctime    int64 // 0 when unknown
	dev, ino uint64
	hash     string
}

// strong reports whether the key alone proves the content unchanged: an
// inode changes with every atomic rewrite, a blob hash with every edit.
func (k fileKey) strong() bool { return k.ino != 0 || k.hash != "" }

type hasher interface{ Hash() string }

// keyOf is the identity of the file fi describes, as listed: for a
// symbolic link, the link's own. That says nothing of the content read
// through it, nor of whether the link may still be followed (a folder on
// its way replaced by a link out of .foundry, a cache an older rule
// wrote), so a link's key is never strong: its file is read again on each
// scan, through the confinement that decides.
func keyOf(fi fs.FileInfo) fileKey {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	}
	if k, ok := fi.(interface{ key() fileKey }); ok { // listFacts's
		return k.key()
	}
	k := fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if h, ok := fi.(hasher); ok {
		k.hash = h.Hash()
	} else if h, ok := fi.Sys().(hasher); ok {
		k.hash = h.Hash()
	} else if dev, ino, ok := fileid.Inode(fi); ok {
		k.dev, k.ino, k.ctime = dev, ino, fileid.Ctime(fi)
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
	err     error             // parse error; the file is skipped
	// regular says that the file was a regular file when key was taken:
	// key.size is then its size, which Store.sizes counts. A symbolic
	// link's key is the link's own.
	regular bool
	// e is the parsed fact, linked into the live state while the file is
	// in Store.files; nil with err. The fact is kept there only, not
	// copied here as well: a memory of 10,000 facts is loaded in a fresh
	// process before its first answer, and every copy of it costs pages.
	e   *entry
	num int // see fileNum
}

// fileNum is the id number a fact file at p claims, 0 for none: the larger
// of the number in its name and its parsed id's, so that a new id is never
// one a file already uses in either place.
func fileNum(p string, c *cachedFile) int {
	n := max(0, fileNumber(path.Base(p)))
	if c.e != nil {
		n = max(n, c.e.idnum)
	}
	return n
}

// maxID returns the highest id number any fact file claims (see fileNum).
// The caller holds s.mu.
func (s *Store) maxID() int {
	if s.maxNum < 0 {
		s.maxNum = 0
		for n := range s.nums {
			s.maxNum = max(s.maxNum, n)
		}
	}
	return s.maxNum
}

// snapshot is the parsed state of the memory folder at one moment.
type snapshot struct {
	raw      []Fact           // as in the files, sorted by id number then path
	facts    []Fact           // raw with supersession derived from both ends of each link
	maxID    int              // highest id number among fact files, parsed or not
	problems []error          // parse errors of skipped files
	byID     map[string][]int // indexes into facts
}

// dirListing is a listing of the memory folder at one identity of the
// folder (size, modification and status-change times, device, inode): the
// names of its fact and temp files, sorted. Creating, removing or renaming
// a name in a folder sets both its times to the present, so a folder whose
// identity is the one recorded, taken before its names were read and
// modified long enough before then (fileid.RacyWindow, as for a fact file),
// holds the names read then: git's untracked cache trusts a folder's stat
// data the same way.
type dirListing struct {
	key   fileKey
	names []string
}

// isTempFile reports whether a base name is a temp file of an atomic
// write ([confined.TempPrefix]).
func isTempFile(name string) bool { return strings.HasPrefix(name, confined.TempPrefix) }

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

// load brings the live state up to date and returns the snapshot of it.
func (s *Store) load(ctx context.Context) (*snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	if s.snap == nil || s.snapVer != s.ver {
		s.snap, s.snapVer = s.buildSnapshot(), s.ver
	}
	return s.snap, nil
}

// sync brings the live state up to date; the caller holds s.mu. With a
// working watcher it re-reads only the files that events name (none, most
// of the time); otherwise, or when the events cannot be trusted, it lists
// the folder and re-reads the files whose identity changed. A scan that
// found the persisted cache stale saves it (see saveCache), whatever the
// call: a one-shot process that lists, shows or indexes the facts reads
// one file the next time, as one that searched does. ctx bounds the wait
// for the cache's lock.
func (s *Store) sync(ctx context.Context) error {
	defer s.settle()
	// A scan, or a burst of events, may fill what later calls range
	// over (see shrunk).
	defer func() {
		s.linksPeak = max(s.linksPeak, len(s.links))
		s.oddPeak = max(s.oddPeak, len(s.odd))
	}()
	s.scans++
	if s.opts.Watch && s.opts.Root != "" && s.w == nil && !s.watchOff {
		w, err := newWatcher(s.opts.Root)
		if err != nil {
			s.watchFailed(err)
		} else {
			s.w = w
			// A store dropped without Close gives its descriptor back.
			runtime.AddCleanup(s, func(w watcher) { _ = w.close() }, w)
		}
	}
	// A first scan puts the watches in place itself (see rescan).
	if s.w != nil && s.synced {
		paths, inPlace, temps, full, err := s.w.drain()
		for name, present := range temps {
			if present {
				s.temps[name] = true
			} else {
				delete(s.temps, name)
			}
		}
		switch {
		case err != nil:
			_ = s.w.close()
			s.w = nil
			s.watchFailed(err)
		case !full && !s.resync:
			for _, p := range paths {
				if err := s.refresh(p, inPlace[p]); err != nil {
					s.resync = true
					return err
				}
			}
			// What a link reads can change with no event here (its
			// target edited in another folder, a folder on its way
			// replaced), and so can a file with another name (a hard
			// link) written through that name: inotify tells only the
			// folder the file was reached through. They are read
			// again on every call, as a scan reads links. A content
			// unchanged changes nothing.
			s.links = shrunk(s.links, &s.linksPeak)
			for p := range s.links {
				if err := s.refresh(p, false); err != nil {
					s.resync = true
					return err
				}
			}
			return nil
		}
	}
	// A first search that may be answered early (s.early) pauses
	// collection for the whole build itself (see rankFirst): a pause here
	// would begin lingering when this returns, after that answer may have
	// been written and what lingered released, and so last until the
	// server's next message.
	if !s.synced && s.early == nil {
		defer gcpace.Linger(gcpace.Pause())
	}
	if err := s.rescan(); err != nil {
		// The events drained for this scan are spent: the next sync
		// scans again, whatever the watcher says then.
		s.resync = true
		return err
	}
	s.synced, s.resync = true, false
	// Saved here, within the pause of collection of a first scan: the
	// save builds the search index the cache holds.
	s.saveDue(ctx)
	return nil
}

// watchFailed turns watching off for good and says so once.
func (s *Store) watchFailed(err error) {
	s.watchOff = true
	fmt.Fprintf(s.opts.Warn, "warning: no file-system events for %s (%v); every request revalidates it\n", Dir, err)
}

// scanHeapPerByte is about how much a first scan grows the heap, collection
// paused, per byte of the fact files it parses: 77 MB from 3.6 MB of facts
// at 10,000 facts.
const scanHeapPerByte = 24

// rescan lists the memory folder and re-reads the files whose identity
// changed since they were read. A first load readies its heap in huge pages
// (see hugepages.Prepare) until it ends.
func (s *Store) rescan() error {
	var infos []fs.FileInfo
	var temps []string
	var err error
	// Until a scan has succeeded, the watches are put in place by the
	// watcher's drain just before the folder is listed, so that no change
	// after the listing goes unseen; the events it reads say nothing a
	// full scan does not. Where the listing runs alongside reading the
	// cache, so does this: on a folder of 10,000 files the kernel marks
	// each one's entry as watched.
	var armErr error
	arm := func() {
		if s.w != nil && !s.synced {
			_, _, _, _, armErr = s.w.drain()
		}
	}
	defer func() {
		if armErr != nil {
			_ = s.w.close()
			s.w = nil
			s.watchFailed(armErr)
		}
	}()
	if !s.cacheTried {
		// Listing waits on the kernel, decoding the cache and building
		// the live state from it on the processor: the first scan does
		// both at once. The cache's listing of the folder, when the
		// folder's identity proves it current, spares reading its names.
		s.cacheTried = true
		done := make(chan struct{})
		known := make(chan *dirListing, 1)
		same := make(chan bool, 1)
		var listed *dirListing
		go func() {
			defer close(done)
			arm()
			infos, temps, listed, err = s.listMemory(known, same)
		}()
		endHeap := s.loadCache(known)
		defer endHeap()
		if s.cache != nil && len(s.files) != 0 {
			s.cache = nil
		}
		// A folder that holds the names the cache lists is most likely
		// as the cache recorded it (an edit in place aside): a first
		// search that can be answered from the cache's index (s.early)
		// waits for the listing to prove that, is answered, and the live
		// state is built from the cache after the answer. Otherwise it
		// is built while the folder is still being listed.
		early := s.early != nil && s.cache != nil && s.cache.consistent && <-same
		if s.cache != nil && !early {
			s.prebuild(s.cache)
		}
		<-done
		s.listed = listed
		if early {
			if err == nil && s.whole(s.cache, infos) {
				s.warnWhole(s.cache)
				s.idx = s.cache.idx
				s.idx.memo = s.stems
				s.early()
			}
			s.prebuild(s.cache)
		}
	} else {
		arm()
		infos, temps, s.listed, err = s.listMemory(nil, nil)
	}
	cache := s.cache
	s.cache = nil
	if cache != nil {
		// The prebuilt records stay unsettled when the listing failed:
		// the next scan reads them.
		defer s.endBulk()
	}
	if err != nil {
		return err
	}
	clear(s.temps)
	for _, name := range temps {
		s.temps[name] = true
	}
	clear(s.odd)
	for _, info := range infos {
		if !info.IsDir() && !info.Mode().IsRegular() {
			s.odd[Dir+"/"+info.Name()] = true
		}
	}
	if cache != nil {
		// A cache without a usable listing is rewritten with one.
		if s.reconcile(cache, infos) && (s.listed == nil || cache.listed != nil && cache.listed.key == s.listed.key) {
			s.cacheDirty = false
		}
		return nil
	}
	// What was known and is not listed any more is removed; the first
	// scan knows nothing, and need not keep track.
	var seen map[string]bool
	if len(s.files) == 0 {
		var size int64
		for _, info := range infos {
			size += min(max(0, info.Size()), hugepages.MaxBytes)
		}
		defer hugepages.Prepare(scanHeapPerByte * size)()
		s.bulk = &bulkLink{}
		defer s.endBulk()
	} else {
		seen = make(map[string]bool, len(infos))
	}
	for _, info := range infos {
		if info.IsDir() {
			continue
		}
		p := Dir + "/" + info.Name()
		if seen != nil {
			seen[p] = true
		}
		if !s.revalidate(p, info, false) {
			delete(seen, p)
		}
	}
	if seen == nil {
		return nil
	}
	for p := range s.files {
		if !seen[p] {
			s.setFile(p, nil)
		}
	}
	return nil
}

// listMemory returns the fact files of the memory folder with their
// lstat, sorted by name, and the names of its temp files; nothing when the
// folder does not exist. A working tree is listed by listFacts where it can
// be, known, same and the listing returned as listFacts takes and returns
// them; anything else through the store's fs.FS.
func (s *Store) listMemory(known <-chan *dirListing, same chan<- bool) ([]fs.FileInfo, []string, *dirListing, error) {
	if same != nil {
		// The cache's listing was not held against the folder: say so,
		// unless listFacts has.
		defer func() {
			select {
			case same <- false:
			default:
			}
		}()
	}
	infos, temps, listed, ok, err := s.listFacts(known, same)
	if ok {
		if err != nil {
			return nil, nil, nil, fmt.Errorf("read %s: %w", Dir, err)
		}
		return infos, temps, listed, nil
	}
	entries, err := fs.ReadDir(s.fsys, Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, fmt.Errorf("read %s: %w", Dir, err)
	}
	infos = make([]fs.FileInfo, 0, len(entries))
	for _, e := range entries {
		if isTempFile(e.Name()) {
			temps = append(temps, e.Name())
		}
		if !isFactFile(e.Name()) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("stat %s: %w", path.Join(Dir, e.Name()), err)
		}
		infos = append(infos, info)
	}
	return infos, temps, nil, nil
}

// refresh re-reads the one fact file at p, which an event named; inPlace
// says that an event wrote it in place. A file that a write of this store
// renamed into place is not read back when the events say only that it
// was renamed there and it is still the same file (see Store.own): nobody
// wrote it since, so it holds what the write recorded.
func (s *Store) refresh(p string, inPlace bool) error {
	info, err := fs.Lstat(s.fsys, p)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && info.IsDir():
		delete(s.links, p)
		delete(s.odd, p)
		if s.files[p] != nil {
			s.setFile(p, nil)
		}
		return nil
	case err != nil:
		return fmt.Errorf("stat %s: %w", p, err)
	}
	if info.Mode().IsRegular() {
		delete(s.odd, p)
	} else {
		s.odd[p] = true
	}
	if key, ok := s.own[p]; ok {
		delete(s.own, p)
		if c := s.files[p]; !inPlace && c != nil && c.key == key && keyOf(info) == key {
			return nil
		}
	}
	if !s.revalidate(p, info, true) && s.files[p] != nil {
		s.setFile(p, nil)
	}
	return nil
}

// revalidate re-reads the file at p unless its identity proves the cached
// parse current (always, with force). It reports false when the file is
// gone.
func (s *Store) revalidate(p string, info fs.FileInfo, force bool) bool {
	key, regular := keyOf(info), info.Mode().IsRegular()
	if unseen(info) {
		s.links[p] = true
	} else {
		delete(s.links, p)
	}
	c := s.files[p]
	if !force && c != nil && key.strong() && c.key == key && c.regular == regular && (c.settled || key.hash != "") {
		return true
	}
	data, err := fs.ReadFile(s.fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		// One unreadable file is skipped with a warning, like a
		// malformed one, and tried again on the next load.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		nc := &cachedFile{key: key, regular: regular, err: &ParseError{Path: p, Msg: "cannot be read: " + err.Error()}}
		if c == nil || c.err == nil || c.err.Error() != nc.err.Error() {
			s.warnSkip(nc.err)
			s.setFile(p, nc)
		} else {
			s.rekey(c, key, regular)
		}
		return true
	}
	sum := sha256.Sum256(data)
	settled := time.Since(info.ModTime()) > fileid.RacyWindow
	if c != nil && c.sum == sum {
		s.rekey(c, key, regular)
		c.settled = settled
		return true
	}
	nc := &cachedFile{key: key, sum: sum, settled: settled, regular: regular}
	f, err := parseOwned(p, data)
	nc.setParsed(p, f, err)
	if nc.err != nil {
		if c == nil || c.sum != sum {
			s.warnSkip(nc.err)
		}
	}
	s.setFile(p, nc)
	return true
}

// unseen reports whether the fact file info describes can change with no
// event in the memory folder: a symbolic link, or a file with other names.
func unseen(info fs.FileInfo) bool {
	return info.Mode()&fs.ModeSymlink != 0 || info.Mode().IsRegular() && linkCount(info) > 1
}

// warnSkip says on Options.Warn that a fact file is skipped, and why.
func (s *Store) warnSkip(err error) {
	fmt.Fprintf(s.opts.Warn, "warning: skip fact file %v\n", err)
}

// setParsed records the outcome of parsing the fact file at p.
func (c *cachedFile) setParsed(p string, f Fact, err error) {
	if c.err = err; err == nil {
		f.Path = p
		c.e = newEntry(f)
	}
}

// setFile records the new state of the fact file at p, nil when it is gone.
func (s *Store) setFile(p string, c *cachedFile) {
	if old := s.files[p]; old != nil {
		s.count(old, -1)
		if old.e != nil {
			s.unlinkEntry(old.e)
		}
		if s.nums[old.num]--; s.nums[old.num] <= 0 {
			delete(s.nums, old.num)
			if old.num == s.maxNum {
				s.maxNum = -1
			}
		}
	}
	if c == nil {
		// A link stays in s.links while it is listed, even when what it
		// leads to is gone: its target may come back unannounced.
		delete(s.files, p)
	} else {
		s.files[p] = c
		s.count(c, 1)
		c.num = fileNum(p, c)
		s.nums[c.num]++
		if s.maxNum >= 0 && c.num > s.maxNum {
			s.maxNum = c.num
		}
		if c.e != nil {
			s.linkEntry(c.e)
		}
	}
	s.ver++
}

// buildSnapshot copies the live state, which keeps the facts sorted and
// their status derived, into an immutable snapshot.
func (s *Store) buildSnapshot() *snapshot {
	snap := &snapshot{byID: make(map[string][]int, len(s.sorted)), raw: make([]Fact, len(s.sorted)), facts: make([]Fact, len(s.sorted)), maxID: s.maxID()}
	for _, c := range s.files {
		if c.err != nil {
			snap.problems = append(snap.problems, c.err)
		}
	}
	sort.Slice(snap.problems, func(i, j int) bool { return snap.problems[i].Error() < snap.problems[j].Error() })
	for i, e := range s.sorted {
		snap.raw[i], snap.facts[i] = e.raw, e.fact()
	}
	for i, f := range snap.facts {
		snap.byID[f.ID] = append(snap.byID[f.ID], i)
	}
	return snap
}

// isActive reports whether f is loaded: not superseded and not expired.
func isActive(f Fact, today string) bool { return f.current() && !f.Expired(today) }

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
	all, err := s.GetAll(ctx, id)
	if err != nil {
		return Fact{}, err
	}
	return all[0], nil
}

// GetAll returns every fact with the id, sorted by path: more than one
// only when fact files disagree on it (a merge of two branches that each
// wrote one, which doctor reports and doctor --fix renumbers).
func (s *Store) GetAll(ctx context.Context, id string) ([]Fact, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	list := s.byID[id]
	if len(list) == 0 {
		return nil, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	all := make([]Fact, len(list))
	for i, e := range list {
		all[i] = e.fact()
	}
	return all, nil
}

// ListOptions narrow [Store.List].
type ListOptions struct {
	Type Type // only this type; empty for all
	All  bool // include superseded, retired and expired facts
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
	case f.Status == Retired && f.RetiredReason != "":
		line += " · retired: " + f.RetiredReason
	case f.Status == Retired:
		line += " · retired"
	case f.Expired(today):
		line += " · expired " + f.Expires
	}
	return line
}

// root returns the project root that writes go through, opened on first
// use.
func (s *Store) root() (*confined.Root, error) {
	s.rootOnce.Do(func() { s.wroot, s.wrootErr = confined.Open(s.opts.Root) })
	return s.wroot, s.wrootErr
}

// osPath turns a slash path relative to the project root into a path on disk.
func (s *Store) osPath(p string) string { return filepath.Join(s.opts.Root, filepath.FromSlash(p)) }

// Today returns the store clock's date, YYYY-MM-DD: the day against which
// expiry is decided.
func (s *Store) Today() string { return s.today() }
