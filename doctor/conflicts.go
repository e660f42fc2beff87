// This file defines the check for git conflict markers in every file under
// .foundry/.

package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/atomicfile"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/conflict"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/project"
)

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
		if !d.IsDir() && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			r.staleTemp(p, d)
		}
		if skipConflictScan(p, d) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || readAsFact(p) {
			return nil // not text, or a fact, scanned as the fact checks read it
		}
		// The read is held to the file's size limit (at most 8 MiB for
		// the files scanned): a larger file is no file foundry writes.
		data, err := r.read(p)
		if err != nil {
			return nil
		}
		r.conflictsIn(p, data)
		return nil
	})
}

// staleTemp reports a temporary file of the working tree older than
// [confined.StaleAge]: its writer was killed mid-write. (At a revision or
// in the index a temp file is content someone committed.)
func (r *run) staleTemp(p string, d fs.DirEntry) {
	if !r.p.Writable() {
		return
	}
	r.checked(CheckStaleTemp, 1)
	fi, err := d.Info()
	if err != nil {
		return
	}
	age := r.now().Sub(fi.ModTime())
	if age <= confined.StaleAge {
		return
	}
	r.add(CheckStaleTemp, Finding{File: p, Message: fmt.Sprintf("temporary file left by a killed writer %s ago; a later write holding the folder's lock removes it", age.Round(time.Minute)),
		Fix: "foundry doctor --fix"})
}

// staleTemps lists the temporary files under .foundry/ in fsys last
// modified before the time before: those [run.staleTemp] reports.
func staleTemps(fsys fs.FS, before time.Time) []string {
	var out []string
	_ = fs.WalkDir(fsys, project.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if skipConflictScan(p, d) && d.IsDir() {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().Before(before) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// controlIn returns the finding of the first control character of a file
// that is not text (see package ctrl), with its position: printed raw, it
// would drive the terminal of whoever reads the file, or show its text in
// another order than agents read it.
func controlIn(p string, data []byte) (Finding, bool) {
	c, off, ok := ctrl.Find(string(data))
	if !ok {
		return Finding{}, false
	}
	line, col := contracts.Position(data, off)
	return Finding{Check: CheckControlChars, File: p, Line: line, Column: col, Message: "holds " + ctrl.Describe(c)}, true
}

// escapedControl records a control character c that field of a file's
// front matter spells as a YAML escape ("\e", "\u202e"): the sweep of the
// file's bytes saw text there. A file the sweep reported a raw one in is
// reported once.
func (r *run) escapedControl(file, field string, c rune) {
	if !r.found(CheckControlChars, file) {
		r.add(CheckControlChars, Finding{File: file, Message: fmt.Sprintf("%s, as YAML reads its escapes, holds %s", field, ctrl.Describe(c))})
	}
}

// textFindings returns the findings of a file's text: a control character
// and one per conflict block. It only reads data, so the blackboard
// sweep's workers call it and keep the findings, not the file.
func textFindings(p string, data []byte) []Finding {
	var out []Finding
	if f, ok := controlIn(p, data); ok {
		out = append(out, f)
	}
	for _, b := range conflict.Find(data) {
		f := Finding{Check: CheckConflicts, File: p, Line: b.Start, Message: b.String()}
		if strings.HasPrefix(p, facts.Dir+"/") && strings.HasSuffix(p, ".md") && p != facts.IndexPath {
			f.Fix = fixCommand
		} else if p == facts.IndexPath {
			f.Fix = "foundry memory index"
		} else {
			f.Message += "; resolve it by hand, keeping what both sides meant"
		}
		out = append(out, f)
	}
	return out
}

// addText records the text findings of one file checked for control
// characters and conflict markers.
func (r *run) addText(found []Finding) {
	r.checked(CheckControlChars, 1)
	r.addMarkers(found)
}

// addMarkers records the text findings of one file checked for conflict
// markers (and, where it holds some, for control characters too: see
// textFindings).
func (r *run) addMarkers(found []Finding) {
	r.checked(CheckConflicts, 1)
	for _, f := range found {
		r.add(f.Check, f)
	}
}

// conflictsIn records one finding per conflict block of a file, and any
// control character in it.
func (r *run) conflictsIn(p string, data []byte) { r.addText(textFindings(p, data)) }
