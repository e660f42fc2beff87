//go:build linux

package facts

// This file defines the listing of the memory folder of a working tree on
// Linux: one pass of getdents and one fstatat per fact file relative to the
// folder's descriptor, spread over the processors. fs.ReadDir through an
// os.Root also stats every entry, but allocates a DirEntry and a FileInfo
// for each, and names a file by its whole path where one component does.

import (
	"errors"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foundryhq/foundry/internal/fileid"
	"golang.org/x/sys/unix"
)

// statInfo is a fact file's lstat, as an fs.FileInfo.
type statInfo struct {
	name string
	st   unix.Stat_t
	err  error // of the fstatat
}

func (fi *statInfo) Name() string { return fi.name }
func (fi *statInfo) Size() int64  { return fi.st.Size }
func (fi *statInfo) Mode() fs.FileMode {
	switch fi.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir | fs.FileMode(fi.st.Mode&0o777)
	case unix.S_IFREG:
		return fs.FileMode(fi.st.Mode & 0o777)
	case unix.S_IFLNK:
		return fs.ModeSymlink | fs.FileMode(fi.st.Mode&0o777)
	}
	return fs.ModeIrregular | fs.FileMode(fi.st.Mode&0o777)
}
func (fi *statInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *statInfo) IsDir() bool        { return fi.st.Mode&unix.S_IFMT == unix.S_IFDIR }
func (fi *statInfo) Sys() any           { return nil }

// nlink is the file's number of names (see linkCount).
func (fi *statInfo) nlink() uint64 { return uint64(fi.st.Nlink) } //nolint:unconvert // uint32 on some platforms

// key is the file's identity, with the status-change time and inode a
// FileInfo from os carries in its Sys.
func (fi *statInfo) key() fileKey {
	return fileKey{size: fi.st.Size, mtime: fi.st.Mtim.Nano(), ctime: fi.st.Ctim.Nano(), dev: uint64(fi.st.Dev), ino: fi.st.Ino} //nolint:unconvert // Dev is uint32 on mips
}

// listFacts returns the fact files of the memory folder of the working tree
// with their lstat, sorted by name, and ok; ok is false where this way of
// listing does not apply (no working tree), and the caller lists through
// its fs.FS. A missing folder lists nothing. A file removed between the
// listing and its stat is left out. temps are the names of the temp files
// the listing saw.
//
// The folder's own identity is taken before its names are read. When known
// is not nil, listFacts receives from it a listing of the folder recorded
// earlier (nil for none): if the folder's identity is the one recorded, the
// folder holds the names recorded, and they are not read again. listed is
// the listing this call used, for the next one; nil when the folder had
// changed too recently (within fileid.RacyWindow) for its identity to prove its
// names. When same is not nil, listFacts sends on it, before the stats,
// whether the folder holds the names recorded.
func (s *Store) listFacts(known <-chan *dirListing, same chan<- bool) (list []fs.FileInfo, temps []string, listed *dirListing, ok bool, err error) {
	if s.opts.Root == "" {
		return nil, nil, nil, false, nil
	}
	r, err := s.root()
	if err != nil {
		return nil, nil, nil, false, nil
	}
	d, err := r.OpenDir(Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, nil, true, err
	}
	defer d.Close()
	fd := int(d.Fd())
	var dst unix.Stat_t
	for {
		err = unix.Fstat(fd, &dst)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, nil, true, &fs.PathError{Op: "stat", Path: Dir, Err: err}
	}
	dkey := fileKey{size: dst.Size, mtime: dst.Mtim.Nano(), ctime: dst.Ctim.Nano(), dev: uint64(dst.Dev), ino: dst.Ino} //nolint:unconvert // Dev is uint32 on mips
	cutoff := time.Now().Add(-fileid.RacyWindow).UnixNano()
	settled := dkey.mtime < cutoff
	var all []string // fact and temp files, sorted; never changed once set
	if known != nil {
		if k := <-known; k != nil && settled && k.key == dkey {
			all = k.names
		}
	}
	if same != nil {
		same <- all != nil
	}
	if all == nil {
		if all, err = d.Readdirnames(-1); err != nil {
			return nil, nil, nil, true, err
		}
		all = slices.DeleteFunc(all, func(n string) bool { return !isFactFile(n) && !isTempFile(n) })
		slices.Sort(all)
	}
	if settled {
		listed = &dirListing{key: dkey, names: all}
	}
	names := make([]string, 0, len(all))
	for _, n := range all {
		if isTempFile(n) {
			temps = append(temps, n)
		} else if isFactFile(n) {
			names = append(names, n)
		}
	}
	infos := make([]statInfo, len(names))
	// A system call per file dominates; spread them when there are enough
	// to be worth a goroutine. The workers take the names in chunks as
	// they go, not in fixed shares: the first scan runs them beside the
	// cache's decoding, which holds up one or the other.
	const chunk = 256
	var next atomic.Int64
	stat := func() {
		for {
			lo := int(next.Add(chunk)) - chunk
			if lo >= len(names) {
				return
			}
			for i := lo; i < min(lo+chunk, len(names)); i++ {
				fi := &infos[i]
				fi.name = names[i]
				for {
					fi.err = unix.Fstatat(fd, fi.name, &fi.st, unix.AT_SYMLINK_NOFOLLOW)
					if fi.err != unix.EINTR {
						break
					}
				}
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 4, 1+len(names)/2048)
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(stat)
	}
	stat()
	wg.Wait()
	runtime.KeepAlive(d)
	list = make([]fs.FileInfo, 0, len(infos))
	for i := range infos {
		switch err := infos[i].err; {
		case err == nil:
			list = append(list, &infos[i])
		case errors.Is(err, unix.ENOENT):
			// removed since the listing
		default:
			return nil, nil, nil, true, &fs.PathError{Op: "stat", Path: path.Join(Dir, infos[i].name), Err: err}
		}
	}
	return list, temps, listed, true, nil
}
