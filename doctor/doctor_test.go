package doctor_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
)

// cleanProject is a small project in which every check passes.
func cleanProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p1, f1 := factFile("fact-0001", "Persistence uses Flyway", "2026-01-02", func(f *facts.Fact) { f.SupersededBy, f.Status = "fact-0002", facts.Superseded })
	p2, f2 := factFile("fact-0002", "Migrations run on deploy", "2026-01-03", func(f *facts.Fact) { f.Supersedes = "fact-0001" })
	writeFiles(t, dir, map[string]string{
		".foundry/config.yaml":                           "memoryRetrieval:\n  maxFacts: 10\nmcp:\n  enabled: false\n",
		".foundry/blackboard/audit/appsec-reviewer.json": validFinding,
		".foundry/schemas/note.v1.schema.json":           noteV1,
		".foundry/blackboard/docs/scribe.json":           validNote,
		p1:                                               f1,
		p2:                                               f2,
		".foundry/runbooks/deploy.md":                    "---\ntitle: Deploy\ntrigger: deploy\n---\n\n# Deploy\n",
		".claude/agents/appsec-reviewer.md": "# appsec-reviewer\n\n## Input contract\n`plan.v1` — the wave definitions\n\n" +
			"## Output contract\n`finding.v1` — written to `.foundry/blackboard/audit/appsec-reviewer.json`\n",
	})
	rebuildIndex(t, dir)
	return dir
}

func TestRunCleanProject(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	rep := runDoctor(t, dir, project.Source{}, false)
	if diff := cmp.Diff([]brief(nil), briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if rep.Failed() || rep.Source != "working tree" {
		t.Errorf("Failed = %v, Source = %q", rep.Failed(), rep.Source)
	}
	// config, 1 schema, 2 artifacts, 2 facts, INDEX.md, 1 runbook, 1 agent.
	if rep.Files != 9 {
		t.Errorf("Files = %d, want 9", rep.Files)
	}
	if rep.History.Ran || rep.History.Skipped != "the project is not in a git repository" {
		t.Errorf("History = %+v, want skipped outside git", rep.History)
	}
	checked := map[string]int{}
	for _, c := range rep.Checks {
		checked[c.ID] = c.Checked
	}
	want := map[string]int{
		doctor.CheckBlackboardValid: 2, doctor.CheckFactsValid: 2, doctor.CheckAgentsContract: 2,
		doctor.CheckAgentsArtifact: 1, doctor.CheckRunbooksSlug: 1, doctor.CheckContractsLocal: 1,
	}
	for id, n := range want {
		if checked[id] != n {
			t.Errorf("%s checked %d items, want %d", id, checked[id], n)
		}
	}
}

func TestRunFindings(t *testing.T) {
	t.Parallel()
	const bb = ".foundry/blackboard/"
	dupPath, dup := factFile("fact-0002", "A second fact with id two", "2026-01-04")
	tests := []struct {
		name   string
		files  map[string]string
		remove []string
		want   []brief
	}{
		{
			name:  "unparseable artifact",
			files: map[string]string{bb + "w/a.json": "{\n  \"schema\": \"finding.v1\",\n  oops\n}\n"},
			want:  []brief{{doctor.CheckBlackboardParse, bb + "w/a.json", "not parseable JSON: invalid character 'o' looking for beginning of object key string", ""}},
		},
		{
			name: "no schema field and unknown contract",
			files: map[string]string{
				bb + "w/a.json": `{"producedBy": "x"}`,
				bb + "w/b.json": `{"schema": "finding.v9", "producedBy": "x"}`,
				bb + "w/c.json": `{"schema": 5, "producedBy": "x"}`,
				bb + "w/d.json": `["finding.v1"]`,
			},
			want: []brief{
				{doctor.CheckBlackboardSchema, bb + "w/a.json", `#: no "schema" field naming the artifact's contract`, ""},
				{doctor.CheckBlackboardSchema, bb + "w/b.json", `#/schema: unknown contract "finding.v9" (available: adr.v1, compliance-check.v1, estimate.v1, fact.v1, finding.v1, handoff.v1, note.v1, plan.v1, requirement.v1, review.v1, risk.v1, tracker-item.v1)`, ""},
				{doctor.CheckBlackboardSchema, bb + "w/c.json", `#/schema: must be a string naming a contract, got number`, ""},
				{doctor.CheckBlackboardSchema, bb + "w/d.json", `#: must be an object with a "schema" field naming its contract`, ""},
			},
		},
		{
			name:  "invalid artifact, one finding per violation",
			files: map[string]string{bb + "audit/appsec-reviewer.json": strings.Replace(strings.Replace(validFinding, `"high"`, `"urgent"`, 1), `  "failureScenario": "An attacker sends 10k requests/min to /api/login with one username and a password list.",`+"\n", "", 1)},
			want: []brief{
				{doctor.CheckBlackboardValid, bb + "audit/appsec-reviewer.json", `#: missing required property "failureScenario"`, ""},
				{doctor.CheckBlackboardValid, bb + "audit/appsec-reviewer.json", `#/severity: must be one of ["critical","high","medium","low","info"]`, ""},
			},
		},
		{
			name:  "invalid config",
			files: map[string]string{".foundry/config.yaml": "memoryRetrieval:\n  maxFacts: eight\n"},
			want:  []brief{{doctor.CheckConfig, ".foundry/config.yaml", `memoryRetrieval.maxFacts: want an integer, got string "eight"`, ""}},
		},
		{
			name:  "config without an mcp block (initialised before the opt-in)",
			files: map[string]string{".foundry/config.yaml": "memoryRetrieval:\n  maxFacts: 10\n"},
			want: []brief{{doctor.CheckConfigMCP, ".foundry/config.yaml", "no mcp block: foundry mcp serve refuses to start, so agents get no Foundry tools; " +
				"run foundry init to add the commented opt-in, or write mcp: {enabled: false} to say so", ""}},
		},

		{
			name: "local schemas: bad name, not JSON, redefinition, does not compile",
			files: map[string]string{
				".foundry/schemas/Bad.schema.json":         `{}`,
				".foundry/schemas/broken.v1.schema.json":   "{\n  oops\n}",
				".foundry/schemas/finding.v1.schema.json":  `{"type": "object"}`,
				".foundry/schemas/dangling.v1.schema.json": `{"properties": {"a": {"$ref": "missing.v1.defs.json"}}}`,
			},
			want: []brief{
				{doctor.CheckContractsLocal, ".foundry/schemas/Bad.schema.json", "file name must be <noun>.v<major>.schema.json (or .defs.json for a shared piece), lowercase", ""},
				{doctor.CheckContractsLocal, ".foundry/schemas/broken.v1.schema.json", "not parseable JSON: invalid character 'o' looking for beginning of object key string", ""},
				{doctor.CheckContractsLocal, ".foundry/schemas/dangling.v1.schema.json", "does not compile: " + compileError(t, "dangling.v1"), ""},
				{doctor.CheckContractsRedefine, ".foundry/schemas/finding.v1.schema.json", "redefines the embedded finding.v1 with different content; a published version is never edited: add finding.v2 beside it instead", ""},
			},
		},
		{
			name: "facts: malformed, invalid, duplicate id, dangling link, expired",
			files: map[string]string{
				facts.Dir + "/fact-0003-broken.md": "no front matter\n",
				dupPath:                            dup,
				facts.Dir + "/fact-0004-long.md": func() string {
					_, c := factFile("fact-0004", "long", "2026-01-05", func(f *facts.Fact) {
						f.Title = strings.Repeat("t", 81)
						f.Supersedes = "fact-0099"
						f.Expires = "2026-01-10"
					})
					return c
				}(),
			},
			want: []brief{
				{doctor.CheckFactsParse, facts.Dir + "/fact-0003-broken.md", `missing front matter: the file must start with a "---" line`, ""},
				{doctor.CheckFactsValid, facts.Dir + "/fact-0004-long.md", "#/title: longer than 80 characters", ""},
				{doctor.CheckFactsDuplicate, dupPath, "fact-0002 is also the id of .foundry/memory/fact-0002-migrations-run-on-deploy.md", ""},
				{doctor.CheckFactsDuplicate, facts.Dir + "/fact-0002-migrations-run-on-deploy.md", "fact-0002 is also the id of " + dupPath, ""},
				{doctor.CheckFactsSupersedes, facts.Dir + "/fact-0004-long.md", "supersedes: fact-0099 does not exist", ""},
				{doctor.CheckFactsExpired, facts.Dir + "/fact-0004-long.md", "fact-0004 expired on 2026-01-10 and is no longer loaded; re-check it: write its successor with memory write --supersedes fact-0004, or retire it with memory retire fact-0004", ""},
				{doctor.CheckFactsIndex, facts.IndexPath, "INDEX.md is stale: it does not match the facts (rebuilt it would say {index})", ""},
			},
		},
		{
			name: "supersedes cycle",
			files: func() map[string]string {
				pa, a := factFile("fact-0005", "Cycle a", "2026-01-05", func(f *facts.Fact) {
					f.Supersedes, f.SupersededBy, f.Status = "fact-0006", "fact-0006", facts.Superseded
				})
				pb, b := factFile("fact-0006", "Cycle b", "2026-01-05", func(f *facts.Fact) {
					f.Supersedes, f.SupersededBy, f.Status = "fact-0005", "fact-0005", facts.Superseded
				})
				return map[string]string{pa: a, pb: b}
			}(),
			want: []brief{
				{doctor.CheckFactsSupersedes, facts.Dir + "/fact-0005-cycle-a.md", "supersedes chain forms a cycle: fact-0005 → fact-0006 → fact-0005", ""},
			},
		},
		{
			name:   "missing index",
			remove: []string{facts.IndexPath},
			want:   []brief{{doctor.CheckFactsIndex, facts.IndexPath, "INDEX.md is missing ({index})", ""}},
		},
		{
			name: "runbooks: bad slug, bad front matter",
			files: map[string]string{
				".foundry/runbooks/Deploy_Prod.md": "---\ntitle: Deploy\n---\n",
				".foundry/runbooks/rotate.md":      "# Rotate\n",
			},
			want: []brief{
				{doctor.CheckRunbooksParse, ".foundry/runbooks/rotate.md", "no front matter (the file must start with a --- line)", ""},
				{doctor.CheckRunbooksSlug, ".foundry/runbooks/Deploy_Prod.md", "file name Deploy_Prod.md is not a valid slug ([a-z0-9][a-z0-9-]*), so runbook_get cannot read it; rename the file", ""},
			},
		},
		{
			name: "agent still producing v1 after a move to v2",
			files: map[string]string{
				".foundry/schemas/note.v2.schema.json": strings.ReplaceAll(noteV1, "note.v1", "note.v2"),
				"agents/scribe.md": "# scribe\n\n```\n## Output contract\n`nothing.v1`\n```\n\n## Output contract\n\n" +
					"`note.v2` — written to `.foundry/blackboard/<wave>/scribe.json`\n\n## Input contract\n`memo.v1`\n",
			},
			want: []brief{
				{doctor.CheckAgentsContract, "agents/scribe.md", "## Input contract names memo.v1, which is not a known contract (available: adr.v1, compliance-check.v1, estimate.v1, fact.v1, finding.v1, handoff.v1, note.v1, note.v2, plan.v1, requirement.v1, review.v1, risk.v1, tracker-item.v1)", ""},
				{doctor.CheckAgentsArtifact, bb + "docs/scribe.json", `#/schema: must equal "note.v2"`, "agents/scribe.md:10 declares note.v2 as its output contract"},
			},
		},
		{
			name: "contracts lock: different embedded content, malformed entry",
			files: map[string]string{
				".foundry/contracts.lock/finding.v1": "sha256:" + strings.Repeat("0", 64) + "\n",
				".foundry/contracts.lock/plan.v1":    "not a digest\n",
			},
			want: []brief{
				{doctor.CheckContractsLock, ".foundry/contracts.lock/finding.v1", "this binary ships different content for finding.v1 (" + digest(t, "finding.v1")[:19] + ") than the project's artifacts were accepted under (sha256:000000000000); 1 artifact at risk: .foundry/blackboard/audit/appsec-reviewer.json", ""},
				{doctor.CheckContractsLock, ".foundry/contracts.lock/plan.v1", `the content is not a digest of the form "sha256:<64 hex digits>"`, ""},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := cleanProject(t)
			writeFiles(t, dir, tt.files)
			for _, p := range tt.remove {
				removeFile(t, dir, p)
			}
			rep := runDoctor(t, dir, project.Source{}, false)
			for i := range tt.want {
				tt.want[i].Message = strings.ReplaceAll(tt.want[i].Message, "{index}", indexSummary(t, dir))
			}
			if diff := cmp.Diff(tt.want, briefs(rep)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			wantFailed := false
			for _, w := range tt.want {
				for _, c := range doctor.Checks() {
					if c.ID == w.Check && c.Severity == doctor.Error {
						wantFailed = true
					}
				}
			}
			if rep.Failed() != wantFailed {
				t.Errorf("Failed = %v, want %v", rep.Failed(), wantFailed)
			}
		})
	}
}

func compileError(t *testing.T, id string) string {
	t.Helper()
	reg, err := contracts.Load(fstest.MapFS{".foundry/schemas/" + id + ".schema.json": {Data: []byte(`{"properties": {"a": {"$ref": "missing.v1.defs.json"}}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = reg.Validate(id, []byte("null"))
	if !errors.Is(err, contracts.ErrInvalidSchema) {
		t.Fatalf("Validate with a dangling $ref: %v", err)
	}
	s := err.Error()
	return s[strings.Index(s, "invalid schema: ")+len("invalid schema: "):]
}

func digest(t *testing.T, id string) string {
	t.Helper()
	reg, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := reg.Digest(id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := doctor.Run(ctx, doctor.Env{Project: open(t, dir, project.Source{})}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v", err)
	}
}

func TestReportRendering(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	writeFiles(t, dir, map[string]string{".foundry/blackboard/w/a.json": `{"schema": "note.v1", "producedBy": "x"}`})
	removeFile(t, dir, facts.IndexPath)
	text, rep, err := doctor.Summary(context.Background(), doctor.Env{Project: open(t, dir, project.Source{}), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	want := "foundry doctor: " + rep.Root + ` (working tree)
history: skipped (the project is not in a git repository)

error blackboard.valid: 1 finding in 1 file (blackboard artifacts satisfy their contract)
  .foundry/blackboard/w/a.json: 1
    1:1 #: missing required property "title"

warning facts.index: 1 finding in 1 file (INDEX.md matches the facts)
  .foundry/memory/INDEX.md: 1
    INDEX.md is missing (` + indexSummary(t, dir) + `)
  fix: run ` + "`foundry memory index`" + `

passed:  conflict.markers, text.control, files.stale-temp, secrets.stored, config.valid, config.mcp, contracts.local, contracts.redefined, contracts.lock, blackboard.parse, blackboard.contract, facts.parse, facts.valid, facts.duplicate-id, facts.supersedes, facts.expired, runbooks.parse, runbooks.slug, runbooks.template, agents.contract, agents.artifact
skipped: contracts.breaking-edit, blackboard.tightened (the project is not in a git repository)
1 error, 1 warning, 0 info in 2 files; 9 files checked.
`
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}

	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           struct{ StartLine int }
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	b, err := rep.SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sarif); err != nil {
		t.Fatal(err)
	}
	if sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Tool.Driver.Rules) != len(doctor.Checks()) {
		t.Fatalf("SARIF log shape: %s", b)
	}
	res := sarif.Runs[0].Results
	if len(res) != 2 || res[0].RuleID != doctor.CheckBlackboardValid || res[0].Level != "error" ||
		res[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != ".foundry/blackboard/w/a.json" ||
		res[0].Locations[0].PhysicalLocation.Region.StartLine != 1 || res[1].Level != "warning" ||
		res[1].Message.Text != "INDEX.md is missing ("+indexSummary(t, dir)+") (fix: foundry memory index)" {
		t.Errorf("SARIF results: %s", b)
	}
}

// TestRunUnreadableArtifact: a blackboard entry that cannot be read (a
// dangling link, a link to a folder) is a finding; the sweep goes on.
func TestRunUnreadableArtifact(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	bb := filepath.Join(dir, ".foundry", "blackboard")
	if err := os.Symlink("nowhere.json", filepath.Join(bb, "dangling.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Mkdir(filepath.Join(bb, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("folder", filepath.Join(bb, "folder.json")); err != nil {
		t.Fatal(err)
	}
	rep := runDoctor(t, dir, project.Source{}, true)
	want := []brief{
		{Check: doctor.CheckBlackboardParse, File: ".foundry/blackboard/dangling.json", Message: "cannot be read: no such file"},
		{Check: doctor.CheckBlackboardParse, File: ".foundry/blackboard/folder.json", Message: "cannot be read: is a folder, not a file"},
	}
	if diff := cmp.Diff(want, briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if !rep.Failed() {
		t.Error("Failed = false, want true")
	}
}

// TestSARIFURIs: SARIF locations are URI references, so a path with a
// space, "#" or "%" is percent-encoded, and so is the project root.
func TestSARIFURIs(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a b#1")
	if err := os.CopyFS(dir, os.DirFS(cleanProject(t))); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{".foundry/blackboard/w/my note #2 100%.json": `{"schema": "note.v1", "producedBy": "x"}`})
	b, err := runDoctor(t, dir, project.Source{}, true).SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	var sarif struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Results            []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &sarif); err != nil {
		t.Fatal(err)
	}
	run := sarif.Runs[0]
	if got, want := run.OriginalURIBaseIDs["PROJECTROOT"].URI, "file://"+filepath.ToSlash(filepath.Dir(dir))+"/a%20b%231/"; got != want {
		t.Errorf("PROJECTROOT = %q, want %q", got, want)
	}
	if len(run.Results) != 1 {
		t.Fatalf("SARIF results: %s", b)
	}
	if got, want := run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI, ".foundry/blackboard/w/my%20note%20%232%20100%25.json"; got != want {
		t.Errorf("artifact URI = %q, want %q", got, want)
	}
}

// TestRunAgentDeclaresFolder: an agent that declares a blackboard folder
// rather than a file has no artifact to check there; the sweep goes on.
func TestRunAgentDeclaresFolder(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	writeFiles(t, dir, map[string]string{
		".claude/agents/auditor.md":          "# Auditor\n\n## Output contract\n`finding.v1` — written to `.foundry/blackboard/audit`\n",
		".foundry/blackboard/audit/one.json": validFinding,
	})
	rep := runDoctor(t, dir, project.Source{}, true)
	if diff := cmp.Diff([]brief(nil), briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestRunUnreadableAgent: a dangling link among the agent definitions is a
// finding; the sweep goes on.
func TestRunUnreadableAgent(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	agents := filepath.Join(dir, ".claude", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../plugin/gone.md", filepath.Join(agents, "gone.md")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	rep := runDoctor(t, dir, project.Source{}, true)
	want := []brief{{Check: doctor.CheckAgentsContract, File: ".claude/agents/gone.md", Message: "cannot be read: no such file or directory"}}
	if diff := cmp.Diff(want, briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestRunUnsupportedRepository: in a repository whose format Foundry does
// not read (objects named by SHA-256, a future extension), doctor checks
// the working tree and skips history naming the setting, as --fix does;
// --rev and --staged, which need the repository, fail to open.
func TestRunUnsupportedRepository(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(".foundry/memory/INDEX.md", "x\n")
	r.CommitAll("one")
	r.FutureExtension()
	rep := runDoctor(t, r.Dir, project.Source{}, false)
	if want := "the repository's format is not supported (extensions.somefuturething = true)"; rep.History.Ran || rep.History.Skipped != want {
		t.Errorf("History = %+v, want skipped: %s", rep.History, want)
	}
	if _, err := doctor.Fix(context.Background(), doctor.Env{Project: open(t, r.Dir, project.Source{}), Now: clock}); err != nil {
		t.Errorf("Fix: %v", err)
	}
	for _, src := range []project.Source{{Rev: "HEAD"}, {Staged: true}} {
		if _, err := project.Open(r.Dir, src); !errors.Is(err, git.ErrUnsupportedFormat) {
			t.Errorf("Open(%v) error = %v, want ErrUnsupportedFormat", src, err)
		}
	}
}

// countingFS counts the opens and reads of each file.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingFS) count(name string) {
	c.mu.Lock()
	c.reads[name]++
	c.mu.Unlock()
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.count(name)
	return c.FS.Open(name)
}

func (c *countingFS) ReadFile(name string) ([]byte, error) {
	c.count(name)
	return fs.ReadFile(c.FS, name)
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

// TestRunReadsEachFactOnce: the conflict scan, the fact checks and the
// secret scan each look at every fact, from one read of its file; and
// each still reports what it finds there.
func TestRunReadsEachFactOnce(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	p2, f2 := factFile("fact-0003", "Deploys read the token from the vault", "2026-01-05", func(f *facts.Fact) {
		f.Body = "ghp_" + strings.Repeat("a1B2", 9) + "\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs"
	})
	writeFiles(t, dir, map[string]string{p2: f2})
	p := open(t, dir, project.Source{})
	counted := &countingFS{FS: p.FS, reads: map[string]int{}}
	p.FS = counted
	rep, err := doctor.Run(context.Background(), doctor.Env{Project: p, Now: clock, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{doctor.CheckSecrets, doctor.CheckConflicts} {
		if got := rep.FindingsOf(id); len(got) != 1 || got[0].File != p2 {
			t.Errorf("%s findings %+v, want one in %s", id, got, p2)
		}
	}
	names, err := fs.Glob(p.FS, ".foundry/memory/fact-*.md")
	if err != nil || len(names) != 3 {
		t.Fatalf("facts %v, %v; want 3", names, err)
	}
	for _, name := range names {
		if n := counted.reads[name]; n != 1 {
			t.Errorf("%s read %d times, want once", name, n)
		}
	}
}
