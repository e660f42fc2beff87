package foundry_test

import (
	"go/ast"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fsCalls are the calls of packages os, path/filepath and io/ioutil that
// open, read, write, stat, list or change a file by its path. Foundry makes
// them through internal/confined: one root per project, every read bounded,
// no symbolic link followed out of it. Resolving where a root opens
// (filepath.Abs, EvalSymlinks) and watching a folder (inotify) are not
// among them.
var fsCalls = map[string][]string{
	"os": {"Open", "OpenFile", "Create", "CreateTemp", "ReadFile", "WriteFile", "Stat", "Lstat",
		"Remove", "RemoveAll", "Rename", "Mkdir", "MkdirAll", "MkdirTemp", "ReadDir", "Chmod",
		"Chown", "Lchown", "Chtimes", "Symlink", "Link", "Readlink", "Truncate", "DirFS",
		"OpenRoot", "OpenInRoot", "CopyFS"},
	"filepath": {"Walk", "WalkDir", "Glob"},
	"ioutil":   {"ReadFile", "WriteFile", "ReadDir", "TempFile", "TempDir"},
}

// fsPackages maps the import paths of fsCalls' packages to their keys.
var fsPackages = map[string]string{"os": "os", "path/filepath": "filepath", "io/ioutil": "ioutil"}

// unconfined lists, by file and call, the file-system calls made outside
// internal/confined, each with why it is not a project's file. An entry no
// call matches any more fails too, so the list stays true.
var unconfined = map[string]string{
	"artifacts/read.go: os.DirFS":                    "validate's FILE arguments, which the user names anywhere; read through ReadFile's bounds",
	"claude/plugin.go: os.MkdirAll":                  "the folder the user names for plugin build; what goes in it is written through a root",
	"cmd/foundry/app.go: os.Stat":                    "-C DIR: the folder the user names must exist before a project is looked for in it",
	"cmd/foundry/app.go: os.OpenFile":                "--log-file: the user's log file, anywhere",
	"cmd/foundry/cmd_plugin.go: os.Lstat":            "plugin build refuses a folder that holds a project, before any root is opened",
	"cmd/foundry/flagfile.go: os.Open":               "--data-file and --body-file: files the user names, anywhere; read bounded",
	"git/repo.go: os.Stat":                           "finding the repository as git does (GIT_DIR, a .git folder or file, commondir), before any root exists",
	"git/repo.go: os.OpenFile":                       "openRegular: a .git file, commondir or GIT_INDEX_FILE, which git or the environment name anywhere; regular files only, checked once open",
	"hooks/install.go: os.Lstat":                     "the hooks folder git uses (core.hooksPath is the user's), links followed as git follows them",
	"hooks/install.go: os.Remove":                    "a hooks folder a failed install created, where core.hooksPath names it itself",
	"hooks/precommit.go: os.MkdirAll":                "core.hooksPath itself, the folder the user chose, links and all",
	"internal/hugepages/hugepages_linux.go: os.Open": "the kernel's transparent huge page setting under /sys",
	"mcp/daemon.go: os.Open":                         "the TLS certificate and key mcp.http names, outside the worktree; read bounded",
	"mcp/livetokens.go: os.Stat":                     "the token file mcp.http names, outside the worktree",
	"project/init.go: os.Stat":                       "finding where init puts a project (walking up), before any root exists",
	"project/init.go: os.Lstat":                      "finding where init puts a project (walking up), before any root exists",
	"project/project.go: os.Stat":                    "finding the project by walking up to its .foundry, before any root exists",
}

// TestFileAccessConfined holds every non-test Go file outside
// internal/confined, test helpers and scripts to the engineering standard:
// every file Foundry touches goes through one confined root. A call of
// fsCalls elsewhere must be listed in unconfined, with why.
func TestFileAccessConfined(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	seen := map[string]bool{}
	eachModuleFile(t, fset, 0, func(path string, f *ast.File) {
		path = filepath.ToSlash(path)
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "internal/confined" || strings.HasPrefix(pkg, "scripts") || strings.HasSuffix(pkg, "test") || testOnly[pkg] {
			return
		}
		names := map[string]string{} // local name → its key in fsCalls
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			key, ok := fsPackages[p]
			if !ok {
				continue
			}
			names[key] = key
			if imp.Name != nil {
				names[imp.Name.Name] = key
			}
		}
		eachQualified(f, func(x string, sel *ast.SelectorExpr) {
			pkgName, ok := names[x]
			if !ok || !slices.Contains(fsCalls[pkgName], sel.Sel.Name) {
				return
			}
			key := path + ": " + pkgName + "." + sel.Sel.Name
			seen[key] = true
			if unconfined[key] == "" {
				t.Errorf("%s: %s.%s outside internal/confined: go through the project's root, or list it in unconfined with why", fset.Position(sel.Pos()), pkgName, sel.Sel.Name)
			}
		})
	})
	for _, key := range slices.Sorted(maps.Keys(unconfined)) {
		if !seen[key] {
			t.Errorf("unconfined lists %q, which no file calls any more: remove it", key)
		}
	}
}
