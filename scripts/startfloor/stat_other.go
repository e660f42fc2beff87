//go:build !unix

package main

import (
	"os"
	"path/filepath"
	"slices"
)

// statAll lists dir and lstats each of its files; it returns the names,
// sorted.
func statAll(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			return nil, err
		}
	}
	return names, nil
}
