//go:build !linux

package facts

import "io/fs"

// listFacts reports that on this platform the memory folder is listed
// through the store's fs.FS.
func (s *Store) listFacts(<-chan *dirListing, chan<- bool) ([]fs.FileInfo, []string, *dirListing, bool, error) {
	return nil, nil, nil, false, nil
}
