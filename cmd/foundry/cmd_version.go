package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

// contractsGeneration is the contract family this binary ships.
const contractsGeneration = "v1"

type versionInfo struct {
	Version   string `json:"version"`
	Go        string `json:"go"`
	Contracts string `json:"contracts"`
}

func currentVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func newVersionCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version, the Go version and the contract generation",
		ArgsUsage: " ",
		Description: `Prints the foundry version, the Go toolchain it was built with, and the
contract generation it ships (contracts: v1).

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
	v := versionInfo{Version: currentVersion(), Go: runtime.Version(), Contracts: contractsGeneration}
	if env.json {
		return env.printJSON(v)
	}
	_, err := fmt.Fprintf(env.stdout, "foundry %s\ngo: %s\ncontracts: %s\n", v.Version, v.Go, v.Contracts)
	return err
}
