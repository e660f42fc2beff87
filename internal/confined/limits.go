package confined

// This file defines the one table of size limits and the reads held to it.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// Sizes in bytes.
const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// Limit is the largest file of one kind Foundry reads.
type Limit struct {
	Kind string // "fact", "runbook", …: how messages name the kind
	Max  int64  // bytes
}

// String renders the limit for messages: "64 KiB", "8 MiB".
func (l Limit) String() string { return FormatSize(l.Max) }

// limits is the table, first match wins. A pattern ending in "/" matches
// every path below that folder; "*" matches one path element. Paths are
// relative to the folder that holds .foundry/, in slash form.
var limits = []struct {
	pattern string
	limit   Limit
}{
	{".foundry/config.yaml", Limit{"config", 64 * KiB}},
	{MemoryDir + "/INDEX.md", Limit{"memory index", 1 * MiB}},
	{MemoryDir + "/*", Limit{"fact", 64 * KiB}},
	{".foundry/runbooks/", Limit{"runbook", 1 * MiB}},
	{".foundry/schemas/", Limit{"schema", 1 * MiB}},
	{".foundry/contracts.lock/", Limit{"contract lock", 4 * KiB}},
	{BlackboardDir + "/", Limit{"artifact", ArtifactMax}},
	{".foundry/metrics/", Limit{"log", LogMax}},
	{".foundry/cache/", Limit{"cache", 64 * MiB}},
}

// ArtifactMax bounds a blackboard artifact, and any JSON document Foundry
// is asked to validate. Packages use it as artifacts.MaxBytes.
const ArtifactMax = 8 * MiB

// BlackboardDir holds the blackboard's artifacts, relative to the project
// root; packages use it as artifacts.Dir. It is defined here, the lowest
// package that needs it, so the size table and the validation core share
// one definition.
const BlackboardDir = ".foundry/blackboard"

// MemoryDir holds the facts and INDEX.md, relative to the project root;
// packages use it as facts.Dir (tokens, which facts imports, uses it
// directly).
const MemoryDir = ".foundry/memory"

// DefaultLimit holds every file the table does not name.
var DefaultLimit = Limit{"file", ArtifactMax}

// LogMax caps each log under .foundry/metrics/ (the MCP server's usage
// events and its audit log): an append that would pass it first drops the
// oldest half of the file.
const LogMax = 16 * MiB

// LimitFor returns the size limit for the file at name, a slash path
// relative to the folder that holds .foundry/.
func LimitFor(name string) Limit {
	for _, e := range limits {
		if match(e.pattern, name) {
			return e.limit
		}
	}
	return DefaultLimit
}

func match(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/"); ok {
		return strings.HasPrefix(name, prefix+"/")
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// TooLargeError reports a file over its kind's limit. It wraps
// [ErrTooLarge]; reads return it inside an *fs.PathError naming the file.
type TooLargeError struct {
	Path  string
	Size  int64
	Limit Limit
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, over the %s limit", e.Limit.Kind, FormatSize(e.Size), e.Limit)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// FormatSize renders n bytes the way limits are written: "64 KiB", "1 MiB",
// "400.0 MiB", "17 bytes".
func FormatSize(n int64) string {
	switch {
	case n >= MiB && n%MiB == 0:
		return fmt.Sprintf("%d MiB", n/MiB)
	case n >= MiB:
		return fmt.Sprintf("%.1f MiB", float64(n)/MiB)
	case n >= KiB && n%KiB == 0:
		return fmt.Sprintf("%d KiB", n/KiB)
	case n >= KiB:
		return fmt.Sprintf("%.1f KiB", float64(n)/KiB)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Bounded returns fsys with every file held to [LimitFor]: Open and
// ReadFile stat the file first and refuse one over its limit with a
// [*TooLargeError], and a file that grows while it is read stops at the
// limit. fsys's Stat must not read the content (a git view answers from the
// object header), so nothing of an oversized file is ever allocated.
func Bounded(fsys fs.FS) fs.FS {
	if b, ok := fsys.(boundedFS); ok {
		return b
	}
	return boundedFS{fsys: fsys}
}

type boundedFS struct {
	fsys fs.FS
	root *Root // the Root fsys reads, for [RootOf]; nil for other file systems
}

var (
	_ fs.ReadFileFS = boundedFS{}
	_ fs.ReadDirFS  = boundedFS{}
	_ fs.StatFS     = boundedFS{}
	_ fs.ReadLinkFS = boundedFS{}
)

// Unwrap returns the file system Bounded was given.
func (b boundedFS) Unwrap() fs.FS { return b.fsys }

func (b boundedFS) Open(name string) (fs.File, error) {
	if p, ok := b.fsys.(projectFS); ok {
		// The size check and the opening from one root: one walk to it.
		var f fs.File
		err := p.do(name, func(root *os.Root, rel string) (err error) {
			f, err = openBounded(nonBlockingFS{root}, rel, name)
			return err
		})
		return f, err
	}
	return openBounded(b.fsys, name, name)
}

// openBounded opens rel of fsys, the file name of the project, held to
// name's limit.
func openBounded(fsys fs.FS, rel, name string) (fs.File, error) {
	fi, err := stat(fsys, rel, name)
	if err != nil {
		return nil, err
	}
	if err := check(name, fi); err != nil {
		return nil, err
	}
	f, err := fsys.Open(rel)
	if err != nil || fi.IsDir() {
		return f, err
	}
	return bounded(f, name, nil), nil
}

func (b boundedFS) ReadFile(name string) ([]byte, error) { return ReadFile(b.fsys, name) }

func (b boundedFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(b.fsys, name)
	return fi, escaped(name, err)
}

// Lstat passes through: a link itself has no content to bound.
func (b boundedFS) Lstat(name string) (fs.FileInfo, error) {
	fi, err := fs.Lstat(b.fsys, name)
	return fi, escaped(name, err)
}

// ReadLink passes through, as Lstat.
func (b boundedFS) ReadLink(name string) (string, error) {
	target, err := fs.ReadLink(b.fsys, name)
	return target, escaped(name, err)
}

func (b boundedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if b.root != nil {
		if !fs.ValidPath(name) {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
		}
		es, err := b.root.readDir(name)
		return es, escaped(name, err)
	}
	es, err := fs.ReadDir(b.fsys, name)
	return es, escaped(name, err)
}

// ReadFile reads name from fsys, held to [LimitFor](name): the size is
// checked before reading, and a file that grows meanwhile is cut off with
// the same error. A folder is refused, before it is opened, with an error
// wrapping [syscall.EISDIR].
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	if b, ok := fsys.(boundedFS); ok {
		fsys = b.fsys
	}
	if p, ok := fsys.(projectFS); ok {
		var data []byte
		err := p.do(name, func(root *os.Root, rel string) (err error) {
			data, err = readFile(nonBlockingFS{root}, rel, name)
			return err
		})
		return data, err
	}
	return readFile(fsys, name, name)
}

// readFile is [ReadFile] of rel of fsys, the file name of the project.
func readFile(fsys fs.FS, rel, name string) ([]byte, error) {
	fi, err := stat(fsys, rel, name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	if err := check(name, fi); err != nil {
		return nil, err
	}
	f, err := fsys.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := LimitFor(name).Max
	data := make([]byte, 0, min(fi.Size(), limit)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Path: name, Size: int64(len(data)), Limit: LimitFor(name)}}
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// stat is fs.Stat of rel, the file name of the project, reporting
// failures as the open they stand for, so messages read as they did before
// the size check came first.
func stat(fsys fs.FS, rel, name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(fsys, rel)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Op = "open"
	}
	return fi, escaped(name, err)
}

// escaped names the refusal of a symbolic link out of the root (or of an
// absolute one) with [ErrOutside]: os.Root reports it with an unexported
// error whose text is its only handle.
func escaped(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = name
		switch pe.Op {
		case "stat", "lstat", "fstat": // already the plain name
		default:
			pe.Op = strings.TrimSuffix(pe.Op, "at") // os.Root's "statat", "openat"
		}
		if escapesParent(pe.Err) {
			pe.Err = ErrOutside
		}
	}
	return err
}

// ErrNotRegular means a file to read is a named pipe, a device or a socket:
// its opening, or its reading, could wait for ever.
var ErrNotRegular = errors.New("not a regular file")

// check refuses to read name, described by fi, when it is no regular file
// (a folder is left to its reader) or is over its limit.
func check(name string, fi fs.FileInfo) error {
	if fi.IsDir() {
		return nil
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	if l := LimitFor(name); fi.Size() > l.Max {
		return &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Path: name, Size: fi.Size(), Limit: l}}
	}
	return nil
}

// boundedFile stops a file that grows past its limit after the size check.
type boundedFile struct {
	fs.File
	name string
	left int64
	// opened is the file's information as of its opening, when the opener
	// had it already (a [Folder] stats the open file to check it): Stat
	// returns it instead of asking again.
	opened fs.FileInfo
}

func (f *boundedFile) Stat() (fs.FileInfo, error) {
	if f.opened != nil {
		return f.opened, nil
	}
	return f.File.Stat()
}

func (f *boundedFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.left -= int64(n)
	if f.left < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: &TooLargeError{Path: f.name, Size: LimitFor(f.name).Max - f.left, Limit: LimitFor(f.name)}}
	}
	return n, err
}

// bounded returns f, the file name opened, held to name's limit; opened is
// as for boundedFile. A file that can be read at an offset (an *os.File)
// stays one.
func bounded(f fs.File, name string, opened fs.FileInfo) fs.File {
	b := &boundedFile{File: f, name: name, left: LimitFor(name).Max, opened: opened}
	if _, ok := f.(io.ReaderAt); ok {
		return boundedFileAt{b}
	}
	return b
}

// boundedFileAt is a boundedFile that can be read at an offset, so that a
// reader that counts on from where it stopped (the token report's event
// log) reads what was appended, not the whole file. Its reads are held to
// the same limit, counted from the file's start.
type boundedFileAt struct{ *boundedFile }

func (f boundedFileAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.(io.ReaderAt).ReadAt(p, off)
	if l := LimitFor(f.name); off+int64(n) > l.Max {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: &TooLargeError{Path: f.name, Size: off + int64(n), Limit: l}}
	}
	return n, err
}

// escapesParent reports whether err is os.Root's refusal of a path that
// leaves it (a link out of it, or an absolute one), whose text is its only
// handle.
func escapesParent(err error) bool {
	return err != nil && err.Error() == "path escapes from parent"
}
