//go:build !linux

package facts

import "io/fs"

// listFacts reports that on this platform the memory folder is listed
// through the store's fs.FS.
func (s *Store) listFacts() ([]fs.FileInfo, []string, bool, error) { return nil, nil, false, nil }
