package foundry_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestActionDefinition checks action.yml against what its script and the
// README expect: a composite action whose check step runs
// scripts/action-check with every input it reads, uploads the folder that
// script writes, and pins every action it uses by commit SHA.
func TestActionDefinition(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	script, err := os.ReadFile("scripts/action-check")
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	var checked, uploaded bool
	for _, s := range a.Runs.Steps {
		if s.Uses != "" && !pinned.MatchString(s.Uses) {
			t.Errorf("step uses %q: pin it by full commit SHA", s.Uses)
		}
		if s.ID == "check" {
			checked = strings.Contains(s.Run, "scripts/action-check")
			for _, v := range regexp.MustCompile(`\$\{?(INPUT_[A-Z_]+|FOUNDRY_BIN)`).FindAllStringSubmatch(string(script), -1) {
				if _, ok := s.Env[v[1]]; !ok {
					t.Errorf("the check step does not set %s, which scripts/action-check reads", v[1])
				}
			}
		}
		if strings.Contains(s.Uses, "upload-sarif") {
			uploaded = s.With["sarif_file"] == "${{ inputs.sarif-dir }}"
		}
	}
	// Code scanning resolves SARIF paths from the repository root: every
	// SARIF run in a project folder names its files from there.
	sarifRuns := 0
	for _, l := range strings.Split(string(script), "\n") {
		if !strings.Contains(l, "--format sarif") || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		sarifRuns++
		if !strings.Contains(l, `-C "$dir"`) || !strings.Contains(l, `--sarif-prefix "$dir"`) {
			t.Errorf("scripts/action-check runs %q: a SARIF run needs -C \"$dir\" and --sarif-prefix \"$dir\"", strings.TrimSpace(l))
		}
	}
	if sarifRuns != 2 {
		t.Errorf("scripts/action-check has %d SARIF runs, want 2 (doctor, validate)", sarifRuns)
	}
	if !checked || !uploaded {
		t.Errorf("check step runs scripts/action-check: %v; upload step uploads inputs.sarif-dir: %v", checked, uploaded)
	}
	for _, in := range []string{"working-directory", "validate", "upload-sarif", "sarif-dir"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("input %s is missing", in)
		}
	}
}
