// This file defines the check for git conflict markers in every file under
// .foundry/.

package doctor

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/atomicfile"
	"github.com/foundryhq/foundry/internal/conflict"
	"github.com/foundryhq/foundry/project"
)

// maxConflictScan bounds the files the conflict check reads: a larger file
// under .foundry/ is no file foundry writes.
const maxConflictScan = artifacts.MaxBytes

// skipConflictScan reports whether a path under .foundry/ is left to
// another pass (blackboard artifacts, which the sweep reads) or is no project
// content (the gitignored event log and search cache, locks, temporary
// files).
func skipConflictScan(p string, d fs.DirEntry) bool {
	name := d.Name()
	if d.IsDir() {
		return p == project.Dir+"/metrics" || p == facts.CacheDir
	}
	if strings.HasPrefix(p, blackboard.Dir+"/") && strings.HasSuffix(name, ".json") {
		return true // the sweep reads it
	}
	return name == ".lock" || strings.HasPrefix(name, atomicfile.TempPrefix) || p == facts.LockPath
}

// checkConflicts finds conflict markers in every file under .foundry/
// except the blackboard artifacts, which the sweep checks as it reads them.
func (r *run) checkConflicts(ctx context.Context) error {
	return fs.WalkDir(r.p.FS, project.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == project.Dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil // an unreadable entry is the business of the check that owns it
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if skipConflictScan(p, d) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > maxConflictScan {
			return nil
		}
		data, err := fs.ReadFile(r.p.FS, p)
		if err != nil {
			return nil
		}
		r.conflictsIn(p, data)
		return nil
	})
}

// conflictsIn records one finding per conflict block of a file.
func (r *run) conflictsIn(p string, data []byte) {
	r.checked(CheckConflicts, 1)
	for _, b := range conflict.Find(data) {
		f := Finding{File: p, Line: b.Start, Message: b.String()}
		if strings.HasPrefix(p, facts.Dir+"/") && strings.HasSuffix(p, ".md") && p != facts.IndexPath {
			f.Fix = fixCommand
		} else if p == facts.IndexPath {
			f.Fix = "foundry memory index"
		} else {
			f.Message += "; resolve it by hand, keeping what both sides meant"
		}
		r.add(CheckConflicts, f)
	}
}
