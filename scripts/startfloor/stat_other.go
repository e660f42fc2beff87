//go:build !unix

package main

import (
	"os"
	"path/filepath"
)

// statNames lstats each of names in the open folder d, one after another.
func statNames(d *os.File, names []string) error {
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(d.Name(), n)); err != nil {
			return err
		}
	}
	return nil
}
