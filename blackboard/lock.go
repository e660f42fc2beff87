package blackboard

// This file defines the contracts lock: .foundry/contracts.lock/<id> holds
// the content hash of the contract the project's first artifact under <id>
// was accepted under.

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/lazyre"
)

// LockDir holds one file per contract id, relative to the project root.
// It is committed: one small file per id merges without conflicts.
const LockDir = ".foundry/contracts.lock"

var digestPattern = lazyre.New(`^sha256:[0-9a-f]{64}$`)

// Lock is one entry of the contracts lock.
type Lock struct {
	ID     string `json:"id"`     // contract id, e.g. finding.v1
	Digest string `json:"digest"` // "sha256:<hex>" of the schema file content
	Path   string `json:"path"`   // project-relative, slash form
	// Problem says why the file does not hold a digest (then Digest is
	// its trimmed content) or why its name is not a contract id.
	Problem string `json:"problem,omitempty"`
}

// ReadLocks returns the contracts lock of the project in fsys (rooted at
// the project root, any source), sorted by id. A missing folder is an empty
// lock. Malformed entries are returned with a Problem, not dropped, so the
// doctor can report them.
func ReadLocks(fsys fs.FS) ([]Lock, error) {
	entries, err := fs.ReadDir(fsys, LockDir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Lock{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read contracts lock: %w", err)
	}
	locks := []Lock{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		l := Lock{ID: name, Path: path.Join(LockDir, name)}
		data, err := fs.ReadFile(fsys, l.Path)
		if err != nil {
			return nil, fmt.Errorf("read contracts lock: %w", err)
		}
		l.Digest = strings.TrimSpace(string(data))
		switch {
		case !contracts.ValidID(name):
			l.Problem = "the file name is not a contract id"
		case !digestPattern().MatchString(l.Digest):
			l.Problem = `the content is not a digest of the form "sha256:<64 hex digits>"`
		}
		locks = append(locks, l)
	}
	slices.SortFunc(locks, func(a, b Lock) int { return strings.Compare(a.ID, b.ID) })
	return locks, nil
}

// writeLock records digest for contract id unless a lock for id exists:
// the first accepted artifact decides. Concurrent writers race safely,
// exactly one creates the file. created says whether this call created it
// (so a write that fails afterwards can take it back).
func writeLock(root *confined.Root, id, digest string) (created bool, err error) {
	if !contracts.ValidID(id) {
		return false, fmt.Errorf("lock contract %q: not a contract id", id)
	}
	if err := root.MkdirAll(LockDir); err != nil {
		return false, fmt.Errorf("lock contract %s: %w", id, err)
	}
	p := LockDir + "/" + id
	if _, err := fs.Stat(root.FS(), p); err == nil {
		return false, nil
	}
	err = root.WriteNew(p, []byte(digest+"\n"), 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock contract %s: %w", id, err)
	}
	return true, nil
}
