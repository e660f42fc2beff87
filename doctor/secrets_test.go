package doctor_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
)

// TestStoredSecrets: doctor finds secrets already stored under .foundry/
// and reports file and pointer (or line), never the value. Prose about
// secrets in a runbook or an artifact is no finding.
func TestStoredSecrets(t *testing.T) {
	t.Parallel()
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	npm := "npm_" + strings.Repeat("aB3d", 9)
	dir := cleanProject(t)
	var finding map[string]any
	if err := json.Unmarshal([]byte(validFinding), &finding); err != nil {
		t.Fatal(err)
	}
	finding["summary"] = "The CI log printed " + gh + " in clear."
	art, _ := json.MarshalIndent(finding, "", "  ")
	p1, f1 := factFile("fact-0001", "Persistence uses Flyway", "2026-01-02", func(f *facts.Fact) {
		f.Body = "Persistence uses Flyway.\nThe deploy notes said DB_PASSWORD=hunter22 once."
	})
	writeFiles(t, dir, map[string]string{
		".foundry/blackboard/audit/appsec-reviewer.json": string(art),
		// A byte order mark: the artifact is read as every check reads it.
		".foundry/blackboard/audit/bom.json": "\uFEFF" + string(art),
		".foundry/runbooks/deploy.md":        "---\ntitle: Deploy\ntrigger: deploy\n---\n\n# Deploy\n\nLog in with the password from the vault.\nnpm publish with " + npm + "\n",
		p1:                                   f1,
	})
	rep := runDoctor(t, dir, project.Source{}, false)
	var got []brief
	for _, b := range briefs(rep) {
		if b.Check == doctor.CheckSecrets {
			got = append(got, b)
		}
	}
	const advice = "; remove it and rotate the credential: git history keeps it"
	want := []brief{
		{doctor.CheckSecrets, ".foundry/blackboard/audit/appsec-reviewer.json", "#/summary: holds a GitHub token" + advice, ""},
		{doctor.CheckSecrets, ".foundry/blackboard/audit/bom.json", "#/summary: holds a GitHub token" + advice, ""},
		{doctor.CheckSecrets, p1, "holds a password assignment" + advice, ""},
		{doctor.CheckSecrets, ".foundry/runbooks/deploy.md", "holds a npm token" + advice, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	for _, f := range rep.Findings {
		if f.Check == doctor.CheckSecrets && !strings.HasPrefix(f.File, ".foundry/blackboard/") && f.Line == 0 {
			t.Errorf("no line: %+v", f)
		}
		for _, v := range []string{gh, npm, "hunter22"} {
			if strings.Contains(f.Message, v) || strings.Contains(f.Note, v) {
				t.Errorf("finding shows a value: %+v", f)
			}
		}
	}
	if !rep.Failed() {
		t.Error("a stored secret must fail doctor")
	}
}

// TestStagedSecrets: the pre-commit hook's check refuses a secret in a
// fact, a runbook or a schema the commit adds, as it does in an artifact,
// before git history keeps it; a secret in a file the commit does not
// touch is left to doctor's sweep.
func TestStagedSecrets(t *testing.T) {
	t.Parallel()
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	npm := "npm_" + strings.Repeat("aB3d", 9)
	r := gittest.New(t)
	writeFiles(t, r.Dir, map[string]string{".foundry/config.yaml": "", ".foundry/runbooks/old.md": "---\ntitle: Old\n---\n\nnpm publish with " + npm + "\n"})
	r.CommitAll("init")
	p1, f1 := factFile("fact-0001", "CI publishes with a token", "2026-01-02", func(f *facts.Fact) {
		f.Body = "CI publishes with " + gh + " from the vault."
	})
	writeFiles(t, r.Dir, map[string]string{
		p1:                          f1,
		".foundry/runbooks/new.md":  "---\ntitle: New\ntrigger: release\n---\n\n# New\n\nexport GITHUB_TOKEN=" + gh + "\n",
		".foundry/runbooks/late.md": "---\ntitle: Late\n---\n\n" + gh + "\n", // not staged
	})
	r.Git("add", p1, ".foundry/runbooks/new.md")
	var got []brief
	rep := stagedCheck(t, r.Dir)
	for _, b := range briefs(rep) {
		if b.Check == doctor.CheckSecrets {
			got = append(got, b)
		}
	}
	const advice = "; remove it and rotate the credential: git history keeps it"
	want := []brief{
		{doctor.CheckSecrets, p1, "holds a GitHub token" + advice, ""},
		{doctor.CheckSecrets, ".foundry/runbooks/new.md", "holds a GitHub token" + advice, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("staged check (-want +got):\n%s", diff)
	}
	if !rep.Failed() {
		t.Error("a staged secret must block the commit")
	}
}
