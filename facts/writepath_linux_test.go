//go:build linux

package facts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/internal/testpause"
	"github.com/google/go-cmp/cmp"
)

// TestWriteReadsNoOtherFact checks that a write into a warm, watched store
// costs nothing in proportion to the facts: it lists no folder and opens
// no fact file but the ones it writes, and the lock file only once. The kernel says so through inotify,
// so nothing in the store is instrumented: a listing of the memory folder
// is an IN_ACCESS event on the folder itself, opening a file an IN_OPEN
// event naming it.
func TestWriteReadsNoOtherFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n, writes = 3000, 5
	s, root := warmWatched(t, n)
	accesses := confinedtest.WatchAccesses(t, filepath.Join(root, filepath.FromSlash(Dir)))
	var written []string
	for i := range writes {
		res, err := s.Write(ctx, benchWrite(i))
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, filepath.Base(res.Path))
	}
	listings, opened := accesses()
	if listings > 0 {
		t.Errorf("%d writes into %d facts listed the memory folder %d times", writes, n, listings)
	}
	if opened[".lock"] > 1 {
		t.Errorf("%d writes opened the lock file %d times; the store holds it open after the first", writes, opened[".lock"])
	}
	for name := range opened {
		switch {
		case name == ".lock", isTempFile(name):
		case strings.HasPrefix(name, "fact-") && !slices.Contains(written, name):
			t.Errorf("%d writes into %d facts opened %s, a fact they did not write", writes, n, name)
		}
	}
}

// warmWatched is watchedStore whose store has also rendered INDEX.md once.
func warmWatched(t *testing.T, n int) (*Store, string) {
	t.Helper()
	s, root := watchedStore(t, n)
	if _, err := s.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, root
}

// TestWriteDoesNotReadBackItsFact: a warm, watched store records the fact
// it writes as it wrote it and recognises the event of its rename, so the
// file is never opened under its name (only as the temp file written),
// and a search right after the write finds it.
func TestWriteDoesNotReadBackItsFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root := warmWatched(t, 200)
	accesses := confinedtest.WatchAccesses(t, filepath.Join(root, filepath.FromSlash(Dir)))
	res, err := s.Write(ctx, benchWrite(7))
	if err != nil {
		t.Fatal(err)
	}
	if _, opened := accesses(); opened[filepath.Base(res.Path)] > 0 {
		t.Errorf("the write opened %s, the fact it wrote, %d times", res.Path, opened[filepath.Base(res.Path)])
	}
	found, err := s.Search(ctx, Query{Text: "kwbench00007"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Hits) != 1 || found.Hits[0].ID != res.ID {
		t.Fatalf("search after the write: %+v", found.Hits)
	}
	onDisk, err := Parse(res.Path, res.Content)
	if err != nil {
		t.Fatal(err)
	}
	onDisk.Path = res.Path
	if got := found.Hits[0].Fact; !reflect.DeepEqual(got, onDisk) {
		t.Errorf("the store holds\n%+v\nthe file states\n%+v", got, onDisk)
	}
}

// TestWriteSeesAnEditDuringIt: a fact file changed by hand while a write
// puts it in place is read again: only a file renamed into place and not
// changed since is taken as the write recorded it. Edited in place (same
// file, same size) after the write's rename, or replaced (an editor's save:
// written beside, renamed over) between the write's rename and its
// recording, the store and INDEX.md hold the file now there.
func TestWriteSeesAnEditDuringIt(t *testing.T) {
	for _, tt := range []struct {
		name, point string
		edit        func(path string, b []byte) error
	}{
		{"edited in place", "facts.after-fact-written", func(path string, b []byte) error {
			f, err := os.OpenFile(path, os.O_WRONLY, 0) // in place: the same file
			if err == nil {
				_, err = f.Write(b)
				err = errors.Join(err, f.Close())
			}
			return err
		}},
		{"renamed over", "facts.fact-renamed", func(path string, b []byte) error {
			if err := os.WriteFile(path+"~", b, 0o644); err != nil {
				return err
			}
			return os.Rename(path+"~", path)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: the pause hook is the process's.
			ctx := context.Background()
			s, root := warmWatched(t, 50)
			res := writeWithPause(t, s, root, 3, tt.point, func(path string) error {
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				return tt.edit(path, bytes.Replace(b, []byte("Quokkas"), []byte("Wombats"), 1))
			})
			got, err := s.Get(ctx, res.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got.Title, "Wombats") {
				t.Errorf("after the file was changed during the write the store holds %q", got.Title)
			}
			index, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(IndexPath)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(index, []byte("Wombats store kwbench00003")) {
				t.Errorf("INDEX.md does not list the changed title:\n%s", index)
			}
		})
	}
}

// TestWriteGoneDuringIt: a fact file removed between the write's rename
// and its recording is not recorded, and nothing else of the store
// changes: INDEX.md, rendered ahead with the fact, is rendered again
// without it, as a rebuild would.
func TestWriteGoneDuringIt(t *testing.T) {
	// Not parallel: the pause hook is the process's.
	ctx := context.Background()
	s, root := warmWatched(t, 50)
	res := writeWithPause(t, s, root, 4, "facts.fact-renamed", os.Remove)
	if _, err := s.Get(ctx, res.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the fact removed during its write: Get says %v", err)
	}
	index, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(IndexPath)))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(index, []byte("kwbench00004")) {
		t.Errorf("INDEX.md lists the fact removed during its write:\n%s", index)
	}
	if !bytes.Equal(index, res.Index.Content) {
		t.Error("INDEX.md on disk is not the index the write reports")
	}
}

// TestWriteIndexRenderedOnce: in a warm, watched store, the INDEX.md a
// write renders before its files are in place is the one it puts there,
// not rendered again: for a new fact, and for one that supersedes another
// of the same title.
func TestWriteIndexRenderedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root := warmWatched(t, 50)
	for i, req := range []WriteRequest{benchWrite(1), benchWrite(2), {Title: benchWrite(1).Title, Type: Convention, Body: "Measured again."}} {
		res, err := s.Write(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 && res.Supersedes == "" {
			t.Fatal("the same title with another body superseded nothing")
		}
		s.mu.Lock()
		held := s.held
		s.mu.Unlock()
		if held != uint64(i+1) {
			t.Fatalf("write %d: the index rendered ahead held %d times in %d writes", i, held, i+1)
		}
		all, err := s.Facts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := BuildIndex(all, s.Today(), DefaultIndexBudget); readFile(t, root, IndexPath) != string(want.Content) {
			t.Fatalf("write %d: INDEX.md differs from a rebuild", i)
		}
	}
}

// TestWriteAcrossMidnight: a write whose day ends while it puts its files
// in place writes the INDEX.md of the new day, as a rebuild would, not the
// one it rendered the day before: a fact that expired at midnight is gone.
func TestWriteAcrossMidnight(t *testing.T) {
	// Not parallel: the pause hook is the process's.
	ctx := context.Background()
	root := t.TempDir()
	clock := &movingClock{now: fixedNow()}
	today := clock.Now().Format(DateLayout)
	last := Fact{ID: "fact-0001", Type: Risk, Title: "The old gateway is up until tonight", Scope: "project", Confidence: High,
		Source: "conversation", Created: "2025-03-01", Expires: today, Status: Active, Body: "Until today."}
	last.Path = Dir + "/" + FileName(last.ID, last.Title)
	testenv.WriteFile(t, root, last.Path, string(Format(last)))
	s := OpenDir(root, Options{Now: clock.Now, Watch: true})
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Index(ctx); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	pause.Install(func(_ context.Context, name string) {
		if name == "facts.fact-renamed" {
			once.Do(func() { clock.advance(24 * time.Hour) })
		}
	})
	defer testpause.Enable()
	if _, err := s.Write(ctx, benchWrite(5)); err != nil {
		t.Fatal(err)
	}
	index := readFile(t, root, IndexPath)
	if strings.Contains(index, "old gateway") {
		t.Errorf("INDEX.md lists the fact that expired during the write:\n%s", index)
	}
	all, err := s.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := BuildIndex(all, s.Today(), DefaultIndexBudget); index != string(want.Content) {
		t.Errorf("INDEX.md differs from a rebuild (-rebuild +disk):\n%s", cmp.Diff(string(want.Content), index))
	}
}

// writeWithPause writes benchWrite(i) into s, the store of the project at
// root, and runs act once on the fact file the write puts in place when the
// write reaches the pause point. The pause hook is the process's: its
// callers are not parallel.
func writeWithPause(t *testing.T, s *Store, root string, i int, point string, act func(path string) error) WriteResult {
	t.Helper()
	var once sync.Once
	var actErr error
	pause.Install(func(_ context.Context, name string) {
		if name != point {
			return
		}
		once.Do(func() {
			matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(Dir), fmt.Sprintf("fact-*-quokkas-store-kwbench%05d-*.md", i)))
			if len(matches) != 1 {
				actErr = fmt.Errorf("written fact: %v", matches)
				return
			}
			actErr = act(matches[0])
		})
	})
	defer testpause.Enable()
	res, err := s.Write(context.Background(), benchWrite(i))
	if err != nil {
		t.Fatal(err)
	}
	if actErr != nil {
		t.Fatal(actErr)
	}
	return res
}

// TestRefreshOwnWrite: the event of a store's own rename is taken as the
// write recorded the file only when the events name no write in place and
// the file's identity is the one recorded. What the store holds is made to
// differ from the file here, so a reading shows.
func TestRefreshOwnWrite(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		inPlace  bool
		otherKey bool
		read     bool
	}{
		{"renamed in only", false, false, false},
		{"written in place too", true, false, true},
		{"another file now", false, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := warmWatched(t, 5)
			ctx := context.Background()
			res, err := s.Write(ctx, benchWrite(1))
			if err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			c := s.files[res.Path]
			c.e.raw.Title, c.sum = "Held, not read", [sha256.Size]byte{}
			key := c.key
			if tt.otherKey {
				key.ino++
			}
			s.own = map[string]fileKey{res.Path: key}
			if err := s.refresh(res.Path, tt.inPlace); err != nil {
				t.Fatal(err)
			}
			if read := s.files[res.Path].e.raw.Title != "Held, not read"; read != tt.read {
				t.Errorf("read the file: %v, want %v", read, tt.read)
			}
			if len(s.own) != 0 {
				t.Errorf("own after the event: %v", s.own)
			}
		})
	}
}

// TestWriteStagesIndexWithFact: a write renders INDEX.md ahead and stages
// it while the fact's own temp file is written, so that their syncs
// overlap; the staged file, not one written again, is what lands as
// INDEX.md, and it holds the bytes of a full rebuild, for a new fact and
// for one that supersedes another. The kernel shows it through inotify:
// the write is paused before the fact's rename until a complete INDEX.md
// temp file appears, and INDEX.md ends up as that very file.
func TestWriteStagesIndexWithFact(t *testing.T) {
	// Not parallel: the pause hook is the process's.
	ctx := context.Background()
	s, root := warmWatched(t, 50)
	dir := filepath.Join(root, filepath.FromSlash(Dir))
	facts, err := s.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	supersede := facts[7]
	for _, tt := range []struct {
		name string
		req  WriteRequest
	}{
		{"new fact", benchWrite(1)},
		{"superseding", WriteRequest{Title: supersede.Title, Body: "Restated.\nWhy: measured again.\nHow to apply: read it.", Type: supersede.Type, Scope: supersede.Scope}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
			if err != nil {
				t.Skipf("no inotify: %v", err)
			}
			defer unix.Close(fd)
			if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CLOSE_WRITE); err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			var staged os.FileInfo
			var stageErr error
			pause.Install(func(_ context.Context, name string) {
				if name != "atomicfile.after-temp" {
					return
				}
				// The first temp file complete is the fact's, paused before
				// its rename: INDEX.md's must follow while it waits.
				once.Do(func() { staged, stageErr = awaitIndexTemp(fd, dir) })
			})
			defer testpause.Enable()
			res, err := s.Write(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if stageErr != nil {
				t.Fatal(stageErr)
			}
			if tt.name == "superseding" && res.Supersedes != supersede.ID {
				t.Fatalf("wrote %+v, want a fact superseding %s", res, supersede.ID)
			}
			fi, err := os.Lstat(filepath.Join(dir, "INDEX.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !os.SameFile(fi, staged) {
				t.Error("INDEX.md is not the file staged while the fact was written")
			}
			all, err := OpenDir(root, Options{Now: fixedNow}).Facts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := BuildIndex(all, fixedNow().Format(time.DateOnly), 0).Content
			if got, _ := os.ReadFile(filepath.Join(dir, "INDEX.md")); !bytes.Equal(got, want) {
				t.Errorf("INDEX.md differs from a full rebuild:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// awaitIndexTemp waits on the inotify descriptor fd, watching dir for
// IN_CLOSE_WRITE, until an INDEX.md temp file is closed after writing, and
// returns its identity; it gives up after a minute, for a write that does
// not stage INDEX.md ahead would wait for ever.
func awaitIndexTemp(fd int, dir string) (os.FileInfo, error) {
	buf := make([]byte, 1<<16)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 60_000)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return nil, err
		}
		if n == 0 {
			return nil, errors.New("no INDEX.md temp file was written while the fact's waited for its rename")
		}
		m, err := unix.Read(fd, buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return nil, err
		}
		for off := 0; off+unix.SizeofInotifyEvent <= m; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if strings.HasPrefix(name, confined.TempPrefix+"INDEX.md") {
				return os.Lstat(filepath.Join(dir, name))
			}
		}
	}
}
