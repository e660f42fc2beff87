package tokens

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// file returns a file of n bytes.
func file(n int) *fstest.MapFile { return &fstest.MapFile{Data: []byte(strings.Repeat("x", n))} }

func TestBuildReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		project  fstest.MapFS
		events   fstest.MapFS
		budget   int
		want     string
		wantJSON Report
	}{
		{
			// The seed's figures, rebuilt from files: 16 facts of ~606 or
			// ~607 tokens (9700 in all), artifacts of 24800 tokens, an index
			// of 1980 tokens and the seed's event counts.
			name: "seed figures",
			project: func() fstest.MapFS {
				m := fstest.MapFS{
					IndexPath:                    file(7920), // 1980 tokens
					".foundry/memory/README.txt": file(999),  // not a fact
					".foundry/memory/.foundry-tmp-fact-0001.md-1":     file(999),   // in flight
					".foundry/blackboard/audit/appsec-reviewer.json":  file(2841),  // 711
					".foundry/blackboard/audit/perf-reviewer.json":    file(40000), // 10000
					".foundry/blackboard/audit/.foundry-tmp-x.json-9": file(999),
					".foundry/blackboard/audit/notes.txt":             file(999),
					".foundry/blackboard/build/implementer.json":      file(56356), // 14089
					".foundry/blackboard/stray.json":                  file(999),   // not in a wave
				}
				for i := range 16 {
					n := 2424 // 606 tokens
					if i < 4 {
						n = 2428 // 607 tokens
					}
					m[fmt.Sprintf(".foundry/memory/fact-%04d-x.md", i+1)] = file(n)
				}
				return m
			}(),
			events: fstest.MapFS{EventsPath: &fstest.MapFile{Data: []byte(
				strings.Repeat(`{"kind":"memory_search"}`+"\n", 41) +
					strings.Repeat(`{"kind":"memory_write"}`+"\n", 16) +
					strings.Repeat(`{"kind":"blackboard_write"}`+"\n", 9) +
					strings.Repeat(`{"kind":"gate_blocked"}`+"\n", 3))}},
			budget: 4000,
			want: `# Foundry token report

- Memory index: ~1980 tokens of a 4000 budget (always in context)
- Facts stored: 16, ~9700 tokens total (retrieved on demand only)
- Blackboard artifacts: ~24800 tokens (never enter context wholesale)
- Recorded events: memory_search=41, memory_write=16, gate_blocked=3, blackboard_write=9

Loading all memory eagerly would cost ~34500 tokens per session; the index-first path costs ~1980.
`,
			wantJSON: Report{
				Index:      IndexCost{Built: true, Bytes: 7920, Tokens: 1980, BudgetTokens: 4000},
				Facts:      FactsCost{Count: 16, Bytes: 4*2428 + 12*2424, Tokens: 9700},
				Blackboard: BlackboardCost{Waves: 2, Artifacts: 3, Bytes: 2841 + 40000 + 56356, Tokens: 24800},
				Events: EventCounts{Counts: []EventCount{
					{KindMemorySearch, 41}, {KindMemoryWrite, 16}, {KindGateBlocked, 3}, {KindBlackboardWrite, 9},
				}, Total: 69},
				EagerTokens:      34500,
				IndexFirstTokens: 1980,
			},
		},
		{
			name:    "empty project",
			project: fstest.MapFS{".foundry/config.yaml": file(0)},
			budget:  2500,
			want: `# Foundry token report

- Memory index: not built yet, 2500 budget (memory_index builds it)
- Facts stored: 0, ~0 tokens total (retrieved on demand only)
- Blackboard artifacts: ~0 tokens (never enter context wholesale)
- Recorded events: none

Loading all memory eagerly would cost ~0 tokens per session; the index-first path costs ~0.
`,
			wantJSON: Report{Index: IndexCost{BudgetTokens: 2500}, Events: EventCounts{Counts: []EventCount{}}},
		},
		{
			name:    "malformed event lines are reported",
			project: fstest.MapFS{IndexPath: file(5)},
			events:  fstest.MapFS{EventsPath: &fstest.MapFile{Data: []byte("{\"kind\":\"runbook_get\"}\ngarbage\n")}},
			budget:  4000,
			want: `# Foundry token report

- Memory index: ~2 tokens of a 4000 budget (always in context)
- Facts stored: 0, ~0 tokens total (retrieved on demand only)
- Blackboard artifacts: ~0 tokens (never enter context wholesale)
- Recorded events: runbook_get=1 (1 malformed line skipped)

Loading all memory eagerly would cost ~0 tokens per session; the index-first path costs ~2.
`,
			wantJSON: Report{
				Index:            IndexCost{Built: true, Bytes: 5, Tokens: 2, BudgetTokens: 4000},
				Events:           EventCounts{Counts: []EventCount{{KindRunbookGet, 1}}, Total: 1, Malformed: 1},
				IndexFirstTokens: 2,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := BuildReport(context.Background(), tt.project, tt.events, tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantJSON, got); diff != "" {
				t.Errorf("BuildReport (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got.Text()); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
		})
	}
}

// A dangling link among the fact files or artifacts is not measured; it
// does not fail the report.
func TestBuildReportDanglingLinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{MemoryDir, BlackboardDir + "/audit"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]int{MemoryDir + "/fact-0001-a.md": 400, BlackboardDir + "/audit/a.json": 800}
	for p, n := range files {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{MemoryDir + "/fact-0002-gone.md", BlackboardDir + "/audit/gone.json"} {
		if err := os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	r, err := BuildReport(context.Background(), os.DirFS(root), nil, 4000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Facts.Count != 1 || r.Facts.Tokens != 100 || r.Blackboard.Artifacts != 1 || r.Blackboard.Tokens != 200 {
		t.Errorf("report = %+v %+v, want the one fact (100 tokens) and the one artifact (200 tokens)", r.Facts, r.Blackboard)
	}
}

// TestBuildReportRefusesLinksOut: INDEX.md, a fact, an artifact, a wave and
// the event log linked out of .foundry, out of the project or to a file of
// the project beside .foundry, are reported as not measured, by name, and
// the rest is still measured.
func TestBuildReportRefusesLinksOut(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{MemoryDir, BlackboardDir + "/audit", ".foundry/metrics"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, n := range map[string]int{MemoryDir + "/fact-0001-a.md": 400, BlackboardDir + "/audit/a.json": 800, "secret.txt": 4000} {
		dir := root
		if p == "secret.txt" {
			dir = outside
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := []string{IndexPath, MemoryDir + "/fact-0002-leak.md", BlackboardDir + "/audit/leak.json", EventsPath}
	for _, p := range links {
		if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, filepath.FromSlash(BlackboardDir+"/outside"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY=x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../.env", filepath.Join(root, filepath.FromSlash(BlackboardDir+"/audit/env.json"))); err != nil {
		t.Fatal(err)
	}
	fsys := confined.OpenFS(root)
	r, err := BuildReport(context.Background(), fsys, fsys, 4000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Index.Built || r.Facts.Count != 1 || r.Facts.Tokens != 100 || r.Blackboard.Waves != 1 || r.Blackboard.Artifacts != 1 || r.Blackboard.Tokens != 200 || r.Events.Total != 0 {
		t.Errorf("report = %+v %+v %+v %+v, want only the fact and the artifact inside", r.Index, r.Facts, r.Blackboard, r.Events)
	}
	want := []Refused{
		{IndexPath, "leads outside .foundry"},
		{MemoryDir + "/fact-0002-leak.md", "leads outside .foundry"},
		{BlackboardDir + "/audit/env.json", "leads outside .foundry"},
		{BlackboardDir + "/audit/leak.json", "leads outside .foundry"},
		{EventsPath, "leads outside .foundry"},
	}
	if diff := cmp.Diff(want, r.Refused); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	if text := r.Text(); !strings.Contains(text, "\n- Not measured: .foundry/memory/INDEX.md (leads outside .foundry)\n") {
		t.Errorf("text does not name INDEX.md:\n%s", text)
	}
}

// TestBuildReportLeavesOutLinkLoops: a fact or an artifact that is a
// symbolic link looping on itself, or leading through a file, is left out
// and named, as a link out of the project is; the rest is still measured.
func TestBuildReportLeavesOutLinkLoops(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{MemoryDir, BlackboardDir + "/audit"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(MemoryDir+"/fact-0001-a.md")), []byte(strings.Repeat("x", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	links := []struct{ at, target string }{
		{MemoryDir + "/fact-0002-loop.md", "fact-0002-loop.md"},
		{MemoryDir + "/fact-0003-through.md", "fact-0001-a.md/x"},
		{BlackboardDir + "/audit/loop.json", "loop.json"},
		{BlackboardDir + "/audit/slash.json", "../../memory/fact-0001-a.md/"},
		{BlackboardDir + "/audit/wave.json", "../audit"},  // a folder, not an artifact
		{MemoryDir + "/fact-0004-folder.md", "../memory"}, // a folder, not a fact
	}
	for _, l := range links {
		if err := os.Symlink(l.target, filepath.Join(root, filepath.FromSlash(l.at))); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	fsys := confined.OpenFS(root)
	r, err := BuildReport(context.Background(), fsys, fsys, 4000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Facts.Count != 1 || r.Facts.Tokens != 100 || r.Blackboard.Artifacts != 0 {
		t.Errorf("report = %+v %+v, want the one fact", r.Facts, r.Blackboard)
	}
	want := []Refused{
		{MemoryDir + "/fact-0002-loop.md", "too many levels of symbolic links"},
		{MemoryDir + "/fact-0003-through.md", "not a directory"},
		{MemoryDir + "/fact-0004-folder.md", "not a regular file"},
		{BlackboardDir + "/audit/loop.json", "too many levels of symbolic links"},
		{BlackboardDir + "/audit/slash.json", "not a directory"},
		{BlackboardDir + "/audit/wave.json", "not a regular file"},
	}
	if diff := cmp.Diff(want, r.Refused); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
}

// TestBuildReportFolders: measured folder by folder (a project's confined
// root), the report is the one measured through the root path by path,
// links within a wave, to another wave, to a fact, out of .foundry,
// dangling and looping included.
func TestBuildReportFolders(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	confinedtest.WriteTree(t, root, map[string]string{
		MemoryDir + "/fact-0001-a.md":         strings.Repeat("x", 400),
		MemoryDir + "/fact-0002-b.md":         strings.Repeat("x", 410),
		BlackboardDir + "/audit/a.json":       strings.Repeat("x", 800),
		BlackboardDir + "/build/b.json":       strings.Repeat("x", 1200),
		BlackboardDir + "/build/.foundry-x.j": strings.Repeat("x", 5),
		"outside.txt":                         strings.Repeat("x", 4000),
	}, map[string]string{
		BlackboardDir + "/audit/alias.json":     "a.json",
		BlackboardDir + "/audit/sibling.json":   "../build/b.json",
		BlackboardDir + "/audit/fact.json":      "../../memory/fact-0001-a.md",
		BlackboardDir + "/audit/out.json":       "../../../outside.txt",
		BlackboardDir + "/audit/gone.json":      "nowhere.json",
		BlackboardDir + "/audit/loop.json":      "loop.json",
		MemoryDir + "/fact-0003-alias.md":       "fact-0002-b.md",
		MemoryDir + "/fact-0004-artifact.md":    "../blackboard/build/b.json",
		MemoryDir + "/fact-0005-out.md":         "../../outside.txt",
		MemoryDir + "/fact-0006-folder.md":      "../blackboard",
		BlackboardDir + "/linked-wave/a.json":   "../audit/a.json",
		BlackboardDir + "/build/wave-link.json": "../build",
	})
	fsys := confined.OpenFS(root)
	// The two reports compare two ways only when the folders open: else
	// both are measured through the root and agree whatever folder.size does.
	for _, dir := range []string{MemoryDir, BlackboardDir + "/audit", BlackboardDir + "/build"} {
		f := openFolder(fsys, dir)
		if f.f == nil {
			t.Fatalf("%s: not measured through its folder", dir)
		}
		f.close()
	}
	ctx := context.Background()
	want, err := BuildReport(ctx, confinedtest.PathByPath(fsys), nil, 4000)
	if err != nil {
		t.Fatal(err)
	}
	got, err := BuildReport(ctx, fsys, nil, 4000)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("by folder (-by path +by folder):\n%s", diff)
	}
	if got.Facts.Count != 4 || got.Blackboard.Artifacts != 6 || len(got.Refused) != 5 {
		t.Errorf("report = %+v %+v, refused %v", got.Facts, got.Blackboard, got.Refused)
	}
}
