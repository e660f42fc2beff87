package blackboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

// TestReadSeedFigures pins blackboard_read to the seed: the 2841-byte
// artifact reads as ~711 tokens, with its summary line.
func TestReadSeedFigures(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile("testdata/appsec-reviewer.json")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{Dir + "/audit/appsec-reviewer.json": &fstest.MapFile{Data: fixture}}
	res, err := Open(fsys, Options{}).Read(context.Background(), ReadRequest{Wave: "audit"})
	if err != nil {
		t.Fatal(err)
	}
	want := "- **appsec-reviewer.json** · schema review.v1 · by appsec-reviewer · ~711 tokens\n" +
		"  Six findings, two high. Access control on /api/orders is the blocking one.\n"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
	wantRes := ReadResult{Wave: "audit", Total: 1, Artifacts: []Artifact{{
		Name: "appsec-reviewer.json", Agent: "appsec-reviewer", Path: ".foundry/blackboard/audit/appsec-reviewer.json",
		Schema: "review.v1", ProducedBy: "appsec-reviewer", Bytes: 2841, Tokens: 711,
		Summary: "Six findings, two high. Access control on /api/orders is the blocking one.",
	}}}
	if diff := cmp.Diff(wantRes, res, cmpopts.IgnoreUnexported(Artifact{})); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}

	// Full: the file verbatim in a fenced JSON block.
	res, err = Open(fsys, Options{}).Read(context.Background(), ReadRequest{Wave: "audit", Full: true})
	if err != nil {
		t.Fatal(err)
	}
	want = "- **appsec-reviewer.json** · schema review.v1 · by appsec-reviewer · ~711 tokens\n```json\n" + string(fixture) + "```\n"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("full Text (-want +got):\n%s", diff)
	}
	if !json.Valid(res.Artifacts[0].Data) || len(res.Artifacts[0].Data) != 2841 {
		t.Errorf("full result data: %d bytes", len(res.Artifacts[0].Data))
	}
}

var wave = fstest.MapFS{
	Dir + "/audit/b-title.json":          file(`{"schema":"finding.v1","producedBy":"b","title":"Title wins over goal","goal":"g"}`),
	Dir + "/audit/c-goal.json":           file(`{"schema":"plan.v1","producedBy":"c","summary":7,"goal":"  Goal\n  on two lines  "}`),
	Dir + "/audit/d-none.json":           file(`{"schema":"x.v1"}`),
	Dir + "/audit/e-array.json":          file(`[1,2,3]`),
	Dir + "/audit/f-broken.json":         file("{\n\"a\": }"),
	Dir + "/audit/a-summary.json":        file(`{"summary":"First","title":"not this"}`),
	Dir + "/audit/notes.txt":             file(`ignored`),
	Dir + "/audit/.foundry-tmp-z.json-1": file(`{}`),
	Dir + "/audit/sub/inner.json":        file(`{}`),
	Dir + "/build/implementer.json":      file(`{}`),
	Dir + "/empty/.keep":                 file(``),
}

func TestReadSummaries(t *testing.T) {
	t.Parallel()
	res, err := Open(wave, Options{}).Read(context.Background(), ReadRequest{Wave: "audit"})
	if err != nil {
		t.Fatal(err)
	}
	// The artifacts their contracts reject are marked, with the first
	// violation: a reader never builds on one unknowingly.
	want := "- **a-summary.json** · schema (none) · by (unknown) · ~10 tokens · INVALID\n" +
		"  First\n" +
		"  invalid: #: no \"schema\" field naming its contract\n" +
		"- **b-title.json** · schema finding.v1 · by b · ~21 tokens · INVALID\n" +
		"  Title wins over goal\n" +
		"  invalid: #: missing required property \"id\" (and 5 more)\n" +
		"- **c-goal.json** · schema plan.v1 · by c · ~21 tokens · INVALID\n" +
		"  Goal on two lines\n" +
		"  invalid: #: missing required property \"waves\" (and 1 more)\n" +
		"- **d-none.json** · schema x.v1 · by (unknown) · ~5 tokens · INVALID\n" +
		"  (no summary field)\n" +
		"  invalid: #/schema: unknown contract \"x.v1\"\n" +
		"- **e-array.json** · ~2 tokens\n" +
		"  not a JSON object (an array)\n" +
		"- **f-broken.json** · ~2 tokens\n" +
		"  not valid JSON: invalid character '}' looking for beginning of value (line 2, column 6)\n"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

// TestReadRefusedArtifact checks that a stored artifact of valid JSON the
// decoder refuses (a hostile number) is marked with the refusal, located,
// and not as invalid JSON.
func TestReadRefusedArtifact(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{Dir + "/w/a.json": file("{\"schema\":\"risk.v1\",\n \"probability\": 1e-1000000000}")}
	res, err := Open(fsys, Options{}).Read(context.Background(), ReadRequest{Wave: "w"})
	if err != nil {
		t.Fatal(err)
	}
	want := "- **a.json** · ~13 tokens\n" +
		"  refused at 2:17: number too large to validate: exponent -1000000000, at most ±10000\n"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

func TestReadSummaryCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 500)
	fsys := fstest.MapFS{Dir + "/w/a.json": file(`{"summary":"` + long + `"}`)}
	res, err := Open(fsys, Options{}).Read(context.Background(), ReadRequest{Wave: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if got := []rune(res.Artifacts[0].Summary); len(got) != MaxSummary || got[MaxSummary-1] != '…' {
		t.Errorf("summary has %d characters, ends %q", len(got), got[len(got)-1])
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		req     ReadRequest
		wantErr error
		errText string
	}{
		{name: "unknown wave", fsys: wave, req: ReadRequest{Wave: "nope"},
			wantErr: ErrUnknownWave, errText: `unknown wave "nope" (waves: audit, build, empty)`},
		{name: "no waves at all", fsys: fstest.MapFS{}, req: ReadRequest{Wave: "nope"},
			wantErr: ErrUnknownWave, errText: `unknown wave "nope" (the blackboard has no waves yet)`},
		{name: "hostile wave is sanitised, then unknown", fsys: wave, req: ReadRequest{Wave: "../../etc"},
			wantErr: ErrUnknownWave, errText: `unknown wave "..-..-etc" (waves: audit, build, empty)`},
		{name: "dot dot wave", fsys: wave, req: ReadRequest{Wave: ".."}, wantErr: ErrInvalidName},
		{name: "unknown agent", fsys: wave, req: ReadRequest{Wave: "build", Agent: "x"},
			wantErr: ErrNoArtifact, errText: `no artifact by "x" in wave build (agents: implementer)`},
		{name: "agent in empty wave", fsys: wave, req: ReadRequest{Wave: "empty", Agent: "x"},
			wantErr: ErrNoArtifact, errText: `no artifact by "x" in wave empty (the wave is empty)`},
		{name: "limit too big", fsys: wave, req: ReadRequest{Wave: "audit", Limit: 101},
			wantErr: ErrInvalidLimit, errText: "invalid limit 101: use 1–100"},
		{name: "negative limit", fsys: wave, req: ReadRequest{Wave: "audit", Limit: -1}, wantErr: ErrInvalidLimit},
		{name: "garbage cursor", fsys: wave, req: ReadRequest{Wave: "audit", Cursor: "!!"},
			wantErr: ErrInvalidCursor, errText: `invalid cursor "!!" for wave audit: pass the nextCursor of a previous read of this wave`},
		{name: "cursor of another wave", fsys: wave, req: ReadRequest{Wave: "audit", Cursor: encodeCursor("build", "x.json")},
			wantErr: ErrInvalidCursor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(tt.fsys, Options{}).Read(context.Background(), tt.req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.errText != "" && err.Error() != tt.errText {
				t.Errorf("error text:\n got %s\nwant %s", err, tt.errText)
			}
		})
	}
}

func TestReadAgent(t *testing.T) {
	t.Parallel()
	res, err := Open(wave, Options{}).Read(context.Background(), ReadRequest{Wave: "audit", Agent: "b-title"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Artifacts) != 1 || res.Artifacts[0].Name != "b-title.json" || res.Total != 1 {
		t.Errorf("agent read: %+v", res)
	}
}

// TestReadEmptyPage: the text of a page without artifacts says why, for
// the CLI and blackboard_read alike: the wave holds none, or the cursor is
// past them all, or past the agent's (whose wave holds others after it).
func TestReadEmptyPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  ReadRequest
		want string
	}{
		{name: "empty wave", req: ReadRequest{Wave: "empty"},
			want: "Wave empty holds no artifacts yet.\n"},
		{name: "cursor past the wave's last", req: ReadRequest{Wave: "audit", Cursor: encodeCursor("audit", "f-broken.json")},
			want: "Wave audit holds no artifacts after the cursor (6 in all).\n"},
		{name: "cursor past the agent's", req: ReadRequest{Wave: "audit", Agent: "b-title", Cursor: encodeCursor("audit", "b-title.json")},
			want: "Wave audit holds no artifact by b-title after the cursor.\n"},
		{name: "agent named as sanitised", req: ReadRequest{Wave: "audit", Agent: "b/title", Cursor: encodeCursor("audit", "c-goal.json")},
			want: "Wave audit holds no artifact by b-title after the cursor.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Open(wave, Options{}).Read(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Artifacts) != 0 || res.NextCursor != "" {
				t.Fatalf("page holds %d artifacts, next cursor %q; want none", len(res.Artifacts), res.NextCursor)
			}
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, res.HumanText()); diff != "" {
				t.Errorf("HumanText (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAgents lists a wave's agents from its file names alone: broken and
// invalid artifacts are agents too, other files and folders are not.
func TestAgents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		wave    string
		want    []string
		wantErr error
	}{
		{name: "wave", wave: "audit", want: []string{"a-summary", "b-title", "c-goal", "d-none", "e-array", "f-broken"}},
		{name: "one agent", wave: "build", want: []string{"implementer"}},
		{name: "empty wave", wave: "empty", want: []string{}},
		{name: "unknown wave", wave: "nope", wantErr: ErrUnknownWave},
		{name: "bad name", wave: "..", wantErr: ErrInvalidName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Open(wave, Options{}).Agents(context.Background(), tt.wave)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Agents(%q) error = %v, want %v", tt.wave, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Agents(%q) (-want +got):\n%s", tt.wave, diff)
			}
		})
	}
}

// TestReadPaging walks a wave of 45 artifacts 20 at a time, with one added
// between pages: nothing is skipped or repeated.
func TestReadPaging(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{}
	for i := range 45 {
		fsys[fmt.Sprintf("%s/big/agent-%02d.json", Dir, i)] = file(`{"summary":"s"}`)
	}
	b := Open(fsys, Options{})
	var seen []string
	cursor := ""
	var pages []int
	for page := 0; ; page++ {
		res, err := b.Read(context.Background(), ReadRequest{Wave: "big", Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, len(res.Artifacts))
		for _, a := range res.Artifacts {
			seen = append(seen, a.Agent)
		}
		text := res.Text()
		if res.NextCursor == "" {
			if strings.Contains(text, "More:") {
				t.Errorf("last page has a More line")
			}
			break
		}
		if want := fmt.Sprintf("\nMore: call again with cursor %q.\n", res.NextCursor); !strings.HasSuffix(text, want) {
			t.Errorf("page %d does not end with %q:\n%s", page, want, text)
		}
		if page == 0 {
			// A new artifact sorting before the cursor does not shift pages.
			fsys[Dir+"/big/agent-00a.json"] = file(`{}`)
		}
		cursor = res.NextCursor
	}
	if diff := cmp.Diff([]int{20, 20, 5}, pages); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
	var want []string
	for i := range 45 {
		want = append(want, fmt.Sprintf("agent-%02d", i))
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("artifacts seen (-want +got):\n%s", diff)
	}

	res, err := b.Read(context.Background(), ReadRequest{Wave: "big", Limit: 100})
	if err != nil || len(res.Artifacts) != 46 || res.NextCursor != "" {
		t.Errorf("limit 100: %d artifacts, cursor %q, %v", len(res.Artifacts), res.NextCursor, err)
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add("audit", encodeCursor("audit", "appsec-reviewer.json"))
	f.Add("audit", encodeCursor("build", "x.json"))
	f.Add("audit", "!!")
	f.Add("a", "YmIxOmEv")
	f.Fuzz(func(t *testing.T, wave, c string) {
		after, err := decodeCursor(wave, c)
		if err != nil {
			if !errors.Is(err, ErrInvalidCursor) {
				t.Fatalf("error %v does not wrap ErrInvalidCursor", err)
			}
			return
		}
		if after == "" || strings.Contains(after, "/") {
			t.Fatalf("decodeCursor(%q, %q) = %q", wave, c, after)
		}
		if again, err := decodeCursor(wave, encodeCursor(wave, after)); err != nil || again != after {
			t.Fatalf("round trip of %q: %q, %v", after, again, err)
		}
	})
}

// An artifact that cannot be read (here a dangling link) is shown with its
// problem, in summaries and full reads; the rest of the wave still reads.
func TestReadUnreadableArtifact(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	dir := root + "/.foundry/blackboard/audit"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/b.json", []byte(`{"schema":"note.v1","producedBy":"b","summary":"fine"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root+"/gone.json", dir+"/a.json"); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, full := range []bool{false, true} {
		res, err := Open(os.DirFS(root), Options{}).Read(context.Background(), ReadRequest{Wave: "audit", Full: full})
		if err != nil {
			t.Fatalf("full %v: %v", full, err)
		}
		got := res.Text()
		if want := "- **a.json** · ~0 tokens\n  cannot be read: no such file or directory\n"; !strings.HasPrefix(got, want) {
			t.Errorf("full %v: text starts %q, want %q", full, got, want)
		}
		if !strings.Contains(got, "b.json") {
			t.Errorf("full %v: b.json missing from %q", full, got)
		}
	}
}

// TestReadRefusesLinkedWave: a symbolic link named like a wave, which
// Waves does not list and a write refuses, is not read either; a real
// wave beside it reads.
func TestReadRefusesLinkedWave(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	for _, d := range []string{"/.foundry/store", "/.foundry/blackboard/real"} {
		if err := os.MkdirAll(root+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"/.foundry/store/a.json", "/.foundry/blackboard/real/a.json"} {
		if err := os.WriteFile(root+f, []byte(`{"schema":"note.v1","producedBy":"a","summary":"s"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../store", root+"/.foundry/blackboard/linked"); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	b := Open(os.DirFS(root), Options{})
	if waves, err := b.Waves(context.Background()); err != nil || !slices.Equal(waves, []string{"real"}) {
		t.Errorf("Waves = %q, %v; want [real]", waves, err)
	}
	for _, agent := range []string{"", "a"} {
		_, err := b.Read(context.Background(), ReadRequest{Wave: "linked", Agent: agent})
		if err == nil || !strings.Contains(err.Error(), "read wave linked: .foundry/blackboard/linked is a symbolic link, not a folder") {
			t.Errorf("Read(linked, agent %q) = %v, want the link refused", agent, err)
		}
	}
	if _, err := b.Agents(context.Background(), "linked"); err == nil {
		t.Error("Agents(linked) listed a linked wave")
	}
	if _, err := b.Read(context.Background(), ReadRequest{Wave: "real"}); err != nil {
		t.Errorf("Read(real) = %v", err)
	}
}

// opensFS counts the files opened through it.
type opensFS struct {
	fstest.MapFS
	opens map[string]int
}

func (f opensFS) Open(name string) (fs.File, error) {
	f.opens[name]++
	return f.MapFS.Open(name)
}

// TestReadFullMaxBytes checks that a full read whose page is larger than
// MaxBytes is refused from the files' sizes, before any artifact is read,
// and that a page within the bound, a summary read and MaxBytes 0 read as
// before.
func TestReadFullMaxBytes(t *testing.T) {
	t.Parallel()
	big := `{"schema":"finding.v1","summary":"` + strings.Repeat("x", 1000) + `"}`
	fsys := fstest.MapFS{
		Dir + "/w/a.json": file(`{"schema":"finding.v1","summary":"small"}`),
		Dir + "/w/b.json": file(big),
	}
	total := int64(len(fsys[Dir+"/w/a.json"].Data) + len(big))
	for _, tc := range []struct {
		name    string
		req     ReadRequest
		refused bool
	}{
		{"over", ReadRequest{Wave: "w", Full: true, MaxBytes: total - 1}, true},
		{"one agent within", ReadRequest{Wave: "w", Agent: "a", Full: true, MaxBytes: 100}, false},
		{"one page within", ReadRequest{Wave: "w", Limit: 1, Full: true, MaxBytes: 100}, false},
		{"exactly", ReadRequest{Wave: "w", Full: true, MaxBytes: total}, false},
		{"summaries", ReadRequest{Wave: "w", MaxBytes: 1}, false},
		{"unbounded", ReadRequest{Wave: "w", Full: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := opensFS{fsys, map[string]int{}}
			_, err := Open(f, Options{}).Read(context.Background(), tc.req)
			var tl *FullTooLargeError
			if !tc.refused {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.As(err, &tl) || !errors.Is(err, ErrFullTooLarge) || tl.Bytes != total || tl.Max != tc.req.MaxBytes {
				t.Fatalf("err = %v, want a FullTooLargeError of %d bytes over %d", err, total, tc.req.MaxBytes)
			}
			want := fmt.Sprintf("read wave w in full: the artifacts are %d bytes, over the %d-byte bound; pass agent, a smaller limit, or leave out full", total, total-1)
			if err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
			for name, n := range f.opens {
				if strings.HasSuffix(name, ".json") && n > 0 {
					t.Errorf("%s opened %d times before the refusal", name, n)
				}
			}
		})
	}
}
