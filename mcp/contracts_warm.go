// This file defines warmContracts: the project's contracts kept for the
// life of a server, loaded again only when .foundry/schemas/ changes, so
// that a call reuses the contracts an earlier one compiled.

package mcp

import (
	"errors"
	"io/fs"
	"path"
	"sync"
	"time"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/fileid"
	"github.com/foundryhq/foundry/project"
)

// warmContracts is the registry of a project's contracts, kept between
// calls. Each call lists .foundry/schemas/ and stats the schema files in
// it (no read, no parse); when the folder and every file keep the
// identity they had when the kept registry was loaded, and none had
// changed within fileid.RacyWindow of that load, the kept registry is returned,
// with the contracts it compiled. A source that never changes (a
// revision, the index) is loaded once. It is safe for concurrent use.
type warmContracts struct {
	fsys  fs.FS
	fixed bool             // the source never changes
	now   func() time.Time // the clock of the racy rule

	mu    sync.Mutex
	kept  *keptContracts // nil before the first load
	loads int            // how many times the registry was loaded (tests read it)
}

// keptContracts is a registry and the identity of the files it was loaded
// from; an identity that is unsure proves nothing, and the next call loads
// again (see [schemasIdentity.equal]).
type keptContracts struct {
	reg *contracts.Registry
	ids schemasIdentity
}

// schemasIdentity is what a listing of .foundry/schemas/ saw: the folder's
// own identity and that of each schema file Load reads, by name.
type schemasIdentity struct {
	dir   fileIdentity // zero when the folder is missing
	files map[string]fileIdentity
	// unsure: some file could not be stat'ed, or changed within
	// fileid.RacyWindow of the listing.
	unsure bool
}

// fileIdentity identifies a version of a file without reading it.
type fileIdentity struct {
	mode         fs.FileMode
	size         int64
	mtime, ctime int64 // nanoseconds; ctime 0 where not known
	dev, ino     uint64
}

func newWarmContracts(p *project.Project) *warmContracts {
	return &warmContracts{fsys: p.FS, fixed: !p.Writable(), now: time.Now}
}

// get returns the project's contracts as of now.
func (w *warmContracts) get() (*contracts.Registry, error) {
	if w.fixed {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.kept == nil {
			reg, err := w.load()
			if err != nil {
				return nil, err
			}
			w.kept = &keptContracts{reg: reg}
		}
		return w.kept.reg, nil
	}
	// The identity is taken before the load reads anything: a file that
	// changes after it then differs from the identity kept.
	ids, err := w.identify(w.now())
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		// Load reports what cannot be listed in its own words.
		w.kept = nil
		return w.load()
	}
	if k := w.kept; k != nil && k.ids.equal(ids) {
		return k.reg, nil
	}
	reg, err := w.load()
	if err != nil {
		w.kept = nil
		return nil, err
	}
	w.kept = &keptContracts{reg: reg, ids: ids}
	return reg, nil
}

// load loads the registry; w.mu is held.
func (w *warmContracts) load() (*contracts.Registry, error) {
	w.loads++
	return contracts.Load(w.fsys)
}

// identify lists .foundry/schemas/ through the project's confined FS and
// stats the files contracts.Load would read, following a link as Load's
// read does: in a working tree, each relative to the folder, opened once.
// now is the time of the listing, for the racy rule.
func (w *warmContracts) identify(now time.Time) (schemasIdentity, error) {
	cutoff := now.Add(-fileid.RacyWindow).UnixNano()
	var ids schemasIdentity
	folder, dir := w.fsys, contracts.LocalDir
	if fo := confined.FolderOf(w.fsys, dir); fo != nil {
		defer fo.Close()
		folder, dir = fo, "."
	}
	fi, err := fs.Stat(folder, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ids, nil // Load finds no local contract either
	case err != nil:
		return ids, err
	}
	ids.dir = identityOf(fi)
	if ids.dir.recent(cutoff) {
		ids.unsure = true
	}
	des, err := fs.ReadDir(w.fsys, contracts.LocalDir)
	if errors.Is(err, fs.ErrNotExist) {
		// Removed since its stat: the next call sees another folder.
		ids.unsure = true
		return ids, nil
	}
	if err != nil {
		return ids, err
	}
	ids.files = make(map[string]fileIdentity, len(des))
	for _, de := range des {
		name := de.Name()
		if !contracts.IsLocalFile(name) {
			continue // Load does not read it
		}
		fi, err := fs.Stat(folder, path.Join(dir, name))
		if err != nil {
			// Gone since the listing, a link out of the project: Load
			// decides, and the next call looks again.
			ids.unsure = true
			continue
		}
		id := identityOf(fi)
		if id.recent(cutoff) {
			ids.unsure = true
		}
		ids.files[name] = id
	}
	return ids, nil
}

func identityOf(fi fs.FileInfo) fileIdentity {
	id := fileIdentity{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	id.ctime = fileid.Ctime(fi)
	id.dev, id.ino, _ = fileid.Inode(fi)
	return id
}

// recent reports whether the file changed at or after cutoff. Its
// status-change time counts too: it is taken from a coarse clock (a
// jiffy on Linux), and unlike the modification time no tool sets it
// back, so an edit that restores the size and modification time is
// caught by it once the window has passed.
func (id fileIdentity) recent(cutoff int64) bool {
	return id.mtime >= cutoff || id.ctime >= cutoff
}

func (a schemasIdentity) equal(b schemasIdentity) bool {
	if a.unsure || b.unsure || a.dir != b.dir || len(a.files) != len(b.files) {
		return false
	}
	for name, id := range a.files {
		if bid, ok := b.files[name]; !ok || bid != id {
			return false
		}
	}
	return true
}

// boardContracts returns how a blackboard of the server gets its
// contracts: from w, when a read or write first needs them.
func (w *warmContracts) boardContracts() func() (blackboard.Contracts, error) {
	return func() (blackboard.Contracts, error) {
		reg, err := w.get()
		if err != nil {
			return nil, err
		}
		return reg, nil
	}
}
