package foundry_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestPreCommitLocalHookDocs checks that the local hook docs/claude-code.md
// gives, for a foundry already on PATH, is the hook of .pre-commit-hooks.yaml
// (the script hook_precommit_framework runs that one): same id, entry,
// files, always_run and pass_filenames.
func TestPreCommitLocalHookDocs(t *testing.T) {
	t.Parallel()
	type hook struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Files         string `yaml:"files"`
		AlwaysRun     bool   `yaml:"always_run"`
		PassFilenames *bool  `yaml:"pass_filenames"`
	}
	data, err := os.ReadFile(".pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var manifest []hook
	if err := yaml.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("docs/claude-code.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(- repo: local\n.*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("docs/claude-code.md has no local pre-commit hook (a yaml block starting - repo: local)")
	}
	var local []struct {
		Hooks []hook `yaml:"hooks"`
	}
	if err := yaml.Unmarshal(block[1], &local); err != nil {
		t.Fatalf("docs/claude-code.md's local hook: %v", err)
	}
	if len(manifest) != 1 || len(local) != 1 || len(local[0].Hooks) != 1 {
		t.Fatalf("want one hook in each: .pre-commit-hooks.yaml has %d, docs/claude-code.md %v", len(manifest), local)
	}
	want, got := manifest[0], local[0].Hooks[0]
	if got.ID != want.ID || got.Entry != want.Entry || got.Files != want.Files || got.AlwaysRun != want.AlwaysRun || got.PassFilenames == nil || want.PassFilenames == nil || *got.PassFilenames != *want.PassFilenames {
		t.Errorf("docs/claude-code.md's local hook is %+v, .pre-commit-hooks.yaml's %+v", got, want)
	}
	// The framework matches files against what a commit adds or changes,
	// not what it deletes: only always_run runs the check of a commit that
	// deletes a published contract.
	if !want.AlwaysRun {
		t.Errorf(".pre-commit-hooks.yaml's hook is not always_run: a commit that only deletes files under .foundry/ would skip it")
	}
	if !strings.Contains(want.Entry, "--all-projects") {
		t.Errorf(".pre-commit-hooks.yaml runs %q: the framework runs it from the top, where only --all-projects checks every project", want.Entry)
	}
}
