//go:build !unix

package facts

import "io/fs"

// inode is unavailable here; the cache falls back to size, modification time
// and content.
func inode(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// linkCount is unknown here: 1.
func linkCount(fs.FileInfo) uint64 { return 1 }
