package main

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are the extra testscript commands of the CLI scripts.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"cptree": cmdCptree,
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
