//go:build !unix

package fileid

import "io/fs"

// Inode is unavailable here: ok is false.
func Inode(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
