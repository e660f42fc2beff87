package confined_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// refusal reports whether err is the root refusing a path, which must
// name it.
func refusal(err error) bool {
	return errors.Is(err, confined.ErrOutside) || errors.Is(err, confined.ErrSymlink) ||
		errors.Is(err, confined.ErrNotDir) || errors.Is(err, fs.ErrInvalid)
}

// FuzzRootResolve resolves client paths through a Root over
// [confinedtest.HostileProject] with every read and write the root offers. No call may
// panic, return the outside file's content or list the outside folder,
// create or change anything outside the project, or refuse a path without
// naming it.
func FuzzRootResolve(f *testing.F) {
	for _, s := range confinedtest.HostileNames {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		root, _ := confinedtest.HostileProject(t)
		outside := confinedtest.WatchOutside(t, root)
		r := open(t, root)
		// check fails t when op on arg returned the outside file's content
		// or refused arg without naming it.
		check := func(op, arg string, data []byte, err error) {
			t.Helper()
			if strings.Contains(string(data), confinedtest.Sentinel) {
				t.Fatalf("%s(%q) read the file outside the project", op, arg)
			}
			if err != nil && refusal(err) && !confinedtest.NamesPath(err.Error(), arg) {
				t.Fatalf("%s(%q): refusal names no path: %v", op, arg, err)
			}
		}
		// checkOpened reads a file an open returned whole and checks it.
		checkOpened := func(op, arg string, file fs.File, err error) {
			if err != nil {
				check(op, arg, nil, err)
				return
			}
			data, err := io.ReadAll(file)
			file.Close()
			check(op, arg, data, err)
		}
		checkList := func(op, arg string, names []string, err error) {
			t.Helper()
			for _, n := range names {
				if n == "sentinel.txt" {
					t.Fatalf("%s(%q) listed the folder outside the project", op, arg)
				}
			}
			check(op, arg, nil, err)
		}

		// Reads.
		_, err := confined.Clean(name)
		check("Clean", name, nil, err)
		_, err = confined.Rel(root, name)
		check("Rel", name, nil, err)
		abs := filepath.Join(root, name)
		_, err = confined.Rel(root, abs)
		check("Rel", abs, nil, err)
		fsys := r.FS()
		data, err := fs.ReadFile(fsys, name)
		check("fs.ReadFile", name, data, err)
		data, err = confined.ReadFile(fsys, name)
		check("ReadFile", name, data, err)
		_, err = fs.Stat(fsys, name)
		check("Stat", name, nil, err)
		_, err = r.Lstat(name)
		check("Lstat", name, nil, err)
		file, err := fsys.Open(name)
		checkOpened("Open", name, file, err)
		es, err := fs.ReadDir(fsys, name)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		checkList("ReadDir", name, names, err)
		if d, err := r.OpenDir(name); err != nil {
			check("OpenDir", name, nil, err)
		} else {
			names, err := d.Readdirnames(-1)
			d.Close()
			checkList("OpenDir", name, names, err)
		}
		dir, base := path.Split(strings.ReplaceAll(name, `\`, "/"))
		if dir == "" {
			dir = "."
		}
		dir = strings.TrimSuffix(dir, "/")
		if folder, err := r.OpenFolder(dir); err != nil {
			check("OpenFolder", dir, nil, err)
		} else {
			if b, ok := folder.ReadRegular(base, 1<<20); ok {
				check("ReadRegular", base, b, nil)
			}
			file, err := folder.Open(base)
			checkOpened("Folder.Open", base, file, err)
			folder.Close()
		}

		// Writes: the project may change, the outside never.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		write := []byte("written by the fuzzer\n")
		check("WriteFile", name, nil, r.WriteFile(name, write, 0o644))
		check("WriteNew", name, nil, r.WriteNew(name, write, 0o644))
		check("WriteFileDeferSync", name, nil, r.WriteFileDeferSync(name, write, 0o644))
		check("MkdirAll", name, nil, r.MkdirAll(name))
		check("Append", name, nil, r.Append(ctx, name, write, confined.LogMax))
		if unlock, err := r.Lock(ctx, name); err != nil {
			check("Lock", name, nil, err)
		} else {
			_ = unlock()
		}
		check("Link", name, nil, r.Link(".foundry/dir/file.json", name))
		check("Rename", name, nil, r.Rename(name, ".foundry/renamed"))
		check("Rename", name, nil, r.Rename(".foundry/runbooks/deploy.md", name))
		if wf, err := r.OpenWriteFolder(name); err != nil {
			check("OpenWriteFolder", name, nil, err)
		} else {
			check("WriteFolder.WriteFile", name, nil, wf.WriteFile("x.md", write, 0o644))
			wf.Close()
		}
		check("Remove", name, nil, r.Remove(name))
		outside.Check(t, "a write through the root")
	})
}
