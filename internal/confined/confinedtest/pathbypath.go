package confinedtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// PathByPath returns fsys, a project's confined root FS, hidden from
// [confined.RootOf]: whatever reads it reads every file through the root,
// path by path, never through a [confined.Folder]. A test of a read by
// folder compares its answers with those read through PathByPath(fsys).
func PathByPath(fsys fs.FS) fs.FS { return pathByPath{fsys} }

type pathByPath struct{ fsys fs.FS }

func (p pathByPath) Open(name string) (fs.File, error)          { return p.fsys.Open(name) }
func (p pathByPath) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(p.fsys, name) }
func (p pathByPath) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(p.fsys, name) }
func (p pathByPath) ReadLink(name string) (string, error)       { return fs.ReadLink(p.fsys, name) }
func (p pathByPath) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(p.fsys, name) }
func (p pathByPath) ReadFile(name string) ([]byte, error)       { return fs.ReadFile(p.fsys, name) }
func (p pathByPath) Sub(dir string) (fs.FS, error)              { return fs.Sub(p.fsys, dir) }
func (p pathByPath) Glob(pattern string) ([]string, error)      { return fs.Glob(p.fsys, pattern) }

// WriteTree writes files (slash path → content) and symbolic links (slash
// path → target) under root, making their folders; it skips the test
// where links cannot be made.
func WriteTree(tb testing.TB, root string, files, links map[string]string) {
	tb.Helper()
	for p, content := range files {
		testenv.WriteFile(tb, root, p, content)
	}
	for p, target := range links {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			tb.Skipf("no symbolic links here: %v", err)
		}
	}
}
