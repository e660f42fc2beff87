package artifacts

// This file defines what is read: the artifacts of a project, and one file
// within the size limit.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
)

// Dir holds the blackboard's artifacts, relative to the project root.
const Dir = confined.BlackboardDir

// MaxBytes bounds an artifact: 8 MiB, the bound of an MCP request too. A
// larger file is refused from its size, without being read.
const MaxBytes = confined.ArtifactMax

// IsName reports whether name, a file's name in a wave's folder, is an
// artifact's: a .json file, not the temp file of an interrupted write.
func IsName(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, confined.TempPrefix)
}

// List returns the path of every .json file under [Dir] in fsys (rooted at
// the project root), sorted, leaving out the temporary files of interrupted
// writes. A link is listed and read through; a dangling one is reported as
// a missing file when read. No blackboard folder is an empty list.
func List(fsys fs.FS) ([]string, error) {
	var names []string
	err := fs.WalkDir(fsys, Dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == Dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !IsName(d.Name()) {
			return nil
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list artifacts: %w", err)
	}
	sort.Strings(names)
	return names, nil
}

// ListStaged returns the .json files under [Dir] that the index x adds or
// changes relative to HEAD, as project-relative paths; relRoot is the
// project root relative to the working tree root ("" at the top). The list
// and the content come from one reading of the index.
func ListStaged(x *git.Index, relRoot string) ([]string, error) {
	changes, err := x.StagedChanges(path.Join(relRoot, Dir))
	if err != nil {
		return nil, fmt.Errorf("list staged artifacts: %w", err)
	}
	var names []string
	for _, c := range changes {
		if c.Kind != git.Deleted && strings.HasSuffix(c.Path, ".json") {
			names = append(names, Dir+"/"+c.Path)
		}
	}
	return names, nil
}

// Input is one document to check: the path reports show, and where to read
// it.
type Input struct {
	Path string // as shown in reports
	FS   fs.FS
	Name string // slash path in FS
}

// File is the input of a file on disk, named on a command line.
func File(shown, osPath string) Input {
	return Input{Path: shown, FS: os.DirFS(filepath.Dir(osPath)), Name: filepath.Base(osPath)}
}

// ReadFile reads name from fsys exactly: a regular file (links followed) of
// at most [MaxBytes], not empty. The size is checked before the file is
// read and bounded while it is, in case it grows meanwhile; a device or a
// pipe is refused before it is opened, since opening one can block.
//
// A [*confined.Folder] opens without blocking, so there the kind is checked
// once, on the open file.
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	if f, ok := fsys.(*confined.Folder); ok {
		// The common case of a bulk read in four system calls; anything
		// else is read below, as before.
		if b, ok := f.ReadRegular(name, MaxBytes); ok {
			return b, nil
		}
	} else {
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			return nil, readError(err)
		}
		if err := checkInfo(fi); err != nil {
			return nil, err
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, readError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkInfo(fi); err != nil {
		return nil, err
	}
	b, err := readExact(f, fi.Size())
	switch {
	case err != nil:
		return nil, err
	case len(b) > MaxBytes:
		return nil, &TooLargeError{Size: -1}
	case len(b) == 0:
		return nil, ErrEmpty
	}
	return b, nil
}

// readExact reads f, whose size was size when stat'ed, in one allocation of
// that size (plus the byte that tells a file that grew), bounded by
// MaxBytes+1 whatever happens meanwhile.
func readExact(f io.Reader, size int64) ([]byte, error) {
	stated := size >= 0 && size <= MaxBytes
	if !stated {
		size = MaxBytes
	}
	b := make([]byte, size+1)
	// A file as big as it was stat'ed comes whole from one read, and one
	// read is one system call: asking again only to be told EOF would
	// cost a second for every artifact of a bulk validation.
	n, err := f.Read(b)
	switch {
	case err == nil && int64(n) == size && stated:
		return b[:n], nil
	case err == nil:
		var m int
		m, err = io.ReadFull(f, b[n:])
		n += m
	}
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return b[:n], nil // the usual case: the file is as big as it was
	case err != nil:
		return nil, err
	}
	// The file grew since it was stat'ed: read on, up to the bound.
	rest, err := io.ReadAll(io.LimitReader(f, MaxBytes+1-int64(n)))
	if err != nil {
		return nil, err
	}
	return append(b, rest...), nil
}

func checkInfo(fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return ErrFolder
	case !fi.Mode().IsRegular():
		return ErrNotRegular
	case fi.Size() > MaxBytes:
		return &TooLargeError{Size: fi.Size()}
	}
	return nil
}

func readError(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	var tl *confined.TooLargeError
	if errors.As(err, &tl) { // the file system's own bound refused it first
		return &TooLargeError{Size: tl.Size}
	}
	if errors.Is(err, confined.ErrNotRegular) { // refused by its kind, as checkInfo does
		return ErrNotRegular
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err // the path is the caller's to show
	}
	return err
}
