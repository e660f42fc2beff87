package confined_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// project makes a folder holding .foundry/memory and a secret file beside
// it (outside the project), and returns both.
func project(t *testing.T) (root, secret string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "proj")
	if err := os.MkdirAll(filepath.Join(root, ".foundry", "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret = filepath.Join(base, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, secret
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

func open(t *testing.T, dir string) *confined.Root {
	t.Helper()
	r, err := confined.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRootReads checks that reads follow a symbolic link only to a target
// inside the project, and one inside .foundry only to a target inside
// .foundry: a committed link to .git/config or an untracked .env is
// refused, not read as an artifact, through every way the root reads.
func TestRootReads(t *testing.T) {
	t.Parallel()
	root, secret := project(t)
	for name, data := range map[string]string{
		"inside.md":                  "inside",
		".env":                       "API_KEY=secret",
		".git/config":                "token secret",
		"meta/memory/fact.md":        "moved secret",
		".foundry/runbooks/plain.md": "plain",
		".foundry/memory/fact.md":    "fact",
	} {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), data)
	}
	for link, target := range map[string]string{
		".foundry/runbooks/abs.md":  secret,
		".foundry/runbooks/rel.md":  "../../../secret.txt",
		".foundry/runbooks/env.md":  "../../.env",
		".foundry/runbooks/git.md":  "../../.git/config",
		".foundry/runbooks/ok.md":   "plain.md",
		".foundry/runbooks/up.md":   "../memory/fact.md",
		".foundry/runbooks/back.md": "../../.foundry/memory/fact.md", // out and back in
		".foundry/blackboard":       "../meta/memory",                // a folder out
		"top.md":                    "inside.md",                     // not in .foundry
		"into.md":                   ".foundry/memory/fact.md",
	} {
		symlink(t, target, filepath.Join(root, filepath.FromSlash(link)))
	}
	r := open(t, root)
	tests := []struct {
		name    string
		want    string
		wantErr error
	}{
		{".foundry/runbooks/abs.md", "", confined.ErrOutsideFoundry},
		{".foundry/runbooks/rel.md", "", confined.ErrOutsideFoundry},
		{".foundry/runbooks/env.md", "", confined.ErrOutsideFoundry},
		{".foundry/runbooks/git.md", "", confined.ErrOutsideFoundry},
		{".foundry/runbooks/back.md", "", confined.ErrOutsideFoundry},
		{".foundry/blackboard/fact.md", "", confined.ErrOutsideFoundry},
		{".foundry/runbooks/ok.md", "plain", nil},
		{".foundry/runbooks/up.md", "fact", nil},
		{"top.md", "inside", nil},
		{"into.md", "fact", nil},
	}
	for _, tt := range tests {
		got, err := fs.ReadFile(r.FS(), tt.name)
		if !errors.Is(err, tt.wantErr) || string(got) != tt.want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.wantErr)
		}
		if tt.wantErr != nil && !errors.Is(err, confined.ErrOutside) {
			t.Errorf("ReadFile(%s): %v is no ErrOutside", tt.name, err)
		}
		if _, err := fs.Stat(r.FS(), tt.name); !errors.Is(err, tt.wantErr) {
			t.Errorf("Stat(%s): %v, want %v", tt.name, err, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), tt.name) {
			t.Errorf("ReadFile(%s): %q does not name the file", tt.name, err)
		}
		// The bulk reads: one folder opened for many of its files.
		dir, base := path.Split(tt.name)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		if f, err := r.OpenFolder(dir); err == nil {
			if got, err := fs.ReadFile(f, base); !errors.Is(err, tt.wantErr) || string(got) != tt.want {
				t.Errorf("Folder(%s).ReadFile(%s) = %q, %v; want %q, %v", dir, base, got, err, tt.want, tt.wantErr)
			}
			f.Close()
		} else if !errors.Is(err, tt.wantErr) {
			t.Errorf("OpenFolder(%s): %v", dir, err)
		}
	}
	// A folder outside .foundry reads a path into it as the root does.
	if f, err := r.OpenFolder("."); err != nil {
		t.Error(err)
	} else {
		for name, want := range map[string]error{".foundry/runbooks/env.md": confined.ErrOutsideFoundry, ".foundry/runbooks/ok.md": nil} {
			if _, err := fs.ReadFile(f, name); !errors.Is(err, want) {
				t.Errorf("Folder(.).ReadFile(%s): %v, want %v", name, err, want)
			}
			if _, err := fs.Stat(f, name); !errors.Is(err, want) {
				t.Errorf("Folder(.).Stat(%s): %v, want %v", name, err, want)
			}
		}
		f.Close()
	}
	// A folder that leads out of .foundry is neither listed nor opened.
	if _, err := fs.ReadDir(r.FS(), ".foundry/blackboard"); !errors.Is(err, confined.ErrOutsideFoundry) {
		t.Errorf("ReadDir(.foundry/blackboard): %v, want ErrOutsideFoundry", err)
	}
	if _, err := r.OpenDir(".foundry/blackboard"); !errors.Is(err, confined.ErrOutsideFoundry) {
		t.Errorf("OpenDir(.foundry/blackboard): %v, want ErrOutsideFoundry", err)
	}
	// The links themselves can be described: a listing does not fail on one.
	es, err := fs.ReadDir(r.FS(), ".foundry/runbooks")
	if err != nil || len(es) != 8 {
		t.Fatalf("ReadDir(.foundry/runbooks) = %v, %v", es, err)
	}
	for _, e := range es {
		if fi, err := e.Info(); err != nil || fi.Mode().IsRegular() != (e.Name() == "plain.md") {
			t.Errorf("Info of %s = %v, %v", e.Name(), fi, err)
		}
	}
}

// TestRootReadsLinkedFoundry checks that a .foundry that is itself a link
// to a folder inside the project is read, and that what it holds may lead
// only inside the folder it links to: not to that folder's siblings.
func TestRootReadsLinkedFoundry(t *testing.T) {
	t.Parallel()
	root := projectWithoutFoundry(t)
	writeFile(t, filepath.Join(root, "meta/foundry/memory/fact.md"), "fact")
	writeFile(t, filepath.Join(root, "meta/secret.md"), "secret")
	symlink(t, "meta/foundry", filepath.Join(root, ".foundry"))
	symlink(t, "../memory/fact.md", filepath.Join(root, "meta/foundry/runbooks/in.md"))
	symlink(t, "../../secret.md", filepath.Join(root, "meta/foundry/runbooks/out.md"))
	r := open(t, root)
	if got, err := fs.ReadFile(r.FS(), ".foundry/runbooks/in.md"); err != nil || string(got) != "fact" {
		t.Errorf("ReadFile(.foundry/runbooks/in.md) = %q, %v; want fact", got, err)
	}
	if got, err := fs.ReadFile(r.FS(), ".foundry/runbooks/out.md"); !errors.Is(err, confined.ErrOutsideFoundry) {
		t.Errorf("ReadFile(.foundry/runbooks/out.md) = %q, %v; want ErrOutsideFoundry", got, err)
	}
	if fi, err := fs.Stat(r.FS(), ".foundry"); err != nil || !fi.IsDir() {
		t.Errorf("Stat(.foundry) = %v, %v; want the folder it links to", fi, err)
	}
}

// TestRootReadsFoundryLink checks where a .foundry that is a link may
// lead: to a folder inside the project, whose links then stay inside it;
// not to the project's own folder, which would hold .git/config and an
// untracked .env; not out of the project, refused as any link out of it.
func TestRootReadsFoundryLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target  string // of .foundry
		want    string
		wantErr error
	}{
		{"meta", "fact", nil},
		{"meta/", "fact", nil},
		{"sub/../meta", "fact", nil},
		{".", "", confined.ErrFoundryIsProject},
		{"./", "", confined.ErrFoundryIsProject},
		{"meta/..", "", confined.ErrFoundryIsProject},
		{"up", "", confined.ErrFoundryIsProject}, // up -> . : through a second link
		{"..", "", confined.ErrOutside},
		{"../proj", "", confined.ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			t.Parallel()
			root := projectWithoutFoundry(t)
			writeFile(t, filepath.Join(root, "meta/memory/fact.md"), "fact")
			writeFile(t, filepath.Join(root, "memory/fact.md"), "fact at the top")
			writeFile(t, filepath.Join(root, ".git/config"), "token secret")
			writeFile(t, filepath.Join(root, "sub/keep"), "")
			symlink(t, "../.git/config", filepath.Join(root, "memory/git.md"))
			symlink(t, ".git/config", filepath.Join(root, "git.md"))
			writeFile(t, filepath.Join(root, "meta/git.md"), "fact")
			symlink(t, ".", filepath.Join(root, "up"))
			symlink(t, tt.target, filepath.Join(root, ".foundry"))
			r := open(t, root)
			// A file directly in .foundry, read as a batch of its folder.
			if f, err := r.OpenFolder(".foundry"); !errors.Is(err, tt.wantErr) {
				t.Errorf("OpenFolder(.foundry): %v, want %v", err, tt.wantErr)
			} else if err == nil {
				if got, err := fs.ReadFile(f, "git.md"); err != nil || string(got) != tt.want {
					t.Errorf("Folder(.foundry).ReadFile(git.md) = %q, %v; want %q", got, err, tt.want)
				}
				f.Close()
			}
			for _, name := range []string{".foundry/memory/fact.md", ".foundry/memory/git.md", ".foundry/memory"} {
				want, wantErr := tt.want, tt.wantErr
				switch {
				case name == ".foundry/memory/git.md" && wantErr == nil:
					want, wantErr = "", fs.ErrNotExist // only the top memory folder holds one
				case name == ".foundry/memory":
					if _, err := r.OpenDir(name); !errors.Is(err, wantErr) {
						t.Errorf("OpenDir(%s): %v, want %v", name, err, wantErr)
					}
					if f, err := r.OpenFolder(name); !errors.Is(err, wantErr) {
						t.Errorf("OpenFolder(%s): %v, want %v", name, err, wantErr)
					} else if err == nil {
						f.Close()
					}
					continue
				}
				got, err := fs.ReadFile(r.FS(), name)
				if !errors.Is(err, wantErr) || string(got) != want {
					t.Errorf("ReadFile(%s) = %q, %v; want %q, %v", name, got, err, want, wantErr)
				}
				if _, err := fs.Stat(r.FS(), name); !errors.Is(err, wantErr) {
					t.Errorf("Stat(%s): %v, want %v", name, err, wantErr)
				}
				if err != nil && (!strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "escapes")) {
					t.Errorf("ReadFile(%s): %q does not name the file and its refusal", name, err)
				}
			}
		})
	}
}

// projectWithoutFoundry is [project] with .foundry removed, for a test
// that makes it a link.
func projectWithoutFoundry(t *testing.T) string {
	t.Helper()
	root, _ := project(t)
	if err := os.RemoveAll(filepath.Join(root, ".foundry")); err != nil {
		t.Fatal(err)
	}
	return root
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRootWritesFollowNoSymlink checks every write, lock and append
// refuses a path through a symbolic link, .foundry itself included, and
// leaves the link's target untouched.
func TestRootWritesFollowNoSymlink(t *testing.T) {
	t.Parallel()
	ops := []struct {
		name string
		do   func(r *confined.Root, p string) error
	}{
		{"WriteFile", func(r *confined.Root, p string) error { return r.WriteFile(p, []byte("x"), 0o644) }},
		{"WriteNew", func(r *confined.Root, p string) error { return r.WriteNew(p, []byte("x"), 0o644) }},
		{"WriteFileDeferSync", func(r *confined.Root, p string) error { return r.WriteFileDeferSync(p, []byte("x"), 0o644) }},
		{"Lock", func(r *confined.Root, p string) error {
			unlock, err := r.Lock(context.Background(), p)
			if err == nil {
				err = unlock()
			}
			return err
		}},
		{"Append", func(r *confined.Root, p string) error {
			return r.Append(context.Background(), p, []byte("line\n"), confined.LogMax)
		}},
		{"MkdirAll", func(r *confined.Root, p string) error { return r.MkdirAll(p + "/sub") }},
	}
	links := []struct {
		name   string
		link   string // made a symbolic link to a folder or file outside
		target string // "dir" or "file"
		write  string
	}{
		{"foundry itself", ".foundry", "dir", ".foundry/memory/x"},
		{"a folder inside", ".foundry/metrics", "dir", ".foundry/metrics/events.jsonl"},
		{"the file", ".foundry/metrics/events.jsonl", "file", ".foundry/metrics/events.jsonl"},
		{"a lock file", ".foundry/memory/.lock", "file", ".foundry/memory/.lock"},
	}
	for _, op := range ops {
		for _, l := range links {
			if op.name == "MkdirAll" && l.target == "file" {
				continue
			}
			t.Run(op.name+"/"+l.name, func(t *testing.T) {
				t.Parallel()
				root, secret := project(t)
				outside := filepath.Join(filepath.Dir(secret), "outside")
				if err := os.MkdirAll(filepath.Join(outside, "memory"), 0o755); err != nil {
					t.Fatal(err)
				}
				target := outside
				if l.target == "file" {
					target = secret
				}
				link := filepath.Join(root, filepath.FromSlash(l.link))
				if l.link == ".foundry" {
					os.RemoveAll(link)
				}
				symlink(t, target, link)
				err := op.do(open(t, root), l.write)
				if !errors.Is(err, confined.ErrSymlink) {
					t.Errorf("err = %v, want ErrSymlink", err)
				}
				if b, _ := os.ReadFile(secret); string(b) != "top secret\n" {
					t.Errorf("file outside changed: %q", b)
				}
				if es, _ := os.ReadDir(filepath.Join(outside, "memory")); len(es) != 0 {
					t.Errorf("wrote outside: %v", es)
				}
			})
		}
	}
}

// TestBoundedRefusesLargeFiles checks each kind's limit is enforced from
// the size, before reading.
func TestBoundedRefusesLargeFiles(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	tests := []struct {
		name string
		size int64
		ok   bool
	}{
		{".foundry/memory/fact-0001-a.md", 64 * confined.KiB, true},
		{".foundry/memory/fact-0002-b.md", 64*confined.KiB + 1, false},
		{".foundry/config.yaml", 64*confined.KiB + 1, false},
		{".foundry/runbooks/r.md", confined.MiB + 1, false},
		{".foundry/schemas/x.v1.schema.json", confined.MiB + 1, false},
		{".foundry/blackboard/w/a.json", 8 * confined.MiB, true},
		{".foundry/blackboard/w/b.json", 8*confined.MiB + 1, false},
	}
	for _, tt := range tests {
		testenv.WriteFile(t, root, tt.name, "")
		if err := os.Truncate(filepath.Join(root, filepath.FromSlash(tt.name)), tt.size); err != nil {
			t.Fatal(err)
		}
	}
	r := open(t, root)
	for _, tt := range tests {
		_, err := fs.ReadFile(r.FS(), tt.name)
		_, oerr := r.FS().Open(tt.name)
		for _, err := range []error{err, oerr} {
			var tl *confined.TooLargeError
			switch {
			case tt.ok && err != nil:
				t.Errorf("%s (%d bytes): %v", tt.name, tt.size, err)
			case !tt.ok && !errors.As(err, &tl):
				t.Errorf("%s (%d bytes): err = %v, want a TooLargeError", tt.name, tt.size, err)
			case !tt.ok && !strings.Contains(err.Error(), tt.name) || !tt.ok && !strings.Contains(err.Error(), confined.LimitFor(tt.name).String()):
				t.Errorf("%s: message %q names neither the file nor the limit", tt.name, err)
			}
		}
	}
}

// TestBoundedReadAt: a file opened through the root's FS or a Folder of it
// can be read at an offset, so that a reader can count on from where it
// stopped, and such a read is held to the file's limit, counted from the
// file's start, as reading it through is.
func TestBoundedReadAt(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	const name = "fact-0001-a.md"
	full := filepath.Join(root, ".foundry", "memory", name)
	data := bytes.Repeat([]byte("0123456789"), 64*confined.KiB/10+1)[:64*confined.KiB] // at its limit
	if err := os.WriteFile(full, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := open(t, root)
	folder, err := r.OpenFolder(confined.MemoryDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { folder.Close() })
	for _, opener := range []struct {
		name string
		open func() (fs.File, error)
	}{
		{"root", func() (fs.File, error) { return r.FS().Open(confined.MemoryDir + "/" + name) }},
		{"folder", func() (fs.File, error) { return folder.Open(name) }},
	} {
		f, err := opener.open()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ra, ok := f.(io.ReaderAt)
		if !ok {
			t.Fatalf("%s: %T cannot be read at an offset", opener.name, f)
		}
		got := make([]byte, 10)
		if n, err := ra.ReadAt(got, 1005); n != 10 || err != nil || string(got) != "5678901234" {
			t.Errorf("%s: ReadAt at 1005 = %d, %v, %q", opener.name, n, err, got[:n])
		}
		// Grown past its limit since it was opened: a read beyond the
		// limit is refused.
		if err := os.WriteFile(full, append(data, "more"...), 0o644); err != nil {
			t.Fatal(err)
		}
		var tl *confined.TooLargeError
		if _, err := ra.ReadAt(got, int64(len(data))-6); !errors.As(err, &tl) {
			t.Errorf("%s: ReadAt past the limit: err = %v, want a TooLargeError", opener.name, err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAppendCaps checks a log never passes its cap and keeps the newest
// lines, whole.
func TestAppendCaps(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	r := open(t, root)
	const max = 1000
	for i := range 500 {
		if err := r.Append(context.Background(), ".foundry/metrics/events.jsonl", fmt.Appendf(nil, "line %04d\n", i), max); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, ".foundry/metrics/events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > max {
		t.Errorf("log is %d bytes, over the cap of %d", len(b), max)
	}
	if !bytes.HasSuffix(b, []byte("line 0499\n")) || !bytes.HasPrefix(b, []byte("line ")) {
		t.Errorf("log lost its newest line or a line was cut:\n%s", b)
	}
	if bytes.Contains(b, []byte("line 0000")) {
		t.Error("the oldest line was kept")
	}
}

// TestAppendFollowsItsFolder checks that the folder of a log, held open
// between appends, is opened again when its path leads elsewhere: removed
// and recreated, the next append writes to the new folder; replaced by a
// symbolic link, the next append is refused and writes nothing outside.
func TestAppendFollowsItsFolder(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	r := open(t, root)
	metrics := filepath.Join(root, ".foundry", "metrics")
	appendLine := func(line string) error {
		return r.Append(context.Background(), ".foundry/metrics/events.jsonl", []byte(line+"\n"), confined.LogMax)
	}
	if err := appendLine("first"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(metrics, metrics+".old"); err != nil {
		t.Fatal(err)
	}
	if err := appendLine("second"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(metrics, "events.jsonl")); err != nil || string(b) != "second\n" {
		t.Errorf("after the folder moved away, the log holds %q, %v; want the second line alone", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(metrics+".old", "events.jsonl")); string(b) != "first\n" {
		t.Errorf("the moved folder's log changed: %q", b)
	}
	outside := filepath.Join(filepath.Dir(root), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(metrics); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, metrics)
	if err := appendLine("third"); !errors.Is(err, confined.ErrSymlink) {
		t.Errorf("append through a folder replaced by a symbolic link: err = %v, want ErrSymlink", err)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Errorf("wrote outside: %v", es)
	}
}

// TestAppendRemovesStaleTempsWhenCompacting checks that an append leaves
// the log's folder unlisted and a rewrite over the cap, the only writer of
// temp files there, removes those older than StaleAge that a killed
// rewrite left.
func TestAppendRemovesStaleTempsWhenCompacting(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	r := open(t, root)
	dir := filepath.Join(root, ".foundry/metrics")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, confined.TempPrefix+"events.jsonl-old")
	if err := os.WriteFile(stale, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-confined.StaleAge - time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	const max = 100
	appendLine := func() {
		t.Helper()
		if err := r.Append(context.Background(), ".foundry/metrics/events.jsonl", []byte("twenty bytes a line\n"), max); err != nil {
			t.Fatal(err)
		}
	}
	appendLine()
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("an append under the cap touched the folder's temp files: %v", err)
	}
	for range 5 {
		appendLine()
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temp file not removed by the rewrite over the cap: %v", err)
	}
}

// TestLockRemovesStaleTemps checks the next lock holder removes a temp file
// older than StaleAge and keeps a fresh one.
func TestLockRemovesStaleTemps(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	dir := filepath.Join(root, ".foundry", "memory")
	stale := filepath.Join(dir, confined.TempPrefix+"fact-0001.md-old")
	fresh := filepath.Join(dir, confined.TempPrefix+"fact-0002.md-new")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-confined.StaleAge - time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	r := open(t, root)
	if got := r.StaleTemps(".foundry/memory", time.Now().Add(-confined.StaleAge)); len(got) != 1 || path.Base(got[0]) != filepath.Base(stale) {
		t.Errorf("StaleTemps = %v, want the stale one only", got)
	}
	unlock, err := r.Lock(context.Background(), ".foundry/memory/.lock")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unlock() }()
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temp file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temp file removed: %v", err)
	}
}

func TestLockExcludes(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	r := open(t, root)
	unlock, err := r.Lock(context.Background(), ".foundry/memory/.lock")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := open(t, root).Lock(ctx, ".foundry/memory/.lock"); err == nil {
		t.Fatal("second lock acquired while the first is held")
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock2, err := r.Lock(context.Background(), ".foundry/memory/.lock")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	if err := unlock2(); err != nil {
		t.Fatal(err)
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		wantErr  error
	}{
		{"a/b.json", "a/b.json", nil},
		{"./a//b/../c.json", "a/c.json", nil},
		{`a\b.json`, "a/b.json", nil},
		{"../x.json", "", confined.ErrOutside},
		{"a/../../x.json", "", confined.ErrOutside},
		{"/etc/passwd", "", confined.ErrOutside},
		{`C:\x.json`, "", confined.ErrOutside},
		{"", "", fs.ErrInvalid},
		{"a\x00b", "", fs.ErrInvalid},
	}
	for _, tt := range tests {
		got, err := confined.Clean(tt.in)
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestRefusalNamesPath checks that a path refused for leaving the root is
// named as the caller gave it, not as the part of it that was checked.
func TestRefusalNamesPath(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	r := open(t, root)
	tests := []struct {
		op   string
		err  error
		want string
	}{
		{"Lstat", func() error { _, err := r.Lstat("/etc/passwd"); return err }(), "/etc/passwd leads outside the project"},
		{"Lstat", func() error { _, err := r.Lstat("a/../../x"); return err }(), "a/../../x leads outside the project"},
		{"Remove", r.Remove("../proj2/x"), "../proj2/x leads outside the project"},
		{"Rename", r.Rename("../x", ".foundry/y"), "../x leads outside the project"},
		{"Link", r.Link("/tmp/x", ".foundry/y"), "/tmp/x leads outside the project"},
		{"Rel", func() error { _, err := confined.Rel(root, root+`/..\x`); return err }(), root + `/..\x leads outside the project`},
	}
	for _, tt := range tests {
		if tt.err == nil || tt.err.Error() != tt.want || !errors.Is(tt.err, confined.ErrOutside) {
			t.Errorf("%s: err = %v, want %q", tt.op, tt.err, tt.want)
		}
	}
}

// FuzzClean checks path resolution under the root: any accepted name is a
// valid fs path that stays inside, and an absolute name is accepted only
// inside the root.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "/etc/passwd", `..\..\x`, "a/./../b", "C:x", "\x00", ".foundry/../../x", "/proj/.foundry/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got, err := confined.Clean(name)
		if err == nil && (!fs.ValidPath(got) || got == ".." || strings.HasPrefix(got, "../") || path.IsAbs(got)) {
			t.Fatalf("Clean(%q) = %q, which leaves the root", name, got)
		}
		rel, err := confined.Rel("/proj", name)
		if err == nil && (!fs.ValidPath(rel) || strings.HasPrefix(rel, "../") || rel == "..") {
			t.Fatalf("Rel(/proj, %q) = %q, which leaves the root", name, rel)
		}
	})
}

// TestBoundedErrorsNameTheOperation checks the operation an error of a
// Bounded view names: os.Root's "statat" and "openat" read as "stat" and
// "open", and an operation already so named (a git view's "stat", "lstat")
// is kept whole, never cut to "st".
func TestBoundedErrorsNameTheOperation(t *testing.T) {
	t.Parallel()
	root, _ := project(t)
	for _, tt := range []struct {
		name string
		fsys fs.FS
	}{
		{"os.Root", confined.OpenFS(root)},
		{"another fs.FS", os.DirFS(root)},
	} {
		b := confined.Bounded(tt.fsys)
		_, err := fs.Stat(b, "missing.json")
		if want := "stat missing.json: "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Stat = %v, want it to begin %q", tt.name, err, want)
		}
		_, err = fs.Lstat(b, "missing.json")
		if want := "stat missing.json: "; err == nil || !strings.HasPrefix(strings.TrimPrefix(err.Error(), "l"), want) {
			t.Errorf("%s: Lstat = %v, want it to begin %q or l%s", tt.name, err, want, want)
		}
		_, err = b.Open("missing.json")
		if want := "open missing.json: "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Open = %v, want it to begin %q", tt.name, err, want)
		}
	}
}

// TestCheckFoundry: .foundry must be a folder, reached through a link
// too, for a write to go ahead; missing, or a file, it is ErrNoFoundry.
func TestCheckFoundry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		make  func(t *testing.T, dir string)
		wantE bool
	}{
		{"folder", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, ".foundry")) }, false},
		{"link to a folder", func(t *testing.T, dir string) {
			mkdir(t, filepath.Join(dir, "shared"))
			if err := os.Symlink("shared", filepath.Join(dir, ".foundry")); err != nil {
				t.Skipf("symlink: %v", err)
			}
		}, false},
		{"missing", func(*testing.T, string) {}, true},
		{"a file", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, ".foundry"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.make(t, dir)
			r, err := confined.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.CheckFoundry(); errors.Is(err, confined.ErrNoFoundry) != tt.wantE || (!tt.wantE && err != nil) {
				t.Errorf("CheckFoundry() = %v, want ErrNoFoundry: %v", err, tt.wantE)
			}
		})
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}
