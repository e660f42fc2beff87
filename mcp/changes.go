// This file defines what a mutating tool reports to the audit log: the
// files it changed, with their digests before and after.

package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Change is one file a mutating call changed: its project-relative path
// and the sha256 of its content before and after ("" when absent). The
// audit log records it; argument values never are.
type Change struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// snapshot holds the digests of files before a write.
type snapshot struct {
	root   string
	paths  []string
	before map[string]string
}

// snapshot takes the digests of paths (project-relative, slash form) on
// disk now.
func (f *foundry) snapshot(paths ...string) *snapshot {
	s := &snapshot{root: f.p.Root, before: map[string]string{}}
	for _, p := range paths {
		s.paths = append(s.paths, p)
		s.before[p] = fileDigest(s.root, p)
	}
	return s
}

// changes returns the files among the snapshot's and more (paths known
// only after the write, absent before it unless snapshotted) whose digest
// differs now.
func (s *snapshot) changes(more ...string) []Change {
	var out []Change
	for _, p := range append(slices.Clone(s.paths), more...) {
		if slices.ContainsFunc(out, func(c Change) bool { return c.Path == p }) {
			continue
		}
		before := s.before[p]
		if after := fileDigest(s.root, p); after != before {
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

// fileDigest returns "sha256:<hex>" of a regular file under root, "" when
// there is none.
func fileDigest(root, rel string) string {
	name := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	fh, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
