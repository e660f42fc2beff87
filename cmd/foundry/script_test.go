package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/foundryhq/foundry/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testscript files with actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"foundry": func() {
			os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

func TestScripts(t *testing.T) {
	t.Parallel()
	repoRoot, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                scriptCmds,
		Condition:           testenv.Condition,
		Setup: func(e *testscript.Env) error {
			// Hermetic git: no system or user config, fixed identity and dates.
			for _, kv := range []string{
				"GIT_CONFIG_NOSYSTEM=1",
				"GIT_CONFIG_GLOBAL=/dev/null",
				"GIT_AUTHOR_NAME=Foundry Test",
				"GIT_AUTHOR_EMAIL=test@foundry.invalid",
				"GIT_COMMITTER_NAME=Foundry Test",
				"GIT_COMMITTER_EMAIL=test@foundry.invalid",
				"GIT_AUTHOR_DATE=2026-01-02T10:00:00Z",
				"GIT_COMMITTER_DATE=2026-01-02T10:00:00Z",
				"GIT_CONFIG_COUNT=2",
				"GIT_CONFIG_KEY_0=init.defaultBranch",
				"GIT_CONFIG_VALUE_0=main",
				"GIT_CONFIG_KEY_1=gc.auto",
				"GIT_CONFIG_VALUE_1=0",
				"REPO_ROOT=" + repoRoot,
				"GOVERSION=" + runtime.Version(),
			} {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			return nil
		},
	})
}
