package runbooks

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
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

func md(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

var sample = fstest.MapFS{
	Dir + "/deploy-production.md": md("---\ntitle: Deploy to production\ntrigger: deploy, release to prod\n---\n\n# Deploy\n\n1. Tag.\n"),
	Dir + "/rotate-api-keys.md":   md("---\ntitle: Rotate third-party API keys\n---\nSteps.\n"),
}

func TestListText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{
			name: "seed",
			fsys: sample,
			want: "- **deploy-production** — Deploy to production\n" +
				"  trigger: deploy, release to prod\n" +
				"- **rotate-api-keys** — Rotate third-party API keys\n",
		},
		{
			name: "no folder",
			fsys: fstest.MapFS{".foundry/config.yaml": md("")},
			want: "No runbooks yet. Create one with the runbook-author skill after any task worth repeating.\n",
		},
		{
			name: "empty folder, other files ignored",
			fsys: fstest.MapFS{
				Dir + "/notes.txt":                  md("x"),
				Dir + "/sub/inner.md":               md("---\ntitle: Inner\n---\n"),
				Dir + "/.foundry-tmp-x.md-1":        md("---\ntitle: Temp\n---\n"),
				Dir + "/.hidden.md":                 md("---\ntitle: Hidden\n---\n"),
				".foundry/runbooks-old/legacy.md":   md("---\ntitle: Legacy\n---\n"),
				".foundry/memory/fact-0001-a-b.md":  md("---\ntitle: A fact\n---\n"),
				".foundry/blackboard/w/agent.json":  md("{}"),
				".foundry/blackboard/w/agent.md":    md("---\ntitle: Not a runbook\n---\n"),
				".foundry/schemas/x.v1.schema.json": md("{}"),
			},
			want: "No runbooks yet. Create one with the runbook-author skill after any task worth repeating.\n",
		},
		{
			name: "broken front matter is listed with a warning",
			fsys: fstest.MapFS{
				Dir + "/a-ok.md":          md("---\ntitle: Fine\ntrigger: [on-call page, incident]\n---\n"),
				Dir + "/b-bad-yaml.md":    md("---\ntitle: [unclosed\n---\nbody\n"),
				Dir + "/c-no-fm.md":       md("# Just markdown\n"),
				Dir + "/d-unclosed.md":    md("---\ntitle: Open\n"),
				Dir + "/e-no-title.md":    md("---\ntrigger: nightly\n---\n"),
				Dir + "/Bad Name.md":      md("---\ntitle: Spaces\n---\n"),
				Dir + "/f-crlf.md":        md("---\r\ntitle: Windows\r\ntrigger: \"on: push\"\r\n---\r\n"),
				Dir + "/g-list-title.md":  md("---\ntitle: [a, b]\n---\n"),
				Dir + "/h-multiline.md":   md("---\ntitle: |\n  Two\n  lines\n---\n"),
				Dir + "/i-not-mapping.md": md("---\n- a\n---\n"),
			},
			want: "- **Bad Name** — Spaces\n" +
				"  warning: the file name is not a valid slug ([a-z0-9][a-z0-9-]*), so runbook_get cannot read it; rename the file\n" +
				"- **a-ok** — Fine\n" +
				"  trigger: on-call page, incident\n" +
				"- **b-bad-yaml** — (no title)\n" +
				"  warning: front matter: line 2: not valid YAML: \"[\" is not closed on this line\n" +
				"- **c-no-fm** — (no title)\n" +
				"  warning: no front matter (the file must start with a --- line)\n" +
				"- **d-unclosed** — (no title)\n" +
				"  warning: front matter is not closed by a --- line\n" +
				"- **e-no-title** — (no title)\n" +
				"  trigger: nightly\n" +
				"  warning: front matter has no title\n" +
				"- **f-crlf** — Windows\n" +
				"  trigger: on: push\n" +
				"- **g-list-title** — (no title)\n" +
				"  warning: front matter: line 2: title: want text\n" +
				"- **h-multiline** — Two lines\n" +
				"- **i-not-mapping** — (no title)\n" +
				"  warning: front matter: line 2: want key: value lines\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := Open(tt.fsys, Options{}).List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, l.Text()); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListStructured(t *testing.T) {
	t.Parallel()
	l, err := Open(sample, Options{}).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := Listing{Runbooks: []Runbook{
		{Slug: "deploy-production", Title: "Deploy to production", Trigger: "deploy, release to prod", Path: ".foundry/runbooks/deploy-production.md"},
		{Slug: "rotate-api-keys", Title: "Rotate third-party API keys", Path: ".foundry/runbooks/rotate-api-keys.md"},
	}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

// TestListWarningLine: a front matter problem at a line of the file
// carries that line, the one its warning states, so that a report can
// point at it; a problem of the whole file carries none.
func TestListWarningLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		line          int
		warning       string
	}{
		{"valid", "---\ntitle: Deploy\n---\n", 0, ""},
		{"YAML error", "---\ntitle: Deploy\ntrigger: [deploy\n---\n", 3, `front matter: line 3: not valid YAML: "[" is not closed on this line`},
		{"not a mapping", "---\n- deploy\n---\n", 2, "front matter: line 2: want key: value lines"},
		{"title not text", "---\ntrigger: deploy\ntitle: [a, b]\n---\n", 3, "front matter: line 3: title: want text"},
		{"trigger item not text", "---\ntitle: Deploy\ntrigger:\n  - {a: b}\n---\n", 4, "front matter: line 4: trigger: want text or a list of texts"},
		{"trigger not text", "---\ntitle: Deploy\ntrigger: {a: b}\n---\n", 3, "front matter: line 3: trigger: want text or a list of texts"},
		{"no front matter", "# Deploy\n", 0, "no front matter (the file must start with a --- line)"},
		{"not closed", "---\ntitle: Deploy\n", 0, "front matter is not closed by a --- line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := Open(fstest.MapFS{Dir + "/deploy.md": md(tc.content)}, Options{}).List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Runbooks[0]; got.Line != tc.line || got.Warning != tc.warning {
				t.Errorf("Line, Warning = %d, %q; want %d, %q", got.Line, got.Warning, tc.line, tc.warning)
			}
		})
	}
}

// openCounter counts Open calls, to prove an invalid slug touches nothing
// and a page reads its runbooks alone.
type openCounter struct {
	fs.FS
	mu    sync.Mutex
	opens []string
}

func (o *openCounter) Open(name string) (fs.File, error) {
	o.mu.Lock()
	o.opens = append(o.opens, name)
	o.mu.Unlock()
	return o.FS.Open(name)
}

// reads returns how many runbook files o opened, and forgets every open.
func (o *openCounter) reads() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, name := range o.opens {
		if path.Dir(name) == Dir && strings.HasSuffix(name, ext) {
			n++
		}
	}
	o.opens = nil
	return n
}

func TestGet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fsys      fs.FS
		slug      string
		want      string
		wantErr   error
		errText   string
		wantEvent bool
	}{
		{name: "whole markdown", fsys: sample, slug: "deploy-production",
			want: "---\ntitle: Deploy to production\ntrigger: deploy, release to prod\n---\n\n# Deploy\n\n1. Tag.\n", wantEvent: true},
		{name: "unknown", fsys: sample, slug: "nope", wantErr: ErrUnknownRunbook,
			errText: `unknown runbook "nope" (available: deploy-production, rotate-api-keys)`},
		{name: "unknown, none at all", fsys: fstest.MapFS{}, slug: "nope", wantErr: ErrUnknownRunbook,
			errText: `unknown runbook "nope" (no runbooks yet)`},
		{name: "parent escape", fsys: sample, slug: "../x", wantErr: ErrInvalidSlug,
			errText: `invalid runbook slug "../x": use lowercase letters, digits and dashes, starting with a letter or digit`},
		{name: "sub folder", fsys: sample, slug: "a/b", wantErr: ErrInvalidSlug},
		{name: "empty", fsys: sample, slug: "", wantErr: ErrInvalidSlug},
		{name: "upper case", fsys: sample, slug: "Deploy", wantErr: ErrInvalidSlug},
		{name: "leading dash", fsys: sample, slug: "-x", wantErr: ErrInvalidSlug},
		{name: "extension", fsys: sample, slug: "deploy-production.md", wantErr: ErrInvalidSlug},
		{name: "NUL", fsys: sample, slug: "a\x00b", wantErr: ErrInvalidSlug},
		{name: "trailing newline", fsys: sample, slug: "deploy-production\n", wantErr: ErrInvalidSlug},
		// A long slug is refused for its length, echoed once and cut, not
		// tried as a file name (ENAMETOOLONG with the slug thrice).
		{name: "5,000 characters", fsys: sample, slug: strings.Repeat("a", 5000), wantErr: ErrInvalidSlug,
			errText: `invalid runbook slug "aaaaaaaaaaaaaaaaaaaa"…: 5000 characters, at most 80`},
		{name: "81 characters", fsys: sample, slug: strings.Repeat("b", 81), wantErr: ErrInvalidSlug,
			errText: `invalid runbook slug "bbbbbbbbbbbbbbbbbbbb"…: 81 characters, at most 80`},
		{name: "80 characters", fsys: sample, slug: strings.Repeat("c", 80), wantErr: ErrUnknownRunbook},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			counter := &openCounter{FS: tt.fsys}
			doc, err := Open(counter, Options{Events: rec}).Get(context.Background(), tt.slug)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Get(%q): err = %v, want %v", tt.slug, err, tt.wantErr)
				}
				if tt.errText != "" && err.Error() != tt.errText {
					t.Errorf("error text:\n got %s\nwant %s", err, tt.errText)
				}
				if errors.Is(err, ErrInvalidSlug) && len(counter.opens) > 0 {
					t.Errorf("invalid slug opened %v", counter.opens)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, doc.Text()); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
			var wantKinds []string
			if tt.wantEvent {
				wantKinds = []string{tokens.KindRunbookGet}
			}
			if diff := cmp.Diff(wantKinds, rec.kinds); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateClearsStaleTemps: runbook new removes the temp files killed
// writers left in .foundry/runbooks over an hour ago, which doctor reports
// until then, and keeps younger ones, which a live writer may own.
func TestCreateClearsStaleTemps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, ".foundry", "runbooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, fresh := time.Now().Add(-confined.StaleAge-time.Minute), time.Now().Add(-confined.StaleAge+time.Minute)
	files := map[string]time.Time{
		confined.TempPrefix + "a.md-1": old,
		confined.TempPrefix + "b.md-2": fresh,
	}
	for name, mtime := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(os.DirFS(root), Options{Root: root}).Create(context.Background(), NewRunbook{Slug: "new", Title: "T", Trigger: "x"}); err != nil {
		t.Fatal(err)
	}
	for name, mtime := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone, wantGone := os.IsNotExist(err), mtime.Equal(old); gone != wantGone {
			t.Errorf("%s: gone = %v, want %v", name, gone, wantGone)
		}
	}
}

func TestCreate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := Open(os.DirFS(root), Options{Root: root})
	ctx := context.Background()
	c, err := b.Create(ctx, NewRunbook{Slug: "deploy-production", Title: "Deploy: to production", Trigger: "deploy, release to prod"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Wrote .foundry/runbooks/deploy-production.md from the template.\nFill in its steps and commit it; runbook_list shows it to every agent.\n"; c.Text() != want {
		t.Errorf("Text:\n%s\nwant:\n%s", c.Text(), want)
	}
	// What was written lists back with the same title and trigger.
	l, err := b.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Runbook{{Slug: "deploy-production", Title: "Deploy: to production", Trigger: "deploy, release to prod", Path: ".foundry/runbooks/deploy-production.md"}}
	if diff := cmp.Diff(want, l.Runbooks); diff != "" {
		t.Errorf("List after Create (-want +got):\n%s", diff)
	}
	doc, err := b.Get(ctx, "deploy-production")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.Content, "---\ntitle: 'Deploy: to production'\ntrigger: deploy, release to prod\n---\n\n# Deploy: to production\n") ||
		c.Bytes != len(doc.Content) {
		t.Errorf("content:\n%s", doc.Content)
	}

	// Never overwrites.
	before := doc.Content
	_, err = b.Create(ctx, NewRunbook{Slug: "deploy-production", Title: "Other", Trigger: "deploy"})
	if !errors.Is(err, ErrExists) || err.Error() != "runbook already exists: .foundry/runbooks/deploy-production.md" {
		t.Errorf("second Create: err = %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, ".foundry", "runbooks", "deploy-production.md")); string(got) != before {
		t.Error("second Create changed the file")
	}

	bad := []struct {
		n       NewRunbook
		wantErr error
	}{
		{NewRunbook{Slug: "../x", Title: "T"}, ErrInvalidSlug},
		{NewRunbook{Slug: "a/b", Title: "T"}, ErrInvalidSlug},
		{NewRunbook{Slug: "", Title: "T"}, ErrInvalidSlug},
		{NewRunbook{Slug: strings.Repeat("a", 5000), Title: "T", Trigger: "x"}, ErrInvalidSlug},
		// Device names on Windows: created elsewhere, no Windows clone
		// could check the file out.
		{NewRunbook{Slug: "con", Title: "T", Trigger: "x"}, ErrInvalidSlug},
		{NewRunbook{Slug: "nul", Title: "T", Trigger: "x"}, ErrInvalidSlug},
		{NewRunbook{Slug: "com1", Title: "T", Trigger: "x"}, ErrInvalidSlug},
		{NewRunbook{Slug: "lpt9", Title: "T", Trigger: "x"}, ErrInvalidSlug},
		{NewRunbook{Slug: "ok", Title: " "}, ErrInvalidRunbook},
		{NewRunbook{Slug: "ok", Title: "a\nb"}, ErrInvalidRunbook},
		{NewRunbook{Slug: "ok", Title: "T", Trigger: "x\ry"}, ErrInvalidRunbook},
		{NewRunbook{Slug: "ok", Title: strings.Repeat("t", 81)}, ErrInvalidRunbook},
		{NewRunbook{Slug: "ok", Title: "A runbook without a trigger"}, ErrInvalidRunbook},
		{NewRunbook{Slug: "ok", Title: "T", Trigger: "  "}, ErrInvalidRunbook},
		{NewRunbook{Slug: "ok", Title: "Deploy caf\xe9"}, ErrInvalidRunbook},
		{NewRunbook{Slug: "ok", Title: "T", Trigger: "x\xff"}, ErrInvalidRunbook},
	}
	for _, tt := range bad {
		if _, err := b.Create(ctx, tt.n); !errors.Is(err, tt.wantErr) {
			t.Errorf("Create(%+v): err = %v, want %v", tt.n, err, tt.wantErr)
		}
	}
	es, _ := os.ReadDir(filepath.Join(root, ".foundry", "runbooks"))
	if len(es) != 1 {
		t.Errorf("runbooks folder holds %d entries after refused creates, want 1", len(es))
	}
	if _, err := os.Stat(filepath.Join(root, ".foundry", "x.md")); err == nil {
		t.Error("../x escaped the runbooks folder")
	}

	// Without a root (a revision), Create refuses.
	if _, err := Open(os.DirFS(root), Options{}).Create(ctx, NewRunbook{Slug: "new", Title: "T", Trigger: "x"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only Create: err = %v, want ErrReadOnly", err)
	}
}

func FuzzParseFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: Deploy\ntrigger: deploy\n---\nbody\n",
		"---\ntitle: [a\n---\n",
		"---\r\ntitle: x\r\n---",
		"---\n---\n",
		"---\ntrigger: [a, {b: c}]\ntitle: t\n---\n",
		"# no front matter\n",
		"\ufeff---\ntitle: bom\n---\n",
		"---\ntitle: &a x\nother: *a\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := parseFrontMatter(data)
		if err == nil && fm.Title == "" {
			t.Errorf("no error and no title for %q", data)
		}
		for _, s := range []string{fm.Title, fm.Trigger} {
			if strings.ContainsAny(s, "\r\n") {
				t.Errorf("value %q breaks the list's shape", s)
			}
		}
	})
}

func TestCreateRefusesSymlinkedFolder(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, filepath.FromSlash(Dir))); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := Open(os.DirFS(root), Options{Root: root}).Create(context.Background(), NewRunbook{Slug: "deploy", Title: "Deploy to production", Trigger: "deploy"})
	if !errors.Is(err, ErrSymlink) {
		t.Errorf("Create error = %v, want %v", err, ErrSymlink)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Errorf("Create left %d entries outside the project", len(es))
	}
}

// A runbook file that cannot be read is listed with a warning; the others
// are still listed.
func TestListUnreadableFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(Dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "deploy.md"), []byte("---\ntitle: Deploy to production\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "gone.md"), filepath.Join(dir, "broken.md")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	l, err := Open(os.DirFS(root), Options{}).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := "- **broken** — (no title)\n  warning: cannot be read: no such file or directory\n" +
		"- **deploy** — Deploy to production\n"
	if diff := cmp.Diff(want, l.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

// TestWindowsDevice: only the device names themselves are refused, not
// slugs that begin with one.
func TestWindowsDevice(t *testing.T) {
	for slug, want := range map[string]bool{
		"con": true, "prn": true, "aux": true, "nul": true, "com1": true, "lpt9": true,
		"com0": false, "com10": false, "console": false, "nul-check": false, "auxiliary": false, "lpt": false, "deploy": false,
	} {
		if got := confined.WindowsDevice(slug); got != want {
			t.Errorf("WindowsDevice(%q) = %v, want %v", slug, got, want)
		}
	}
}
