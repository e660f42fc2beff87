// This file defines the read-only fs.FS over git objects shared by the
// revision view and the index view.

package git

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/foundryhq/foundry/internal/confined"
)

// entry is one name in a directory of a git view.
type entry struct {
	name  string
	hash  plumbing.Hash
	isDir bool
	exec  bool
	link  bool // a symbolic link: the blob is its target
}

// The bounds of following links, os.Root's (see os/root.go and
// os/root_openat.go), which the working tree's view reads through: the
// same path must fail the same way in every view.
const (
	// maxLinkHops bounds the symbolic links followed to reach one file:
	// one more ends in [ErrLinkLoop].
	maxLinkHops = 8
	// maxLinkTarget is the longest target a link on disk can have
	// (PATH_MAX less its NUL): git stores a blob of any size, and a longer
	// one, refused before it is read, ends in ENAMETOOLONG as symlink(2)
	// refuses it.
	maxLinkTarget = 4095
	// A path that takes more than maxSteps steps and more than
	// maxRestarts climbs ("..") ends in ENAMETOOLONG.
	maxSteps    = 255
	maxRestarts = 8
)

// lister returns the entries of a directory, given as a slash path relative
// to the view's root ("." for the root), sorted by name. ok is false when the
// directory does not exist.
type lister interface {
	list(dir string) (entries []entry, ok bool, err error)
}

// finder is a lister that can also find one path (not ".") without listing
// its folder, with the same answer find would get from the listing.
type finder interface {
	lookup(name string) (e entry, ok bool, err error)
}

// objectFS implements fs.FS, fs.ReadFileFS, fs.ReadDirFS, fs.StatFS and
// fs.ReadLinkFS over git objects. It is safe for concurrent use.
type objectFS struct {
	repo    *Repo
	dirs    lister
	label   string    // "HEAD~2 (abc1234)" or "index", for error messages
	modTime time.Time // commit time at a revision; zero for the index
}

var (
	_ fs.ReadFileFS = (*objectFS)(nil)
	_ fs.ReadDirFS  = (*objectFS)(nil)
	_ fs.StatFS     = (*objectFS)(nil)
	_ fs.ReadLinkFS = (*objectFS)(nil)
)

// find returns the entry of name and the path it really has in the view,
// following symbolic links as the working tree's view does (see package
// confined): a link, anywhere in the path, is read through to its target
// while the target stays inside the view, which is the project, and a
// link inside .foundry while its target stays inside .foundry; an
// absolute link, or one that climbs out, is refused with
// [confined.ErrOutside], or [confined.ErrOutsideFoundry] inside .foundry.
// So a file reads the same at a revision, in the index and on disk.
func (f *objectFS) find(op, name string) (entry, string, error) {
	e, err := f.findEntry(op, name)
	switch {
	case err == nil && !e.link:
		// The usual case: a path held by the tree or the index goes
		// through real folders only.
		return e, name, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return entry{}, "", err
	case !confined.InFoundry(name):
		return f.resolve(op, name, ".", splitPath(name), confined.ErrOutside)
	}
	// As the working tree opens .foundry as a root of its own, and reads
	// the rest of the path from it.
	d, real, err := f.resolve(op, name, ".", []string{confined.FoundryDir}, confined.ErrOutside)
	switch {
	case err != nil:
		return entry{}, "", err
	case !d.isDir:
		return entry{}, "", &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
	case real == ".":
		// A .foundry that is a link to the project's own folder would
		// confine nothing; the working tree refuses it too.
		return entry{}, "", &fs.PathError{Op: op, Path: name, Err: confined.ErrFoundryIsProject}
	}
	return f.resolve(op, name, real, splitPath(name[len(confined.FoundryDir)+1:]), confined.ErrOutsideFoundry)
}

// resolve is find for name, a path that is a link or may go through one,
// given as parts, its components relative to base, a real folder of the
// view: the root, or .foundry's real path. It walks them a component at a
// time as os.Root does: a link is replaced by its target's components,
// and ".." then drops the component before it, so "link/.." climbs from
// where the link leads, not from where it stands; a climb above base, or
// an absolute link, is refused with outside. Every folder it passes is a
// real one of the view (links are replaced before they are passed), so a
// climb needs no lookup.
func (f *objectFS) resolve(op, name, base string, parts []string, outside error) (entry, string, error) {
	fail := func(err error) (entry, string, error) {
		return entry{}, "", &fs.PathError{Op: op, Path: name, Err: err}
	}
	if len(parts) == 0 {
		return entry{name: ".", isDir: true}, ".", nil
	}
	// dirs[k] is the folder parts[:k] name, so each step joins one name.
	dirs := []string{base}
	slash := false // the path ends in a slash: it must name a folder
	i, steps, restarts, hops := 0, 0, 0, 0
	for {
		if steps++; steps > maxSteps && restarts > maxRestarts {
			return fail(syscall.ENAMETOOLONG)
		}
		if parts[i] == ".." {
			restarts++
			end := i + 1
			for end < len(parts) && parts[end] == ".." {
				end++
			}
			if end-i > i {
				return fail(outside)
			}
			parts = slices.Delete(parts, i-(end-i), end)
			if len(parts) == 0 {
				parts = []string{"."}
			}
			i, dirs = 0, dirs[:1]
			continue
		}
		at := path.Join(dirs[i], parts[i])
		e, err := f.lookupEntry(op, at)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fail(err)
		}
		if e.link {
			if hops++; hops > maxLinkHops {
				return fail(ErrLinkLoop)
			}
			target, err := f.readLink(e.hash)
			if err != nil {
				return fail(err)
			}
			last := i == len(parts)-1
			var endSlash bool
			if parts, endSlash, err = spliceLink(target, parts, i, outside); err != nil {
				return fail(err)
			}
			slash = slash || endSlash && last
			continue
		}
		last := i == len(parts)-1
		if !e.isDir && (!last || slash) {
			return fail(syscall.ENOTDIR)
		}
		if last {
			e.name = path.Base(name)
			return e, at, nil
		}
		dirs = append(dirs[:i+1], at)
		i++
	}
}

// spliceLink returns parts with its component i, a link, replaced by the
// link's target split as os.Root splits one: empty components (doubled
// slashes) skipped, "." ones dropped unless last of all. endSlash reports
// that the target ends in a slash. An absolute target is refused with
// outside.
func spliceLink(target string, parts []string, i int, outside error) (_ []string, endSlash bool, err error) {
	switch {
	case target == "":
		return nil, false, fs.ErrNotExist // as the system resolves an empty path
	case target[0] == '/':
		return nil, false, outside
	}
	suffix := parts[i+1:]
	comps := strings.FieldsFunc(target, func(r rune) bool { return r == '/' })
	out := slices.Clone(parts[:i])
	for k, c := range comps {
		if c == "." && (k < len(comps)-1 || len(suffix) > 0) {
			continue
		}
		out = append(out, c)
	}
	return append(out, suffix...), strings.HasSuffix(target, "/"), nil
}

// readLink reads the target of a link, the blob h: one longer than a link
// on disk can have is refused from the object's header.
func (f *objectFS) readLink(h plumbing.Hash) (string, error) {
	target, err := f.readObject(h, func(size int64) error {
		if size > maxLinkTarget {
			return syscall.ENAMETOOLONG
		}
		return nil
	})
	return string(target), err
}

// RealPath returns the path name has in fsys, a view of this package
// (Unwrap is followed to it), once the symbolic links on the way are
// followed: with .foundry a link to meta/foundry, ".foundry/x.json" is
// "meta/foundry/x.json", the path git stages and commits it under. Any
// other file system gives name back.
func RealPath(fsys fs.FS, name string) (string, error) {
	for {
		switch f := fsys.(type) {
		case *objectFS:
			_, real, err := f.find("stat", name)
			return real, err
		case interface{ Unwrap() fs.FS }:
			fsys = f.Unwrap()
		default:
			return name, nil
		}
	}
}

// findLink returns the entry of name itself, a link not followed, with the
// links of the folders above it followed, as os.Lstat does.
func (f *objectFS) findLink(op, name string) (entry, error) {
	e, err := f.findEntry(op, name)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(name, "/") {
		return e, err
	}
	dir, base := path.Split(name)
	d, real, err := f.find(op, strings.TrimSuffix(dir, "/"))
	if err == nil && !d.isDir {
		err = fs.ErrNotExist
	}
	if err == nil {
		e, err = f.lookupEntry(op, path.Join(real, base))
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return entry{}, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return e, nil
}

// splitPath splits a valid slash path into its components ("." has none).
func splitPath(name string) []string {
	if name == "." {
		return nil
	}
	return strings.Split(name, "/")
}

// findEntry returns the entry of name itself, a link not followed. A
// name holding a NUL byte is invalid, as the system says of it on disk.
func (f *objectFS) findEntry(op, name string) (entry, error) {
	if !fs.ValidPath(name) || strings.IndexByte(name, 0) >= 0 {
		return entry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return f.lookupEntry(op, name)
}

// lookupEntry is findEntry for a path that resolve has built from a valid
// one and the targets of links: those are bytes the system looks up as
// they are, UTF-8 or not, so a target that is not UTF-8 names a file that
// is missing (or one of that name) as it does on disk, not an invalid path.
func (f *objectFS) lookupEntry(op, name string) (entry, error) {
	if name == "." {
		return entry{name: ".", isDir: true}, nil
	}
	if fd, ok := f.dirs.(finder); ok {
		f.repo.mu.Lock()
		e, ok, err := fd.lookup(name)
		f.repo.mu.Unlock()
		switch {
		case err != nil:
			return entry{}, &fs.PathError{Op: op, Path: name, Err: err}
		case !ok:
			return entry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		return e, nil
	}
	dir, base := path.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	f.repo.mu.Lock()
	entries, ok, err := f.dirs.list(dir)
	f.repo.mu.Unlock()
	if err != nil {
		return entry{}, &fs.PathError{Op: op, Path: name, Err: err}
	}
	if ok {
		i := sort.Search(len(entries), func(i int) bool { return entries[i].name >= base })
		if i < len(entries) && entries[i].name == base {
			return entries[i], nil
		}
	}
	return entry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Open implements fs.FS.
func (f *objectFS) Open(name string) (fs.File, error) {
	e, _, err := f.find("open", name)
	if err != nil {
		return nil, err
	}
	if e.isDir {
		return &dirFile{fsys: f, name: name, e: e}, nil
	}
	data, err := f.readBlob(name, e.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &blobFile{Reader: bytes.NewReader(data), info: f.info(e, int64(len(data)))}, nil
}

// ReadFile implements fs.ReadFileFS.
func (f *objectFS) ReadFile(name string) ([]byte, error) {
	e, _, err := f.find("read", name)
	if err != nil {
		return nil, err
	}
	if e.isDir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("is a directory")}
	}
	data, err := f.readBlob(name, e.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// Stat implements fs.StatFS; a symbolic link is followed.
func (f *objectFS) Stat(name string) (fs.FileInfo, error) {
	e, _, err := f.find("stat", name)
	if err != nil {
		return nil, err
	}
	return f.stat("stat", name, e)
}

// Lstat implements fs.ReadLinkFS: a symbolic link describes itself, as
// os.Lstat says of one on disk.
func (f *objectFS) Lstat(name string) (fs.FileInfo, error) {
	e, err := f.findLink("lstat", name)
	if err != nil {
		return nil, err
	}
	return f.stat("lstat", name, e)
}

// ReadLink implements fs.ReadLinkFS.
func (f *objectFS) ReadLink(name string) (string, error) {
	e, err := f.findLink("readlink", name)
	if err != nil {
		return "", err
	}
	if !e.link {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := f.readLink(e.hash)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return target, nil
}

func (f *objectFS) stat(op, name string, e entry) (fs.FileInfo, error) {
	if e.isDir {
		return f.info(e, 0), nil
	}
	f.repo.mu.Lock()
	size, err := f.repo.st.EncodedObjectSize(e.hash)
	f.repo.mu.Unlock()
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return f.info(e, size), nil
}

// ReadDir implements fs.ReadDirFS.
func (f *objectFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, real, err := f.find("readdir", name)
	if err != nil {
		return nil, err
	}
	if !e.isDir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fmt.Errorf("not a directory")}
	}
	f.repo.mu.Lock()
	entries, _, err := f.dirs.list(real)
	f.repo.mu.Unlock()
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, len(entries))
	for i, c := range entries {
		out[i] = dirEntry{fsys: f, dir: name, e: c}
	}
	return out, nil
}

// readBlob reads the blob h of the file name, after checking from the
// object's header that it is within name's limit (see
// [confined.LimitFor]; the names of a view are relative to the project).
func (f *objectFS) readBlob(name string, h plumbing.Hash) ([]byte, error) {
	return f.readObject(h, func(size int64) error {
		if l := confined.LimitFor(name); size > l.Max {
			return &confined.TooLargeError{Path: name, Size: size, Limit: l}
		}
		return nil
	})
}

// readObject reads the blob h whole, once check has accepted its size as
// the object's header gives it: nothing is inflated before.
func (f *objectFS) readObject(h plumbing.Hash, check func(size int64) error) ([]byte, error) {
	f.repo.mu.Lock()
	defer f.repo.mu.Unlock()
	size, err := f.repo.st.EncodedObjectSize(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h.String()[:7], err)
	}
	if err := check(size); err != nil {
		return nil, err
	}
	obj, err := f.repo.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h.String()[:7], err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h.String()[:7], err)
	}
	defer r.Close()
	// Exactly the object's size: a buffer grown as it reads allocates
	// twice that.
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h.String()[:7], err)
	}
	return data, nil
}

func (f *objectFS) info(e entry, size int64) *FileInfo {
	return &FileInfo{name: path.Base(e.name), size: size, dir: e.isDir, exec: e.exec, link: e.link, hash: e.hash.String(), mod: f.modTime}
}

// FileInfo is the fs.FileInfo of a git view. Hash returns the object id,
// which identifies the content for as long as the object exists: callers that
// cache parsed files use it instead of size and modification time.
type FileInfo struct {
	name string
	size int64
	dir  bool
	exec bool
	link bool
	hash string
	mod  time.Time
}

func (i *FileInfo) Name() string { return i.name }
func (i *FileInfo) Size() int64  { return i.size }
func (i *FileInfo) Mode() fs.FileMode {
	switch {
	case i.dir:
		return fs.ModeDir | 0o755
	case i.link:
		return fs.ModeSymlink | 0o777
	case i.exec:
		return 0o755
	}
	return 0o644
}
func (i *FileInfo) ModTime() time.Time { return i.mod }
func (i *FileInfo) IsDir() bool        { return i.dir }

// Sys returns the object id as a string, the same as Hash.
func (i *FileInfo) Sys() any { return i.hash }

// Hash returns the git object id of the file's content.
func (i *FileInfo) Hash() string { return i.hash }

type dirEntry struct {
	fsys *objectFS
	dir  string
	e    entry
}

func (d dirEntry) Name() string { return d.e.name }
func (d dirEntry) IsDir() bool  { return d.e.isDir }
func (d dirEntry) Type() fs.FileMode {
	switch {
	case d.e.isDir:
		return fs.ModeDir
	case d.e.link:
		return fs.ModeSymlink // as os.ReadDir says: readers treat it as on disk
	}
	return 0
}

// Info describes the file a link leads to (unlike os.DirEntry's): callers
// key their caches by its Hash, which must change when the content read
// through the link does. A link that leads nowhere, out of the project or
// round in a loop describes itself, as os.DirEntry's Info does, so the
// listing stands and reading that one file says what is wrong with it.
func (d dirEntry) Info() (fs.FileInfo, error) {
	name := path.Join(d.dir, d.e.name)
	fi, err := d.fsys.Stat(name)
	if err != nil && d.e.link {
		return d.fsys.stat("lstat", name, d.e)
	}
	return fi, err
}

type blobFile struct {
	*bytes.Reader
	info *FileInfo
}

func (b *blobFile) Stat() (fs.FileInfo, error) { return b.info, nil }
func (b *blobFile) Close() error               { return nil }

type dirFile struct {
	fsys    *objectFS
	name    string
	e       entry
	entries []fs.DirEntry
	read    bool
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.fsys.info(d.e, 0), nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fmt.Errorf("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		all, err := d.fsys.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = all, true
	}
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	if n > len(d.entries) {
		n = len(d.entries)
	}
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}

func isExec(m filemode.FileMode) bool { return m == filemode.Executable }
