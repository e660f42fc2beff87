package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

// contractsGeneration is the contract family this binary ships.
const contractsGeneration = "v1"

type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`   // vcs.revision, when the build recorded it
	Modified  bool   `json:"modified,omitempty"` // built from a worktree with changes
	Go        string `json:"go"`
	Contracts string `json:"contracts"`
}

// currentVersion reads the build: `go install …@v1.2.3` records v1.2.3 as
// the main module's version, `go build` in a checkout records the commit.
func currentVersion() versionInfo {
	bi, ok := debug.ReadBuildInfo()
	return versionFrom(version, bi, ok)
}

// versionFrom is [currentVersion] on given build information: stamped is
// the -ldflags version, which wins over the module's.
func versionFrom(stamped string, bi *debug.BuildInfo, ok bool) versionInfo {
	v := versionInfo{Version: stamped, Go: runtime.Version(), Contracts: contractsGeneration}
	if ok && bi != nil {
		if v.Version == "" && bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	return v
}

func newVersionCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version, the commit, the Go version and the contract generation",
		ArgsUsage: " ",
		Description: `Prints the foundry version (v1.2.3 when installed with go install …@v1.2.3),
the commit it was built from when the build recorded one, the Go toolchain
it was built with, and the contract generation it ships (contracts: v1).
foundry --version and foundry -v print the same.

EXIT STATUS:
   0  ok
   2  malformed command line`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("version takes no arguments")
			}
			if err := env.refuseSource("version"); err != nil {
				return err
			}
			return runVersion(env)
		},
	}
}

func runVersion(env *cliEnv) error {
	v := currentVersion()
	if env.json {
		return env.printJSON(v)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "foundry %s\n", v.Version)
	if v.Commit != "" {
		dirty := ""
		if v.Modified {
			dirty = " (modified)"
		}
		fmt.Fprintf(&b, "commit: %s%s\n", v.Commit, dirty)
	}
	fmt.Fprintf(&b, "go: %s\ncontracts: %s\n", v.Go, v.Contracts)
	_, err := io.WriteString(env.stdout, b.String())
	return err
}
