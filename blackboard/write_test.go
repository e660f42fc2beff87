package blackboard

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/tokens"
)

// recorder is a fake Recorder.
type recorder struct {
	mu    sync.Mutex
	kinds []string
}

func (r *recorder) Record(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds = append(r.kinds, kind)
}

// newProject returns a project root holding an empty .foundry/.
func newProject(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func openBoard(root string, rec Recorder) *Board {
	return Open(os.DirFS(root), Options{Root: root, Events: rec})
}

// listFiles returns every file under root/.foundry, slash paths, sorted.
func listFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(root, ".foundry"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func schemaDigest(t *testing.T, id string) string {
	t.Helper()
	r, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Digest(id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestWriteSeedFigures pins blackboard_write to the seed: an artifact of
// exactly 2841 bytes is reported as (2841 bytes, ~711 tokens).
func TestWriteSeedFigures(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile("testdata/appsec-reviewer.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(fixture) != 2841 {
		t.Fatalf("fixture is %d bytes, the seed's artifact is 2841", len(fixture))
	}
	root := newProject(t)
	rec := &recorder{}
	res, err := openBoard(root, rec).Write(context.Background(), WriteRequest{
		Wave: "audit", Agent: "appsec-reviewer", Schema: "review.v1", Data: fixture,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "Wrote .foundry/blackboard/audit/appsec-reviewer.json (2841 bytes, ~711 tokens).\n" +
		"Return to your caller ONLY this path and a summary of at most 300 tokens.\n"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
	wantRes := WriteResult{
		Written: true, Wave: "audit", Agent: "appsec-reviewer", Schema: "review.v1",
		Path: ".foundry/blackboard/audit/appsec-reviewer.json", Bytes: 2841, Tokens: 711,
		ContractDigest: schemaDigest(t, "review.v1"),
		ArtifactDigest: fmt.Sprintf("sha256:%x", sha256.Sum256(fixture)),
	}
	if diff := cmp.Diff(wantRes, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	got, err := os.ReadFile(filepath.Join(root, ".foundry", "blackboard", "audit", "appsec-reviewer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Wrote .foundry/blackboard/audit/appsec-reviewer.json (2841 bytes, ~711 tokens).\n"; res.HumanText() != want {
		t.Errorf("HumanText = %q, want %q", res.HumanText(), want)
	}
	// The same write again replaces the artifact, and says so.
	again, err := openBoard(root, rec).Write(context.Background(), WriteRequest{
		Wave: "audit", Agent: "appsec-reviewer", Schema: "review.v1", Data: fixture,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Replaced || !strings.HasPrefix(again.HumanText(), "Replaced .foundry/blackboard/audit/appsec-reviewer.json ") {
		t.Errorf("second write: replaced %v, text %q", again.Replaced, again.HumanText())
	}
	if diff := cmp.Diff(string(fixture), string(got)); diff != "" {
		t.Errorf("written file (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{tokens.KindBlackboardWrite, tokens.KindBlackboardWrite}, rec.kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestWriteCanonicalForm(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	// Keys come out sorted at every level, numbers exact, no HTML escaping,
	// and schema and producedBy come from the request, not the data. A
	// character that is not text (a C1 control, DEL, each bidirectional
	// control) is stored as its \u escape; the characters around them, the
	// implicit direction mark included, stay as they are.
	data := `{"wave":"w1","status":"complete","summary":"<b>&</b> 1e400 stays \u0085\u007f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069 \u2029\u202f\u2065\u206a\u200e","producedBy":"someone-else","schema":"plan.v1",
"artifacts":[{"path":"p","description":"z","contract":"finding.v1"}],"gate":{"passed":true,"notes":"n"}}`
	res, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: "w1", Agent: "lead", Schema: "handoff.v1", Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Written {
		t.Fatalf("rejected:\n%s", res.Text())
	}
	got, _ := os.ReadFile(filepath.Join(root, ".foundry", "blackboard", "w1", "lead.json"))
	want := `{
  "artifacts": [
    {
      "contract": "finding.v1",
      "description": "z",
      "path": "p"
    }
  ],
  "gate": {
    "notes": "n",
    "passed": true
  },
  "producedBy": "lead",
  "schema": "handoff.v1",
  "status": "complete",
  "summary": "<b>&</b> 1e400 stays \u0085\u007f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069 \u2029` + "\u202f\u2065\u206a\u200e" + `",
  "wave": "w1"
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

func TestWriteRejected(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	rec := &recorder{}
	before := listFiles(t, root)
	data := `{"id":"F-001","severity":"high","title":"IDOR on orders","summary":"Any user reads any order.","confidence":"high"}`
	res, err := openBoard(root, rec).Write(context.Background(), WriteRequest{Wave: "audit", Agent: "appsec-reviewer", Schema: "finding.v1", Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	want := "Rejected: artifact does not satisfy finding.v1.\n" +
		"- #: missing required property \"failureScenario\"\n" +
		"Fix and call again.\n"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
	if res.Written || res.Path != "" {
		t.Errorf("result says written: %+v", res)
	}
	if diff := cmp.Diff(before, listFiles(t, root)); diff != "" {
		t.Errorf("a rejected write changed .foundry (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{tokens.KindGateBlocked}, rec.kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// Several problems, in document order.
	res, err = openBoard(root, rec).Write(context.Background(), WriteRequest{Wave: "audit", Agent: "a", Schema: "finding.v1",
		Data: []byte(`{"id":"F 1","severity":"urgent","title":"t","summary":"s","failureScenario":"f","confidence":"high","extra":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	want = "Rejected: artifact does not satisfy finding.v1.\n" +
		"- #: unexpected property \"extra\"\n" +
		"- #/id: does not match pattern \"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$\"\n" +
		"- #/severity: must be one of [\"critical\",\"high\",\"medium\",\"low\",\"info\"]\n" +
		"Fix and call again.\n"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	valid := `{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`
	tests := []struct {
		name    string
		req     WriteRequest
		wantErr error
		errText string
	}{
		// Valid JSON the validation core's decoder refuses says so, located:
		// it is no JSON syntax error.
		{name: "huge exponent", req: WriteRequest{Wave: "w", Agent: "a", Schema: "risk.v1", Data: []byte("{\n  \"probability\": 1e1000000000}")},
			wantErr: contracts.ErrHostileNumber, errText: "data refused at 2:18: number too large to validate: exponent 1000000000, at most ±10000"},
		{name: "many digits", req: WriteRequest{Wave: "w", Agent: "a", Schema: "risk.v1", Data: []byte(`{"probability": 0.` + strings.Repeat("1", 1001) + `}`)},
			wantErr: contracts.ErrHostileNumber, errText: "data refused at 1:17: number too large to validate: 1002 digits, at most 1000"},
		{name: "too many values", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`{"x":[` + strings.Repeat("0,", 1<<20) + `0]}`)},
			wantErr: contracts.ErrTooManyValues, errText: "data refused at 1:2097155: too many values to validate: more than 1048576"},
		{name: "array", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`[1,2]`)},
			wantErr: ErrNotObject, errText: "data must be a JSON object, got an array"},
		{name: "string", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`"hello"`)},
			wantErr: ErrNotObject, errText: "data must be a JSON object, got a string"},
		{name: "null", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`null`)},
			wantErr: ErrNotObject, errText: "data must be a JSON object, got null"},
		{name: "empty", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(" \n")},
			wantErr: ErrNotObject, errText: "data must be a JSON object, got nothing"},
		{name: "not JSON", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte("{\n  \"a\": nope}")},
			wantErr: ErrInvalidJSON, errText: "data is not valid JSON: invalid character 'o' in literal null (expecting 'u') (line 2, column 9)"},
		{name: "truncated", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`{"a":`)},
			wantErr: ErrInvalidJSON, errText: "data is not valid JSON: unexpected end of JSON input (line 1, column 6)"},
		{name: "two values", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`{} {}`)},
			wantErr: ErrInvalidJSON, errText: "data is not valid JSON: invalid character '{' after top-level value (line 1, column 4)"},
		{name: "too large", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1",
			Data: []byte(`{"x":"` + strings.Repeat("a", MaxDataBytes) + `"}`)},
			wantErr: ErrTooLarge, errText: "data is too large: 8388616 bytes, at most 8388608 (8 MiB)"},
		// Six bytes stored for each DEL: data under the limit, its file over.
		{name: "too large as stored", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1",
			Data: []byte(`{"x":"` + strings.Repeat("\x7f", 1_500_000) + `"}`)},
			wantErr: ErrTooLarge, errText: "data is too large: 9000061 bytes as stored (indented, with escapes), at most 8388608 (8 MiB)"},
		// 54 KB nested 9,000 deep would be gigabytes indented: refused
		// before it is encoded.
		{name: "too deep to store", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1",
			Data: []byte(`{"x0":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `,"x1":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`)},
			wantErr: ErrTooLarge, errText: "data is too large: 324072062 bytes as stored (indented), at most 8388608 (8 MiB)"},
		// 600 KB whose indentation, 2.4 GB, is more than an int counts
		// where it is 32 bits: refused all the same, not wrapped round to
		// a negative size that passes the limit.
		{name: "too wide to count in 32 bits", req: WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1",
			Data: []byte(`{"x":` + strings.Repeat("[", 4000) + "1" + strings.Repeat(",1", 300_000) + strings.Repeat("]", 4000) + `}`)},
			wantErr: ErrTooLarge},
		{name: "unknown contract", req: WriteRequest{Wave: "w", Agent: "a", Schema: "nope.v9", Data: []byte(valid)},
			wantErr: contracts.ErrUnknownContract},
		{name: "dot dot wave", req: WriteRequest{Wave: "..", Agent: "a", Schema: "finding.v1", Data: []byte(valid)},
			wantErr: ErrInvalidName, errText: `invalid wave name "..": "." and ".." name no folder inside the blackboard`},
		{name: "dot agent", req: WriteRequest{Wave: "w", Agent: ".", Schema: "finding.v1", Data: []byte(valid)},
			wantErr: ErrInvalidName, errText: `invalid agent name ".": "." and ".." name no folder inside the blackboard`},
		{name: "empty agent", req: WriteRequest{Wave: "w", Agent: "", Schema: "finding.v1", Data: []byte(valid)},
			wantErr: ErrInvalidName, errText: `invalid agent name "": is empty`},
		{name: "NUL wave", req: WriteRequest{Wave: "w\x00", Agent: "a", Schema: "finding.v1", Data: []byte(valid)},
			wantErr: ErrInvalidName, errText: `invalid wave name "w\x00": contains a NUL byte`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := newProject(t)
			rec := &recorder{}
			before := listFiles(t, root)
			res, err := openBoard(root, rec).Write(context.Background(), tt.req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if refusal := errors.Is(tt.wantErr, contracts.ErrHostileNumber) || errors.Is(tt.wantErr, contracts.ErrTooManyValues); refusal && (errors.Is(err, ErrInvalidJSON) || strings.Contains(err.Error(), "not valid JSON")) {
				t.Errorf("err = %v: valid JSON refused reads as invalid JSON", err)
			}
			if tt.errText != "" && err.Error() != tt.errText {
				t.Errorf("error text:\n got %s\nwant %s", err, tt.errText)
			}
			if res.Written {
				t.Error("result says written")
			}
			if diff := cmp.Diff(before, listFiles(t, root)); diff != "" {
				t.Errorf("a failed write changed .foundry (-before +after):\n%s", diff)
			}
			if len(rec.kinds) != 0 {
				t.Errorf("events recorded: %v", rec.kinds)
			}
		})
	}
}

func TestWriteHostileNamesStayInside(t *testing.T) {
	t.Parallel()
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	tests := []struct {
		wave, agent string
		wantPath    string
	}{
		{"../../etc", "passwd", ".foundry/blackboard/..-..-etc/passwd.json"},
		{"a/b", "../x", ".foundry/blackboard/a-b/..-x.json"},
		{"audit", "/abs/path", ".foundry/blackboard/audit/-abs-path.json"},
		{strings.Repeat("w", 200), strings.Repeat("a", 200), ".foundry/blackboard/" + strings.Repeat("w", 80) + "/" + strings.Repeat("a", 80) + ".json"},
	}
	for _, tt := range tests {
		t.Run(tt.wantPath[:min(40, len(tt.wantPath))], func(t *testing.T) {
			t.Parallel()
			root := newProject(t)
			res, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: tt.wave, Agent: tt.agent, Schema: "finding.v1", Data: valid})
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != tt.wantPath {
				t.Errorf("path = %s, want %s", res.Path, tt.wantPath)
			}
			want := []string{
				".foundry/",
				".foundry/blackboard/",
				WriteLock,
				".foundry/blackboard/" + res.Wave + "/",
				tt.wantPath,
				".foundry/contracts.lock/",
				".foundry/contracts.lock/finding.v1",
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, listFiles(t, root)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			es, _ := os.ReadDir(root)
			if len(es) != 1 {
				t.Errorf("project root holds %d entries, want only .foundry", len(es))
			}
		})
	}
}

func TestWriteReadOnly(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	_, err := Open(os.DirFS(root), Options{}).Write(context.Background(), WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`{}`)})
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("err = %v, want ErrReadOnly", err)
	}
}

// TestWriteLock records the contract content the first accepted artifact
// was accepted under, and never changes it afterwards.
func TestWriteLock(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	ctx := context.Background()
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	if _, err := openBoard(root, nil).Write(ctx, WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: valid}); err != nil {
		t.Fatal(err)
	}
	locks, err := ReadLocks(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	want := []Lock{{ID: "finding.v1", Digest: schemaDigest(t, "finding.v1"), Path: ".foundry/contracts.lock/finding.v1"}}
	if diff := cmp.Diff(want, locks); diff != "" {
		t.Errorf("ReadLocks (-want +got):\n%s", diff)
	}

	// An older lock wins: a later write under a different content keeps it.
	old := "sha256:" + strings.Repeat("0", 64) + "\n"
	lockPath := filepath.Join(root, ".foundry", "contracts.lock", "finding.v1")
	if err := os.WriteFile(lockPath, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := openBoard(root, nil).Write(ctx, WriteRequest{Wave: "w", Agent: "b", Schema: "finding.v1", Data: valid})
	if err != nil || !res.Written {
		t.Fatalf("second write: %v %+v", err, res)
	}
	if got, _ := os.ReadFile(lockPath); string(got) != old {
		t.Errorf("lock rewritten: %q", got)
	}
}

func TestReadLocks(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	dir := filepath.Join(root, ".foundry", "contracts.lock")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	good := "sha256:" + strings.Repeat("ab", 32)
	for name, content := range map[string]string{
		"review.v1":  good + "\n",
		"finding.v1": "garbage\n",
		"Bad Name":   good,
		".gitkeep":   "",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadLocks(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	want := []Lock{
		{ID: "Bad Name", Digest: good, Path: ".foundry/contracts.lock/Bad Name", Problem: "the file name is not a contract id"},
		{ID: "finding.v1", Digest: "garbage", Path: ".foundry/contracts.lock/finding.v1", Problem: `the content is not a digest of the form "sha256:<64 hex digits>"`},
		{ID: "review.v1", Digest: good, Path: ".foundry/contracts.lock/review.v1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadLocks (-want +got):\n%s", diff)
	}
	empty, err := ReadLocks(os.DirFS(t.TempDir()))
	if err != nil || len(empty) != 0 {
		t.Errorf("ReadLocks without a lock = %v, %v", empty, err)
	}
}

func TestWriteRefusesSymlinkedFolders(t *testing.T) {
	t.Parallel()
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	for _, link := range []string{".foundry/blackboard", ".foundry/blackboard/audit", ".foundry/contracts.lock"} {
		t.Run(link, func(t *testing.T) {
			t.Parallel()
			root := newProject(t)
			outside := t.TempDir()
			p := filepath.Join(root, filepath.FromSlash(link))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			_, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: "audit", Agent: "bob", Schema: "finding.v1", Data: valid})
			if !errors.Is(err, ErrSymlink) {
				t.Errorf("Write error = %v, want %v", err, ErrSymlink)
			}
			if es, _ := os.ReadDir(outside); len(es) != 0 {
				t.Errorf("the write left %d entries outside the project", len(es))
			}
		})
	}
}

// A write that fails after the contract check (here: a file where the wave
// folder should be) leaves nothing behind, not even a contracts.lock entry;
// an entry that was there before stays.
func TestWriteFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	valid := []byte(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	root := newProject(t)
	bb := filepath.Join(root, ".foundry", "blackboard")
	if err := os.MkdirAll(bb, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bb, "audit"), []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The (empty, untracked) lock folder may stay; its entry may not.
	if err := os.Mkdir(filepath.Join(root, ".foundry", "contracts.lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, root)
	if _, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: "audit", Agent: "bob", Schema: "finding.v1", Data: valid}); err == nil {
		t.Fatal("Write succeeded with a file in place of the wave folder")
	}
	if diff := cmp.Diff(before, listFiles(t, root)); diff != "" {
		t.Errorf("files after a failed write (-before +after):\n%s", diff)
	}

	lock := filepath.Join(root, ".foundry", "contracts.lock", "finding.v1")
	old := "sha256:" + strings.Repeat("0", 64) + "\n"
	if err := os.WriteFile(lock, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: "audit", Agent: "bob", Schema: "finding.v1", Data: valid}); err == nil {
		t.Fatal("second Write succeeded with a file in place of the wave folder")
	}
	if got, err := os.ReadFile(lock); err != nil || string(got) != old {
		t.Errorf("an existing lock entry changed: %q, %v", got, err)
	}
}

// TestLoadContracts: a board given LoadContracts writes and reads with
// the contracts it returns, and fails as it fails.
func TestLoadContracts(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	reg, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	board := Open(os.DirFS(root), Options{Root: root, LoadContracts: func() (Contracts, error) { loads++; return reg, nil }})
	ctx := context.Background()
	res, err := board.Write(ctx, WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`{}`)})
	if err != nil || res.Written {
		t.Fatalf("write of an empty finding: written %v, %v; want refused", res.Written, err)
	}
	if _, err := board.Read(ctx, ReadRequest{Wave: "w"}); err == nil || loads != 1 {
		t.Fatalf("read of an unknown wave: %v after %d loads, want an error after 1", err, loads)
	}
	boom := errors.New("boom")
	failing := Open(os.DirFS(root), Options{Root: root, LoadContracts: func() (Contracts, error) { return nil, boom }})
	if _, err := failing.Write(ctx, WriteRequest{Wave: "w", Agent: "a", Schema: "finding.v1", Data: []byte(`{}`)}); !errors.Is(err, boom) {
		t.Errorf("write when the contracts fail: %v, want boom", err)
	}
}
