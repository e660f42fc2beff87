// This file defines what a mutating tool reports to the audit log: the
// files it changed, with their digests before and after.

package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"slices"
	"sync"

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
// chosen source of a project without one. The root's size limits are
// lifted where they can be: digest streams, so a file of any size costs
// constant memory, and one over its limit is still recorded as present.
func projectFiles(p *project.Project) fs.FS {
	if p.Files == nil {
		return p.FS
	}
	fsys := p.Files.FS()
	if u, ok := fsys.(interface{ Unwrap() fs.FS }); ok {
		return u.Unwrap()
	}
	return fsys
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

func contentDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// digestBuffers are the read buffers of digest: a write hashes a file or
// two per call, and INDEX.md is a few KiB, so one buffer serves them all.
var digestBuffers = sync.Pool{New: func() any { return new([16 << 10]byte) }}

// digest returns "sha256:<hex>" of the regular file rel, "" when there is
// none or it cannot be read. It streams the file: an audit reads files of
// any size in constant memory.
func (s *snapshot) digest(rel string) string {
	fh, err := s.fsys.Open(rel)
	if err != nil {
		return ""
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	buf := digestBuffers.Get().(*[16 << 10]byte)
	defer digestBuffers.Put(buf)
	h := sha256.New()
	// The file hidden behind a plain reader: an *os.File's WriteTo would
	// copy through a buffer of its own, allocated on every call.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{fh}, buf[:]); err != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
