package doctor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/project"
)

const (
	noteSchema = ".foundry/schemas/note.v1.schema.json"
	scribe     = ".foundry/blackboard/docs/scribe.json"
)

func short(r *gittest.Repo, rev string) string { return r.Git("rev-parse", "--short=7", rev) }

func date(r *gittest.Repo, rev string) string {
	return r.Git("log", "-1", "--date=format:%Y-%m-%d", "--format=%ad", rev)
}

// tightenedRepo commits note.v1 with an artifact valid against it, an
// unrelated commit, then a new required property in note.v1.
func tightenedRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	r.Write(noteSchema, noteV1)
	r.Write(scribe, validNote)
	r.CommitAll("add note contract and the scribe's note")
	r.Write(".foundry/blackboard/docs/other.json", `{"schema": "note.v1", "producedBy": "other"}`) // invalid from the start
	r.CommitAll("other agent writes a note without a title")
	r.Write(noteSchema, noteV1Required)
	r.CommitAll("note.v1 requires an owner")
	return r
}

func TestHistoryExplainsTightenedContract(t *testing.T) {
	t.Parallel()
	r := tightenedRepo(t)
	// A third note, committed before the tightening but edited since: it
	// is not as written, so its failure is a plain one.
	r.Write(".foundry/blackboard/docs/editor.json", `{"schema": "note.v1", "producedBy": "editor", "title": "x", "owner": "a", "extra": 1}`)

	rep := runDoctor(t, r.Dir, project.Source{}, false)
	written, tightened := short(r, "HEAD~2"), short(r, "HEAD")
	want := []brief{
		{doctor.CheckContractsBreaking, noteSchema, `#: new required property "owner"`,
			"breaking edit of note.v1 in " + tightened + " (" + date(r, "HEAD") + "), published in " + written + ": a published version is never edited; publish note.v2 instead"},
		{doctor.CheckBlackboardValid, ".foundry/blackboard/docs/editor.json", `#: unexpected property "extra"`, ""},
		{doctor.CheckBlackboardValid, ".foundry/blackboard/docs/other.json", `#: missing required property "title"`, ""},
		{doctor.CheckBlackboardValid, ".foundry/blackboard/docs/other.json", `#: missing required property "owner"`, ""},
		{doctor.CheckBlackboardStale, scribe, `#: missing required property "owner"`,
			"written in " + written + " (" + date(r, "HEAD~2") + ") before note.v1 tightened in " + tightened},
	}
	if diff := cmp.Diff(want, briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if !rep.History.Ran || rep.History.Commits != 3 || rep.History.From != short(r, "HEAD") {
		t.Errorf("History = %+v, want 3 commits from HEAD", rep.History)
	}

	// --no-history reports the same artifact as a plain failure.
	rep = runDoctor(t, r.Dir, project.Source{}, true)
	if got := rep.FindingsOf(doctor.CheckBlackboardValid); len(got) != 4 || len(rep.FindingsOf(doctor.CheckBlackboardStale)) != 0 || len(rep.FindingsOf(doctor.CheckContractsBreaking)) != 0 {
		t.Errorf("with --no-history: %+v", briefs(rep))
	}
	if rep.History.Skipped != "--no-history" {
		t.Errorf("History.Skipped = %q", rep.History.Skipped)
	}
}

func TestHistoryUncommittedTightening(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(noteSchema, noteV1)
	r.Write(scribe, validNote)
	r.CommitAll("add note contract")
	r.Write(".foundry/runbooks/x.md", "---\ntitle: X\n---\n")
	r.CommitAll("a runbook")
	r.Write(noteSchema, noteV1Required)
	written := short(r, "HEAD~1") + " (" + date(r, "HEAD~1") + ")"

	tests := []struct {
		name  string
		src   project.Source
		stage bool
		where string
	}{
		{"working tree", project.Source{}, false, "the working tree (uncommitted)"},
		{"index", project.Source{Staged: true}, true, "the index (staged)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.stage {
				r.Git("add", noteSchema)
			}
			rep := runDoctor(t, r.Dir, tt.src, false)
			want := []brief{
				{doctor.CheckContractsBreaking, noteSchema, `#: new required property "owner"`,
					"breaking edit of note.v1 in " + tt.where + ", published in " + short(r, "HEAD~1") + ": a published version is never edited; publish note.v2 instead"},
				{doctor.CheckBlackboardStale, scribe, `#: missing required property "owner"`, "written in " + written + " before note.v1 tightened in " + tt.where},
			}
			if diff := cmp.Diff(want, briefs(rep)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
	// At HEAD nothing was tightened yet.
	if rep := runDoctor(t, r.Dir, project.Source{Rev: "HEAD"}, false); len(rep.Findings) != 0 {
		t.Errorf("at HEAD: %+v", briefs(rep))
	}
}

func TestHistoryBreakingVersusNonBreakingEdit(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(noteSchema, noteV1)
	r.CommitAll("publish note.v1")
	r.Write(noteSchema, noteV1Widened)
	r.CommitAll("note.v1: optional tags, longer titles")
	rep := runDoctor(t, r.Dir, project.Source{}, false)
	if got := rep.FindingsOf(doctor.CheckContractsBreaking); len(got) != 0 {
		t.Errorf("non-breaking edit flagged: %+v", got)
	}

	narrowed := strings.Replace(noteV1Widened, `"maxLength": 80`, `"maxLength": 20`, 1)
	narrowed = strings.Replace(narrowed, `"tags": {"type": "array", "items": {"type": "string"}}`, `"tags": {"type": "array", "items": {"enum": ["a", "b"]}}`, 1)
	r.Write(noteSchema, narrowed)
	r.CommitAll("note.v1: shorter titles, fixed tags")
	r.Write(".foundry/runbooks/x.md", "---\ntitle: X\n---\n")
	r.CommitAll("unrelated")
	rep = runDoctor(t, r.Dir, project.Source{}, false)
	note := "breaking edit of note.v1 in " + short(r, "HEAD~1") + " (" + date(r, "HEAD~1") + "), published in " + short(r, "HEAD~3") +
		": a published version is never edited; publish note.v2 instead"
	want := []brief{
		{doctor.CheckContractsBreaking, noteSchema, `#/properties/tags/items: new enum ["a","b"]`, note},
		{doctor.CheckContractsBreaking, noteSchema, `#/properties/title: lowered maxLength from 80 to 20`, note},
	}
	if diff := cmp.Diff(want, briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}

	// Deleting the published contract is breaking too.
	r.Remove(noteSchema)
	r.CommitAll("drop note.v1")
	rep = runDoctor(t, r.Dir, project.Source{}, false)
	got := rep.FindingsOf(doctor.CheckContractsBreaking)
	if len(got) != 3 || got[2].Message != "#: deleted the published contract" || !strings.HasPrefix(got[2].Note, "deletion of note.v1 in "+short(r, "HEAD")+" (") ||
		!strings.HasSuffix(got[2].Note, ": a published version is never deleted: artifacts and history still name it; restore it") {
		t.Errorf("after deleting note.v1: %+v", got)
	}
}

// mergedDuplicates builds two branches that each add fact-0016 (the right
// one, main, also supersedes fact-0001), main merged into left, with the
// INDEX.md conflict resolved by taking left's.
func mergedDuplicates(t *testing.T) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	p1, f1 := factFile("fact-0001", "Builds use Bazel", "2026-01-01")
	r.Write(p1, f1)
	for i := 2; i <= 15; i++ {
		p, f := factFile(facts.FormatID(i), "Fact number "+strings.Repeat("i", i), "2026-01-01")
		r.Write(p, f)
	}
	rebuildIndex(t, r.Dir)
	r.CommitAll("fifteen facts")

	r.Git("checkout", "-q", "-b", "left")
	pl, fl := factFile("fact-0016", "Releases are tagged vX.Y.Z", "2026-01-02")
	r.Write(pl, fl)
	rebuildIndex(t, r.Dir)
	r.CommitAll("left: fact-0016 on release tags")

	r.Git("checkout", "-q", "main")
	pr, fr := factFile("fact-0016", "Builds use Gradle", "2026-01-03", func(f *facts.Fact) { f.Supersedes = "fact-0001" })
	r.Write(pr, fr)
	_, f1s := factFile("fact-0001", "Builds use Bazel", "2026-01-01", func(f *facts.Fact) { f.SupersededBy = "fact-0016"; f.Status = facts.Superseded })
	r.Write(p1, f1s)
	rebuildIndex(t, r.Dir)
	r.CommitAll("right: fact-0016 supersedes fact-0001")

	r.Git("checkout", "-q", "left")
	if _, err := r.TryGit("merge", "-q", "--no-edit", "main"); err == nil {
		t.Fatal("merge did not conflict on INDEX.md")
	}
	r.Git("checkout", "--ours", facts.IndexPath)
	r.CommitAll("merge main")
	return r
}

func TestDuplicateFactIDsFromMergeAndFix(t *testing.T) {
	t.Parallel()
	r := mergedDuplicates(t)
	left := facts.Dir + "/fact-0016-releases-are-tagged-vx-y-z.md"
	right := facts.Dir + "/fact-0016-builds-use-gradle.md"
	rep := runDoctor(t, r.Dir, project.Source{}, false)
	want := []brief{
		{doctor.CheckFactsDuplicate, right, "fact-0016 is also the id of " + left, ""},
		{doctor.CheckFactsDuplicate, left, "fact-0016 is also the id of " + right, ""},
		{doctor.CheckFactsIndex, facts.IndexPath, "INDEX.md is stale: it does not match the facts (rebuilt it would say " + indexSummary(t, r.Dir) + ")", ""},
	}
	if diff := cmp.Diff(want, briefs(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if !rep.Failed() {
		t.Error("duplicate ids did not fail the report")
	}

	// --fix refuses a revision.
	if _, err := doctor.Fix(context.Background(), doctor.Env{Project: open(t, r.Dir, project.Source{Rev: "HEAD"}), Now: clock}); err == nil {
		t.Error("Fix at a revision succeeded")
	}

	changes, err := doctor.Fix(context.Background(), doctor.Env{Project: open(t, r.Dir, project.Source{}), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	// The left fact is the one the merge's first parent had: it keeps the
	// id; the right one becomes fact-0017, and fact-0001 follows it.
	renamed := facts.Dir + "/fact-0017-builds-use-gradle.md"
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	wantChanges := []string{
		"renumbered fact-0016 to fact-0017: " + right + " → " + renamed,
		"updated the supersedes links of fact-0001 in .foundry/memory/fact-0001-builds-use-bazel.md",
		"rebuilt .foundry/memory/INDEX.md: " + indexSummary(t, r.Dir),
	}
	if diff := cmp.Diff(wantChanges, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	// Both facts are kept, and the link follows the renumbered one.
	for p, want := range map[string]string{
		left:    "id: fact-0016",
		renamed: "id: fact-0017",
		facts.Dir + "/fact-0001-builds-use-bazel.md": "supersededBy: fact-0017",
	} {
		data, err := os.ReadFile(filepath.Join(r.Dir, p))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v; want it to contain %q:\n%s", p, err, want, data)
		}
	}
	if _, err := os.Stat(filepath.Join(r.Dir, right)); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", right, err)
	}
	if rep := runDoctor(t, r.Dir, project.Source{}, false); len(rep.Findings) != 0 {
		t.Errorf("after --fix: %+v", briefs(rep))
	}
	// A second --fix has nothing to do.
	if changes, err := doctor.Fix(context.Background(), doctor.Env{Project: open(t, r.Dir, project.Source{}), Now: clock}); err != nil || len(changes) != 0 {
		t.Errorf("second Fix = %v, %v; want nothing", changes, err)
	}
	// The merge commit itself still has the duplicate: --rev reads git.
	if got := runDoctor(t, r.Dir, project.Source{Rev: "HEAD"}, false).FindingsOf(doctor.CheckFactsDuplicate); len(got) != 2 {
		t.Errorf("at HEAD after fixing the working tree: %d duplicate findings, want 2", len(got))
	}
}

// TestRevCleanVersusDirty checks a revision five commits back against HEAD,
// both ways round: doctor --rev reads the revision, not the working tree.
func TestRevCleanVersusDirty(t *testing.T) {
	t.Parallel()
	broken := `{"schema": "finding.v1", "producedBy": "appsec-reviewer", "id": "F-014"}`
	build := func(t *testing.T, dirtyFirst bool) *gittest.Repo {
		r := gittest.New(t)
		first, last := validFinding, broken
		if dirtyFirst {
			first, last = broken, validFinding
		}
		r.Write(".foundry/blackboard/audit/appsec-reviewer.json", first)
		r.CommitAll("c0")
		for i := 1; i <= 4; i++ {
			r.Write(".foundry/runbooks/r.md", "---\ntitle: R"+strings.Repeat("!", i)+"\n---\n")
			r.CommitAll("c" + string(rune('0'+i)))
		}
		r.Write(".foundry/blackboard/audit/appsec-reviewer.json", last)
		r.CommitAll("c5")
		// The working tree disagrees with both: doctor --rev must not read it.
		r.Write(".foundry/blackboard/audit/appsec-reviewer.json", "not json")
		return r
	}
	missing := []string{
		`#: missing required property "severity"`,
		`#: missing required property "title"`,
		`#: missing required property "summary"`,
		`#: missing required property "failureScenario"`,
		`#: missing required property "confidence"`,
	}
	tests := []struct {
		name       string
		dirtyFirst bool
		rev        string
		want       []string
	}{
		{"HEAD~5 dirty", true, "HEAD~5", missing},
		{"HEAD clean", true, "HEAD", nil},
		{"HEAD~5 clean", false, "HEAD~5", nil},
		{"HEAD dirty", false, "HEAD", missing},
	}
	repos := map[bool]*gittest.Repo{true: build(t, true), false: build(t, false)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := repos[tt.dirtyFirst]
			rep := runDoctor(t, r.Dir, project.Source{Rev: tt.rev}, false)
			var got []string
			for _, f := range rep.Findings {
				got = append(got, f.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if rep.Failed() != (tt.want != nil) {
				t.Errorf("Failed = %v", rep.Failed())
			}
			if want := tt.rev + " (" + short(r, tt.rev) + ")"; rep.Source != want {
				t.Errorf("Source = %q, want %q", rep.Source, want)
			}
			if wantCommits := map[string]int{"HEAD": 6, "HEAD~5": 1}[tt.rev]; rep.History.Commits != wantCommits {
				t.Errorf("history walked %d commits, want %d", rep.History.Commits, wantCommits)
			}
		})
	}
}

// TestHistoryManyFailingArtifacts explains more failures than the walk
// follows by exact path, so it selects the whole blackboard.
func TestHistoryManyFailingArtifacts(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(noteSchema, noteV1)
	const n = 70
	for i := range n {
		r.Write(fmt.Sprintf(".foundry/blackboard/w%d/a%02d.json", i%7, i), validNote)
	}
	r.CommitAll("seventy notes")
	r.Write(noteSchema, noteV1Required)
	r.CommitAll("require an owner")
	rep := runDoctor(t, r.Dir, project.Source{}, false)
	stale := rep.FindingsOf(doctor.CheckBlackboardStale)
	want := "written in " + short(r, "HEAD~1") + " (" + date(r, "HEAD~1") + ") before note.v1 tightened in " + short(r, "HEAD")
	if len(stale) != n || len(rep.FindingsOf(doctor.CheckBlackboardValid)) != 0 {
		t.Fatalf("%d tightened findings, %d plain; want %d tightened", len(stale), len(rep.FindingsOf(doctor.CheckBlackboardValid)), n)
	}
	for _, f := range stale {
		if f.Note != want {
			t.Errorf("%s: note %q, want %q", f.File, f.Note, want)
		}
	}
}

// TestHistoryTighteningMerged explains an artifact whose contract was
// tightened on another line of history than the commit that wrote it, the
// two merged since: the note names the commit that tightened the contract,
// as the breaking-edit finding does, whichever of the two is the older, and
// says the artifact was written without it, not before it.
func TestHistoryTighteningMerged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		onBranch string // the step committed on the branch merged into main
		first    string // the step committed first
	}{
		{"tightened on a branch first", "tighten", "tighten"},
		{"tightened on a branch later", "tighten", "write"},
		{"written on a branch first", "write", "write"},
		{"written on a branch later", "write", "tighten"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Write(noteSchema, noteV1)
			published := r.CommitAll("publish note.v1")
			r.Git("branch", "side")
			rev := map[string]string{}
			steps := map[string]func(){
				"tighten": func() { r.Write(noteSchema, noteV1Required); rev["tighten"] = r.CommitAll("note.v1 requires an owner") },
				"write":   func() { r.Write(scribe, validNote); rev["write"] = r.CommitAll("the scribe's note") },
			}
			order := []string{"tighten", "write"}
			if tt.first == "write" {
				order = []string{"write", "tighten"}
			}
			for _, s := range order {
				branch := "main"
				if s == tt.onBranch {
					branch = "side"
				}
				r.Git("checkout", "-q", branch)
				steps[s]()
			}
			r.Git("checkout", "-q", "main")
			r.Git("merge", "-q", "--no-edit", "side")

			tightened, written := short(r, rev["tighten"]), short(r, rev["write"])
			want := []brief{
				{doctor.CheckContractsBreaking, noteSchema, `#: new required property "owner"`,
					"breaking edit of note.v1 in " + tightened + " (" + date(r, rev["tighten"]) + "), published in " + short(r, published) + ": a published version is never edited; publish note.v2 instead"},
				{doctor.CheckBlackboardStale, scribe, `#: missing required property "owner"`,
					"written in " + written + " (" + date(r, rev["write"]) + ") on a branch without note.v1's tightening in " + tightened + ", merged since"},
			}
			for _, src := range []project.Source{{}, {Staged: true}, {Rev: "HEAD"}} {
				if diff := cmp.Diff(want, briefs(runDoctor(t, r.Dir, src, false))); diff != "" {
					t.Errorf("%+v: findings (-want +got):\n%s", src, diff)
				}
			}
		})
	}
}

// TestHistoryTightenedAgain names the commit that tightened the contract
// after the artifact was written, not an older one whose tighter version
// the artifact's commit had already replaced.
func TestHistoryTightenedAgain(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(noteSchema, noteV1)
	r.CommitAll("publish note.v1")
	r.Write(noteSchema, noteV1Required)
	r.CommitAll("note.v1 requires an owner")
	r.Write(noteSchema, noteV1)
	r.CommitAll("note.v1 no longer requires an owner")
	r.Write(scribe, validNote)
	written := r.CommitAll("the scribe's note")
	r.Write(noteSchema, noteV1Required)
	tightened := r.CommitAll("note.v1 requires an owner again")

	rep := runDoctor(t, r.Dir, project.Source{}, false)
	want := "written in " + short(r, written) + " (" + date(r, written) + ") before note.v1 tightened in " + short(r, tightened)
	stale := rep.FindingsOf(doctor.CheckBlackboardStale)
	if len(stale) != 1 || stale[0].Note != want {
		t.Errorf("tightened findings %+v, want one noted %q", stale, want)
	}
}

// TestStagedBreakingPublishedIn checks that the pre-commit hook's check
// names the commit that published the contract it finds edited or deleted,
// as doctor --staged does, not HEAD.
func TestStagedBreakingPublishedIn(t *testing.T) {
	t.Parallel()
	requireOwner := func(schema string) string {
		return strings.Replace(schema, `"required": ["schema", "producedBy", "title"]`, `"required": ["schema", "producedBy", "title", "owner"]`, 1)
	}
	// Each build commits a history, stages an edit of note.v1 and returns
	// the repository and what the note should say published it.
	tests := []struct {
		name    string
		build   func(t *testing.T) (*gittest.Repo, string)
		message string
		// sweep is whether doctor --staged reports the edit too: its
		// history stops at a shallow clone's boundary, and does not follow
		// a linked .foundry.
		sweep bool
	}{
		{
			name: "unrelated commits since",
			build: func(t *testing.T) (*gittest.Repo, string) {
				r := gittest.New(t)
				r.Write(noteSchema, noteV1)
				published := r.CommitAll("publish note.v1")
				for i := range 3 {
					r.Write(".foundry/runbooks/x.md", fmt.Sprintf("---\ntitle: X%d\n---\n", i))
					r.CommitAll("unrelated")
				}
				r.Write(noteSchema, noteV1Required)
				r.Git("add", "-A")
				return r, short(r, published)
			},
			message: `#: new required property "owner"`,
			sweep:   true,
		},
		{
			name: "a non-breaking edit since",
			build: func(t *testing.T) (*gittest.Repo, string) {
				r := gittest.New(t)
				r.Write(noteSchema, noteV1)
				published := r.CommitAll("publish note.v1")
				r.Write(noteSchema, noteV1Widened)
				r.CommitAll("note.v1: optional tags, longer titles")
				r.Write(noteSchema, requireOwner(noteV1Widened))
				r.Git("add", "-A")
				return r, short(r, published)
			},
			message: `#: new required property "owner"`,
			sweep:   true,
		},
		{
			name: "published on a branch merged since",
			build: func(t *testing.T) (*gittest.Repo, string) {
				r := gittest.New(t)
				r.Write(".foundry/runbooks/x.md", "---\ntitle: X\n---\n")
				r.CommitAll("a runbook")
				r.Git("checkout", "-q", "-b", "side")
				r.Write(noteSchema, noteV1)
				published := r.CommitAll("publish note.v1")
				r.Git("checkout", "-q", "main")
				r.Write(".foundry/runbooks/y.md", "---\ntitle: Y\n---\n")
				r.CommitAll("another runbook")
				r.Git("merge", "-q", "--no-edit", "side")
				r.Write(noteSchema, noteV1Required)
				r.Git("add", "-A")
				return r, short(r, published)
			},
			message: `#: new required property "owner"`,
			sweep:   true,
		},
		{
			name: "deleted",
			build: func(t *testing.T) (*gittest.Repo, string) {
				r := gittest.New(t)
				r.Write(noteSchema, noteV1)
				published := r.CommitAll("publish note.v1")
				r.Write(".foundry/runbooks/x.md", "---\ntitle: X\n---\n")
				r.CommitAll("unrelated")
				r.Git("rm", "-q", noteSchema)
				return r, short(r, published)
			},
			message: "#: deleted the published contract",
			sweep:   true,
		},
		{
			name: "in a linked .foundry",
			build: func(t *testing.T) (*gittest.Repo, string) {
				r := gittest.New(t)
				r.Write("meta/foundry/schemas/note.v1.schema.json", noteV1)
				if err := os.Symlink(filepath.Join("meta", "foundry"), filepath.Join(r.Dir, ".foundry")); err != nil {
					t.Fatal(err)
				}
				published := r.CommitAll("publish note.v1")
				r.Write("README.md", "unrelated\n")
				r.CommitAll("unrelated")
				r.Write(noteSchema, noteV1Required)
				r.Git("add", "-A")
				return r, short(r, published)
			},
			message: `#: new required property "owner"`,
		},
		{
			name: "published beyond a shallow clone's boundary",
			build: func(t *testing.T) (*gittest.Repo, string) {
				src := gittest.New(t)
				src.Write(noteSchema, noteV1)
				src.CommitAll("publish note.v1")
				src.Write(".foundry/runbooks/x.md", "---\ntitle: X\n---\n")
				src.CommitAll("unrelated")
				r := gittest.New(t)
				r.Git("fetch", "-q", "--depth", "1", "file://"+src.Dir, "main")
				r.Git("checkout", "-q", "-B", "main", "FETCH_HEAD")
				r.Write(noteSchema, noteV1Required)
				r.Git("add", "-A")
				return r, "a commit at or beyond the shallow clone's boundary"
			},
			message: `#: new required property "owner"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, published := tt.build(t)
			note := "breaking edit of note.v1 in the index (staged), published in " + published + ": a published version is never edited; publish note.v2 instead"
			if tt.name == "deleted" {
				note = "deletion of note.v1 in the index (staged), published in " + published + ": a published version is never deleted: artifacts and history still name it; restore it"
			}
			want := []brief{{doctor.CheckContractsBreaking, noteSchema, tt.message, note}}
			if diff := cmp.Diff(want, briefs(stagedCheck(t, r.Dir))); diff != "" {
				t.Errorf("staged check (-want +got):\n%s", diff)
			}
			if !tt.sweep {
				want = nil
			}
			got := runDoctor(t, r.Dir, project.Source{Staged: true}, false).FindingsOf(doctor.CheckContractsBreaking)
			if diff := cmp.Diff(want, briefs(&doctor.Report{Findings: got})); diff != "" {
				t.Errorf("doctor --staged (-want +got):\n%s", diff)
			}
		})
	}
}
