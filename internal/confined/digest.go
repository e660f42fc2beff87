package confined

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"sync"
)

// digestBuffers are the read buffers of Digest: a change hashes a file or
// two, INDEX.md a few KiB, so one buffer serves each.
var digestBuffers = sync.Pool{New: func() any { return new([16 << 10]byte) }}

// Digest returns the sha256 of the regular file name of fsys, or ok false
// when there is none there, or it cannot be read. It streams the file: a
// file of any size is hashed in constant memory, past the size limit of a
// root's FS (see [Root.FS]), which bounds what is held, not what is read.
func Digest(fsys fs.FS, name string) (sum [sha256.Size]byte, ok bool) {
	if b, isBounded := fsys.(boundedFS); isBounded {
		fsys = b.fsys
	}
	fh, err := fsys.Open(name)
	if err != nil {
		return sum, false
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return sum, false
	}
	buf := digestBuffers.Get().(*[16 << 10]byte)
	defer digestBuffers.Put(buf)
	h := sha256.New()
	// The file hidden behind a plain reader: an *os.File's WriteTo would
	// copy through a buffer of its own, allocated on every call.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{fh}, buf[:]); err != nil {
		return sum, false
	}
	h.Sum(sum[:0])
	return sum, true
}
