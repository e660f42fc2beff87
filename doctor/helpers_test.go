package doctor_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/project"
)

// clock is the tests' today: after every gittest commit date.
func clock() time.Time { return time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC) }

// A valid finding.v1 artifact (the seed's example).
const validFinding = `{
  "schema": "finding.v1",
  "producedBy": "appsec-reviewer",
  "id": "F-014",
  "severity": "high",
  "title": "No rate limit on the login endpoint",
  "summary": "POST /api/login accepts unlimited attempts per account and per source address.",
  "failureScenario": "An attacker sends 10k requests/min to /api/login with one username and a password list.",
  "confidence": "high"
}
`

// noteV1 is a project-local contract; noteV1Required is the same with a new
// required property (a breaking edit), noteV1Widened with a new optional
// property and a longer title (non-breaking).
const (
	noteV1 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "note.v1.schema.json",
  "type": "object",
  "additionalProperties": false,
  "required": ["schema", "producedBy", "title"],
  "properties": {
    "schema": {"const": "note.v1"},
    "producedBy": {"type": "string"},
    "title": {"type": "string", "maxLength": 40},
    "owner": {"type": "string"}
  }
}
`
	noteV1Required = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "note.v1.schema.json",
  "type": "object",
  "additionalProperties": false,
  "required": ["schema", "producedBy", "title", "owner"],
  "properties": {
    "schema": {"const": "note.v1"},
    "producedBy": {"type": "string"},
    "title": {"type": "string", "maxLength": 40},
    "owner": {"type": "string"}
  }
}
`
	noteV1Widened = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "note.v1.schema.json",
  "type": "object",
  "additionalProperties": false,
  "required": ["schema", "producedBy", "title"],
  "properties": {
    "schema": {"const": "note.v1"},
    "producedBy": {"type": "string"},
    "title": {"type": "string", "maxLength": 80},
    "owner": {"type": "string"},
    "tags": {"type": "array", "items": {"type": "string"}}
  }
}
`
	validNote = `{"schema": "note.v1", "producedBy": "scribe", "title": "Release notes drafted"}` + "\n"
)

// factFile returns the path and content of a fact file.
func factFile(id, title, created string, edit ...func(*facts.Fact)) (string, string) {
	f := facts.Fact{
		ID: id, Type: facts.Decision, Title: title, Scope: "project", Confidence: facts.High,
		Source: "ADR-0001", Created: created, Status: facts.Active, Body: title + ", because the team agreed on it.",
	}
	for _, e := range edit {
		e(&f)
	}
	return facts.Dir + "/" + facts.FileName(id, title), string(facts.Format(f))
}

// writeFiles writes files (slash paths) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rebuildIndex writes INDEX.md as `memory index` would.
func rebuildIndex(t *testing.T, dir string) {
	t.Helper()
	if _, err := facts.OpenDir(dir, facts.Options{Now: clock}).RebuildIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func open(t testing.TB, dir string, src project.Source) *project.Project {
	t.Helper()
	p, err := project.OpenLenient(dir, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func runDoctor(t testing.TB, dir string, src project.Source, noHistory bool) *doctor.Report {
	t.Helper()
	rep, err := doctor.Run(context.Background(), doctor.Env{Project: open(t, dir, src), Now: clock, NoHistory: noHistory})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// stagedCheck runs the pre-commit hook's check, as foundry hook pre-commit
// does: doctor over the index, restricted to what it changes under .foundry/.
func stagedCheck(t testing.TB, dir string) *doctor.Report {
	t.Helper()
	p := open(t, dir, project.Source{Staged: true})
	linked := project.Dir // a linked .foundry has its files staged where the link leads
	if real, err := git.RealPath(p.FS, project.Dir); err == nil {
		linked = real
	}
	staged, err := p.Index.StagedChanges(linked)
	if err != nil {
		t.Fatal(err)
	}
	changes := make([]git.Change, len(staged))
	for i, c := range staged {
		changes[i] = git.Change{Path: project.Dir + "/" + c.Path, Kind: c.Kind}
	}
	rep, err := doctor.Run(context.Background(), doctor.Env{Project: p, Changed: changes, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// brief is the comparable part of a finding.
type brief struct {
	Check, File, Message, Note string
}

func briefs(rep *doctor.Report) []brief {
	var out []brief
	for _, f := range rep.Findings {
		out = append(out, brief{f.Check, f.File, f.Message, f.Note})
	}
	return out
}

func removeFile(t *testing.T, dir, p string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
		t.Fatal(err)
	}
}

// indexSummary is what `memory index` would report for the facts in dir.
func indexSummary(t *testing.T, dir string) string {
	t.Helper()
	idx, err := facts.NewStore(os.DirFS(dir), facts.Options{Now: clock}).Index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return idx.Summary()
}
