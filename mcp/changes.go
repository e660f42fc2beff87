// This file defines what a mutating tool reports to the audit log: the
// files it changed, with their digests before and after.

package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"slices"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/project"
)

// Change is one file a mutating call changed: its project-relative path
// and the sha256 of its content before and after ("" when absent). The
// audit log records it; argument values never are.
type Change struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// snapshot holds the digests of files before a write, and after it those
// of the files the writer says it wrote.
type snapshot struct {
	fsys   fs.FS // the project's files, read through its confined root
	paths  []string
	before map[string]string
	after  map[string]string // digests of content the writer had in memory
}

// snapshot takes the digests of paths (project-relative, slash form) on
// disk now.
func (f *foundry) snapshot(paths ...string) *snapshot {
	return newSnapshot(f.files, paths...)
}

// projectFiles returns the project's files for the audit to read: the working
// tree through its confined root (no link followed out of it), or the
// chosen source of a project without one. The digests stream them, past
// the root's size limits (see [confined.Digest]): a file over its limit is
// still recorded as present.
func projectFiles(p *project.Project) fs.FS {
	if p.Files == nil {
		return p.FS
	}
	return p.Files.FS()
}

func newSnapshot(fsys fs.FS, paths ...string) *snapshot {
	s := &snapshot{fsys: fsys, before: make(map[string]string, len(paths))}
	for _, p := range paths {
		s.paths = append(s.paths, p)
		s.before[p] = s.digest(p)
	}
	return s
}

// wrote records that the call wrote content to path: its digest after is
// that of content, so the file is not read back. The bytes a writer put
// in place are also the truer record of its change than a second reading,
// which would take in whatever another writer did since.
func (s *snapshot) wrote(path string, content []byte) {
	if s.after == nil {
		s.after = map[string]string{}
	}
	s.after[path] = contentDigest(content)
}

// changes returns the files among the snapshot's and more (paths known
// only after the write, absent before it unless snapshotted) whose digest
// differs now. A file the call wrote (see wrote) is not read again.
func (s *snapshot) changes(more ...string) []Change {
	var out []Change
	for _, p := range append(slices.Clone(s.paths), more...) {
		if slices.ContainsFunc(out, func(c Change) bool { return c.Path == p }) {
			continue
		}
		before := s.before[p]
		after, ok := s.after[p]
		if !ok {
			after = s.digest(p)
		}
		if after != before {
			out = append(out, Change{Path: p, Before: before, After: after})
		}
	}
	return out
}

// rewritten records files whose content before a write the writer kept
// (a superseded fact), which the snapshot could not know to take.
func (s *snapshot) rewritten(path string, before []byte) {
	if _, ok := s.before[path]; ok {
		return
	}
	s.paths = append(s.paths, path)
	s.before[path] = contentDigest(before)
}

// replaced records the digest of the file at path that the writer
// replaced, as it read it under its lock (nil for none): it, not the
// snapshot's reading before the call, is what the change replaced.
func (s *snapshot) replaced(path string, sum *[sha256.Size]byte) {
	if !slices.Contains(s.paths, path) {
		s.paths = append(s.paths, path)
	}
	if sum == nil {
		s.before[path] = ""
	} else {
		s.before[path] = sumText(*sum, true)
	}
}

func contentDigest(b []byte) string { return sumText(sha256.Sum256(b), true) }

// digest returns "sha256:<hex>" of the regular file rel, "" when there is
// none or it cannot be read (see [confined.Digest]).
func (s *snapshot) digest(rel string) string {
	sum, ok := confined.Digest(s.fsys, rel)
	return sumText(sum, ok)
}

// sumText is a digest as the audit log records it: "sha256:<hex>", or ""
// for no file (ok false).
func sumText(sum [sha256.Size]byte, ok bool) string {
	if !ok {
		return ""
	}
	return "sha256:" + hex.EncodeToString(sum[:])
}
