package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

// scriptCmds are the extra testscript commands of the CLI scripts.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"cptree":         cmdCptree,
	"exits":          cmdExits,
	"precommitlocal": cmdPreCommitLocal,
}

// cmdExits runs a command and checks its exit status: exits N CMD ARGS...
// Its output is kept for the stdout and stderr commands that follow, as
// exec's is. `! exec` only says "not 0"; the exit-code table needs the code.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits N CMD [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// cmdCptree copies a folder tree: cptree SRC DST. Scripts use it to work on
// a copy of examples/demo ($REPO_ROOT/examples/demo), so the commands they
// run never write to the repository (the event log included, which is
// skipped).
func cmdCptree(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! cptree")
	}
	if len(args) != 2 {
		ts.Fatalf("usage: cptree SRC DST")
	}
	src, dst := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if filepath.ToSlash(rel) == ".foundry/metrics" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	ts.Check(err)
}

// cmdPreCommitLocal writes the pre-commit framework's
// .pre-commit-config.yaml declaring every hook of the hook manifest
// MANIFEST (a .pre-commit-hooks.yaml) as a local hook that runs the
// foundry on PATH (language: system), its other fields as the manifest
// has them: a script runs the manifest's own entry, files and
// pass_filenames, with no Go build. precommitlocal MANIFEST
func cmdPreCommitLocal(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! precommitlocal")
	}
	if len(args) != 1 {
		ts.Fatalf("usage: precommitlocal MANIFEST")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var hooks []map[string]any
	ts.Check(yaml.Unmarshal(data, &hooks))
	if len(hooks) == 0 {
		ts.Fatalf("%s declares no hook", args[0])
	}
	for _, h := range hooks {
		h["language"] = "system"
	}
	out, err := yaml.Marshal(map[string]any{"repos": []any{map[string]any{"repo": "local", "hooks": hooks}}})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(".pre-commit-config.yaml"), out, 0o644))
}
