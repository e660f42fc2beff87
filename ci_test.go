package foundry_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCIInstallsEveryRequirement checks that both CI entry points provide
// every program a test requires. Both run with CI set (.ci/run exports
// CI=1, GitHub sets CI=true), so a program a CLI script asks for with
// [!need:PROG] or a test with testenv.Exec fails the run when it is
// missing: .ci/run must install it with its need function, and the GitHub
// workflow with apt-get, unless every Linux machine that runs them has it.
func TestCIInstallsEveryRequirement(t *testing.T) {
	t.Parallel()
	// everywhere: programs any Linux machine running .ci/run has (bash runs
	// the script, coreutils, the go command it calls).
	everywhere := map[string]bool{"bash": true, "sh": true, "truncate": true, "go": true}
	// onRunners: programs GitHub's ubuntu runners ship.
	onRunners := map[string]bool{"git": true, "node": true}

	required := map[string]bool{"git": true} // gittest drives git itself
	scripts, err := filepath.Glob("cmd/foundry/testdata/script/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no CLI scripts found: %v", err)
	}
	needRE := regexp.MustCompile(`\[!?need:([A-Za-z0-9._-]+)\]`)
	for _, s := range scripts {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range needRE.FindAllStringSubmatch(string(data), -1) {
			required[m[1]] = true
		}
	}
	execRE := regexp.MustCompile(`testenv\.Exec\(\w+, "([^"]+)"\)`)
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range execRE.FindAllStringSubmatch(string(data), -1) {
			required[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	run, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	data, err := os.ReadFile(".github/workflows/ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	var installed []string
	for _, s := range wf.Jobs["test"].Steps {
		if _, pkgs, ok := strings.Cut(s.Run, "apt-get install -y -qq "); ok {
			installed = append(installed, strings.Fields(pkgs)...)
		}
	}
	for prog := range required {
		if everywhere[prog] {
			continue
		}
		if !regexp.MustCompile(`(?m)^need ` + regexp.QuoteMeta(prog) + ` `).Match(run) {
			t.Errorf(".ci/run does not install %s, which a test requires under CI", prog)
		}
		if !onRunners[prog] && !slices.Contains(installed, prog) {
			t.Errorf("the GitHub workflow's test job does not apt-get install %s, which a test requires under CI (GitHub sets CI=true)", prog)
		}
	}
}
