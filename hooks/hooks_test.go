package hooks_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestMain makes every git command the package runs hermetic: no system or
// user config (a user's core.hooksPath would move the hooks).
func TestMain(m *testing.M) {
	for k, v := range map[string]string{"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstallPreCommitLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	hook := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
	opts := hooks.Options{Executable: "/opt/foundry/bin/foundry"}

	steps := []struct {
		name       string
		do         func() (hooks.Result, error)
		wantAction hooks.Action
		wantErr    error
	}{
		{"install", func() (hooks.Result, error) { return hooks.InstallPreCommit(ctx, r.Dir, opts) }, hooks.Installed, nil},
		{"install again", func() (hooks.Result, error) { return hooks.InstallPreCommit(ctx, r.Dir, opts) }, hooks.Unchanged, nil},
		{"new executable", func() (hooks.Result, error) {
			return hooks.InstallPreCommit(ctx, r.Dir, hooks.Options{Executable: "/usr/local/bin/foundry"})
		}, hooks.Updated, nil},
		{"uninstall", func() (hooks.Result, error) { return hooks.UninstallPreCommit(ctx, r.Dir) }, hooks.Removed, nil},
		{"uninstall again", func() (hooks.Result, error) { return hooks.UninstallPreCommit(ctx, r.Dir) }, hooks.Absent, nil},
	}
	for _, s := range steps {
		res, err := s.do()
		if !errors.Is(err, s.wantErr) {
			t.Fatalf("%s: error = %v, want %v", s.name, err, s.wantErr)
		}
		if res.Action != s.wantAction || (err == nil && res.Path != hook) {
			t.Fatalf("%s: result = %+v, want action %s at %s", s.name, res, s.wantAction, hook)
		}
	}
	if _, err := os.Stat(hook); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("hook still present after uninstall: %v", err)
	}
}

func TestInstallPreCommitChainsForeignHook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	const foreign = "#!/bin/sh\necho lint\n"
	r.Write(".git/hooks/pre-commit", foreign)
	hook := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
	if err := os.Chmod(hook, 0o751); err != nil {
		t.Fatal(err)
	}

	if res, err := hooks.UninstallPreCommit(ctx, r.Dir); err != nil || res.Action != hooks.Foreign {
		t.Fatalf("uninstall of a foreign hook: %+v, %v; want it left in place as foreign", res, err)
	}
	if got := readFile(t, hook); got != foreign {
		t.Fatalf("uninstall touched the foreign hook: %q", got)
	}

	res, err := hooks.InstallPreCommit(ctx, r.Dir, hooks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := hooks.Result{Hook: hooks.PreCommit, Action: hooks.Chained, Path: hook, Backup: hook + ".pre-foundry", Projects: []string{r.Dir}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Fatalf("install over a foreign hook (-want +got):\n%s", diff)
	}
	if got := readFile(t, hook+".pre-foundry"); got != foreign {
		t.Fatalf("chained hook = %q, want the foreign hook", got)
	}
	if script := readFile(t, hook); !hooks.IsFoundryHook([]byte(script)) || !strings.Contains(script, `foundry_chained="${0%/*}/pre-commit.pre-foundry"`) {
		t.Fatalf("install did not write foundry's chaining hook:\n%s", script)
	}
	if res, err := hooks.InstallPreCommit(ctx, r.Dir, hooks.Options{}); err != nil || res.Action != hooks.Unchanged {
		t.Fatalf("second install: %+v, %v", res, err)
	}

	res, err = hooks.UninstallPreCommit(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != hooks.Restored || readFile(t, hook) != foreign {
		t.Fatalf("uninstall: %+v, hook %q; want the foreign hook restored", res, readFile(t, hook))
	}
	if fi, err := os.Stat(hook); err != nil || fi.Mode().Perm() != 0o751 {
		t.Fatalf("restored hook mode: %v, %v; want 0751", fi.Mode(), err)
	}
	if _, err := os.Stat(hook + ".pre-foundry"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("chained copy left behind: %v", err)
	}

	// A taken chain slot fails the install, and then nothing changes: not
	// the hook, not the merge driver.
	r.Write(".git/hooks/pre-commit.pre-foundry", "#!/bin/sh\nexit 0\n")
	if _, err := hooks.Install(ctx, r.Dir, []string{hooks.MergeIndex, hooks.PreCommit}, hooks.Options{}); err == nil {
		t.Fatal("install with the chain slot taken succeeded")
	}
	if got := readFile(t, hook); got != foreign {
		t.Fatalf("failed install changed the hook: %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".gitattributes")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("failed install wrote .gitattributes: %v", err)
	}
	if out, err := exec.Command("git", "-C", r.Dir, "config", "--local", "--get-regexp", "^merge\\.").CombinedOutput(); err == nil {
		t.Fatalf("failed install registered the merge driver:\n%s", out)
	}
}

// TestInstallPreMergeCommit: installing the pre-commit hook writes the
// pre-merge-commit hook too, checking the same projects, those an older
// install put in the pre-commit hook alone included; a foreign
// pre-merge-commit hook is chained, and one left at uninstall (Foundry
// never wrote one there) is left alone, as foreign, without an error.
func TestInstallPreMergeCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	for _, p := range []string{"api", "web"} {
		r.Write(p+"/.foundry/config.yaml", "")
	}
	hooksDir := filepath.Join(r.Dir, ".git", "hooks")
	// An older foundry's install for api: a pre-commit hook alone.
	r.Write(".git/hooks/pre-commit", string(hooks.Script(hooks.PreCommit, []string{"api"}, "")))
	const foreign = "#!/bin/sh\necho merge-lint\n"
	r.Write(".git/hooks/pre-merge-commit", foreign)

	res, err := hooks.Install(ctx, filepath.Join(r.Dir, "web"), []string{hooks.PreCommit}, hooks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	both := []string{filepath.Join(r.Dir, "api"), filepath.Join(r.Dir, "web")}
	want := []hooks.Result{
		{Hook: hooks.PreCommit, Action: hooks.Added, Path: filepath.Join(hooksDir, "pre-commit"), Projects: both},
		{Hook: hooks.PreMergeCommit, Action: hooks.Chained, Path: filepath.Join(hooksDir, "pre-merge-commit"),
			Backup: filepath.Join(hooksDir, "pre-merge-commit.pre-foundry"), Projects: both},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Fatalf("install (-want +got):\n%s", diff)
	}
	script := readFile(t, filepath.Join(hooksDir, "pre-merge-commit"))
	if script != string(hooks.Script(hooks.PreMergeCommit, []string{"api", "web"}, "")) ||
		!strings.Contains(script, `foundry_chained="${0%/*}/pre-merge-commit.pre-foundry"`) ||
		!strings.Contains(script, `"$foundry_bin" -C "$1" hook pre-commit --merge`) {
		t.Fatalf("pre-merge-commit hook:\n%s", script)
	}
	if got := readFile(t, filepath.Join(hooksDir, "pre-merge-commit.pre-foundry")); got != foreign {
		t.Fatalf("chained hook = %q, want the foreign one", got)
	}

	// Uninstalled for both projects: the foreign hook is back.
	for _, p := range []string{"api", "web"} {
		if _, err := hooks.Uninstall(ctx, filepath.Join(r.Dir, p), []string{hooks.PreCommit}); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, filepath.Join(hooksDir, "pre-merge-commit")); got != foreign {
		t.Fatalf("after uninstall pre-merge-commit = %q, want the foreign one", got)
	}

	// Foundry's pre-commit hook with a foreign pre-merge-commit hook beside
	// it, as an older install leaves them: uninstall removes the one and
	// leaves the other.
	r.Write(".git/hooks/pre-commit", string(hooks.Script(hooks.PreCommit, []string{"api"}, "")))
	res, err = hooks.Uninstall(ctx, filepath.Join(r.Dir, "api"), []string{hooks.PreCommit})
	if err != nil {
		t.Fatal(err)
	}
	want = []hooks.Result{
		{Hook: hooks.PreCommit, Action: hooks.Removed, Path: filepath.Join(hooksDir, "pre-commit")},
		{Hook: hooks.PreMergeCommit, Action: hooks.Foreign, Path: filepath.Join(hooksDir, "pre-merge-commit")},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Fatalf("uninstall (-want +got):\n%s", diff)
	}
	if got := readFile(t, filepath.Join(hooksDir, "pre-merge-commit")); got != foreign {
		t.Fatalf("uninstall touched the foreign pre-merge-commit hook: %q", got)
	}
}

func TestInstallPreCommitHooksPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	abs := filepath.Join(t.TempDir(), "shared hooks")
	tests := []struct {
		name      string
		hooksPath string // core.hooksPath; "" unset
		sub       string // project folder inside the repository
		wantDir   func(repo string) string
		wantC     string // the -C argument in the script
	}{
		{"default", "", "", func(repo string) string { return filepath.Join(repo, ".git", "hooks") }, "'.'"},
		{"relative hooksPath", ".githooks", "", func(repo string) string { return filepath.Join(repo, ".githooks") }, "'.'"},
		{"absolute hooksPath, created", abs, "", func(string) string { return abs }, "'.'"},
		{"project in a sub-folder", ".githooks", "examples/demo", func(repo string) string { return filepath.Join(repo, ".githooks") }, "'examples/demo'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			if tt.hooksPath != "" {
				r.Git("config", "core.hooksPath", tt.hooksPath)
			}
			root := filepath.Join(r.Dir, filepath.FromSlash(tt.sub))
			if err := os.MkdirAll(filepath.Join(root, ".foundry"), 0o755); err != nil {
				t.Fatal(err)
			}
			res, err := hooks.InstallPreCommit(ctx, root, hooks.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(tt.wantDir(r.Dir), "pre-commit")
			if res.Path != want {
				t.Fatalf("hook path = %s, want %s", res.Path, want)
			}
			script := readFile(t, want)
			if !strings.Contains(script, "\nfoundry_check "+tt.wantC+" || foundry_status=$?\n") {
				t.Fatalf("script does not run validate in %s:\n%s", tt.wantC, script)
			}
		})
	}
}

func TestInstallOutsideRepository(t *testing.T) {
	t.Parallel()
	testenv.Git(t)
	_, err := hooks.InstallPreCommit(context.Background(), t.TempDir(), hooks.Options{})
	if !errors.Is(err, git.ErrNotRepository) {
		t.Fatalf("error = %v, want git.ErrNotRepository", err)
	}
}

// TestInstallUnsupportedRepository: where Foundry cannot read the
// repository (objects named by SHA-256), the pre-commit hook, which reads
// the index, is refused rather than installed to refuse every commit; the
// merge driver, which reads the files git gives it, is registered.
func TestInstallUnsupportedRepository(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	if _, err := r.TryGit("init", "-q", "--object-format=sha256", "sha256"); err != nil {
		testenv.Missing(t, "a git that makes SHA-256 repositories (2.29 or later)", err)
	}
	dir := filepath.Join(r.Dir, "sha256")
	_, err := hooks.InstallPreCommit(context.Background(), dir, hooks.Options{})
	if !errors.Is(err, git.ErrUnsupportedFormat) || !strings.Contains(err.Error(), "would refuse every commit") {
		t.Fatalf("error = %v, want ErrUnsupportedFormat saying why", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pre-commit hook: %v, want none", err)
	}
	if _, err := hooks.Install(context.Background(), dir, []string{hooks.MergeIndex}, hooks.Options{}); err != nil {
		t.Errorf("merge driver: %v", err)
	}
}

// TestPreCommitScriptFindsFoundry runs the hook script with stand-in foundry
// binaries: PATH first, then the recorded path, then a blocking message.
//
// The stand-ins are written before the parallel tests start: an executable
// written while another goroutine forks can fail to run with "text file
// busy" (the child inherits the open file until it execs).
//
//nolint:paralleltest // see above
func TestPreCommitScriptFindsFoundry(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hook is a POSIX shell script; git for Windows runs it with its own sh")
	}
	sh := testenv.Exec(t, "sh")
	dir := t.TempDir()
	fake := func(path, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\necho \"" + name + " $*\"\n"
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	onPath := filepath.Join(dir, "path")
	fake(filepath.Join(onPath, "foundry"), "on-path")
	recorded := filepath.Join(dir, "recorded dir", "foundry")
	fake(recorded, "recorded")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	// Git runs the hook from the working tree root, which holds the project.
	top := filepath.Join(dir, "top")
	if err := os.MkdirAll(filepath.Join(top, "examples", "it's", ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		hook       string
		path       string
		executable string
		wantOut    string
		wantErr    string
		wantFail   bool
		noProject  bool
	}{
		{"on PATH", hooks.PreCommit, onPath, recorded, "on-path -C examples/it's hook pre-commit\n", "", false, false},
		{"merge, on PATH", hooks.PreMergeCommit, onPath, recorded, "on-path -C examples/it's hook pre-commit --merge\n", "", false, false},
		{"merge, neither", hooks.PreMergeCommit, empty, "", "",
			"foundry pre-merge-commit hook: foundry is not on PATH, nor at (none recorded) where it was when the hook was installed.\n" +
				"Install it with 'CGO_ENABLED=0 go install -tags urfave_cli_no_docs github.com/foundryhq/foundry/cmd/foundry@latest' and make sure it is on PATH,\n" +
				"or skip this check once with 'git merge --no-verify'.\n", true, false},
		{"recorded", hooks.PreCommit, empty, recorded, "recorded -C examples/it's hook pre-commit\n", "", false, false},
		{"neither", hooks.PreCommit, empty, filepath.Join(dir, "gone", "foundry"), "",
			"foundry pre-commit hook: foundry is not on PATH, nor at " + filepath.Join(dir, "gone", "foundry") + " where it was when the hook was installed.\n" +
				"Install it with 'CGO_ENABLED=0 go install -tags urfave_cli_no_docs github.com/foundryhq/foundry/cmd/foundry@latest' and make sure it is on PATH,\n" +
				"or skip this check once with 'git commit --no-verify'.\n", true, false},
		{"none recorded", hooks.PreCommit, empty, "", "",
			"foundry pre-commit hook: foundry is not on PATH, nor at (none recorded) where it was when the hook was installed.\n" +
				"Install it with 'CGO_ENABLED=0 go install -tags urfave_cli_no_docs github.com/foundryhq/foundry/cmd/foundry@latest' and make sure it is on PATH,\n" +
				"or skip this check once with 'git commit --no-verify'.\n", true, false},
		// A shared core.hooksPath runs the hook in repositories without
		// the project: nothing to check, whether foundry is there or not.
		{"no project", hooks.PreCommit, onPath, recorded, "", "", false, true},
		{"no project, no foundry", hooks.PreCommit, empty, "", "", "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hook := filepath.Join(t.TempDir(), tt.hook)
			if err := os.WriteFile(hook, hooks.Script(tt.hook, []string{"examples/it's"}, tt.executable), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(sh, hook)
			cmd.Env = []string{"PATH=" + tt.path}
			cmd.Dir = top
			if tt.noProject {
				cmd.Dir = empty
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if (err != nil) != tt.wantFail {
				t.Fatalf("run hook: %v, want failure %v; stderr %q", err, tt.wantFail, stderr.String())
			}
			if stdout.String() != tt.wantOut || stderr.String() != tt.wantErr {
				t.Fatalf("stdout %q, stderr %q; want %q, %q", stdout.String(), stderr.String(), tt.wantOut, tt.wantErr)
			}
		})
	}
}

func TestRegisterMergeDriver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write(".gitattributes", "*.png binary")
	attrs := filepath.Join(r.Dir, ".gitattributes")

	res, err := hooks.RegisterMergeDriver(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != hooks.Updated || res.Path != attrs {
		t.Fatalf("register: %+v", res)
	}
	if got, want := readFile(t, attrs), "*.png binary\n.foundry/memory/INDEX.md merge=foundry-index\n"; got != want {
		t.Fatalf(".gitattributes = %q, want %q", got, want)
	}
	if got := r.Git("config", "--local", "merge.foundry-index.driver"); got != "foundry hook merge-index %O %A %B %P" {
		t.Fatalf("driver = %q", got)
	}
	if got := r.Git("check-attr", "merge", ".foundry/memory/INDEX.md"); got != ".foundry/memory/INDEX.md: merge: foundry-index" {
		t.Fatalf("check-attr = %q", got)
	}

	if res, err := hooks.RegisterMergeDriver(ctx, r.Dir); err != nil || res.Action != hooks.Unchanged {
		t.Fatalf("register again: %+v, %v; want unchanged", res, err)
	}

	if res, err := hooks.UnregisterMergeDriver(ctx, r.Dir); err != nil || res.Action != hooks.Removed {
		t.Fatalf("unregister: %+v, %v", res, err)
	}
	if got := readFile(t, attrs); got != "*.png binary" {
		t.Fatalf(".gitattributes after unregister = %q, want the user's file exactly, without the final newline install added", got)
	}
	if _, err := r.TryGit("config", "--local", "merge.foundry-index.driver"); err == nil {
		t.Fatal("driver still configured after unregister")
	}
	if res, err := hooks.UnregisterMergeDriver(ctx, r.Dir); err != nil || res.Action != hooks.Absent {
		t.Fatalf("unregister again: %+v, %v; want absent", res, err)
	}
}

// TestRegisterMergeDriverKeepsTheFile: the line is added and taken out in
// the file's own line ends, and the file keeps its mode, so that an
// install and an uninstall leave the user's .gitattributes as it was.
func TestRegisterMergeDriverKeepsTheFile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, before, installed string
		mode                    os.FileMode
	}{
		{"crlf", "*.png binary\r\n*.jpg binary\r\n", "*.png binary\r\n*.jpg binary\r\n.foundry/memory/INDEX.md merge=foundry-index\r\n", 0o644},
		{"crlf, no final line end", "*.png binary\r\n*.jpg binary", "*.png binary\r\n*.jpg binary\r\n.foundry/memory/INDEX.md merge=foundry-index\r\n", 0o644},
		{"lf, private", "*.png binary\n", "*.png binary\n.foundry/memory/INDEX.md merge=foundry-index\n", 0o600},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := gittest.New(t)
			r.Write(".gitattributes", tt.before)
			attrs := filepath.Join(r.Dir, ".gitattributes")
			if err := os.Chmod(attrs, tt.mode); err != nil {
				t.Fatal(err)
			}
			for _, step := range []struct {
				name string
				run  func(context.Context, string) (hooks.Result, error)
				want string
			}{{"installed", hooks.RegisterMergeDriver, tt.installed}, {"uninstalled", hooks.UnregisterMergeDriver, tt.before}} {
				if _, err := step.run(ctx, r.Dir); err != nil {
					t.Fatal(err)
				}
				if got := readFile(t, attrs); got != step.want {
					t.Errorf("%s .gitattributes = %q, want %q", step.name, got, step.want)
				}
				if fi, err := os.Stat(attrs); err != nil {
					t.Error(err)
				} else if fi.Mode().Perm() != tt.mode {
					t.Errorf("%s .gitattributes mode = %v, want %v", step.name, fi.Mode().Perm(), tt.mode)
				}
			}
		})
	}
}

func TestRegisterMergeDriverFreshFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	res, err := hooks.RegisterMergeDriver(ctx, r.Dir)
	if err != nil || res.Action != hooks.Installed {
		t.Fatalf("register: %+v, %v; want installed", res, err)
	}
	if _, err := hooks.UnregisterMergeDriver(ctx, r.Dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".gitattributes")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".gitattributes that held only our line was not removed: %v", err)
	}
}

func TestMergeIndexFiles(t *testing.T) {
	t.Parallel()
	mk := func(fs ...facts.Fact) []byte { return facts.BuildIndex(fs, "2026-01-10", 0).Content }
	a := facts.Fact{ID: "fact-0001", Type: facts.Decision, Confidence: facts.High, Created: "2026-01-01", Title: "Persistence uses Flyway", Scope: "project"}
	b := facts.Fact{ID: "fact-0002", Type: facts.Constraint, Confidence: facts.Medium, Created: "2026-01-02", Title: "Tokens expire after one hour", Scope: "project"}
	c := facts.Fact{ID: "fact-0003", Type: facts.Convention, Confidence: facts.Low, Created: "2026-01-03", Title: "Branches are named for the issue", Scope: "project"}
	d := facts.Fact{ID: "fact-0004", Type: facts.Domain, Confidence: facts.Medium, Created: "2026-01-04", Title: "Both branches learn the same fact", Scope: "project"}
	b2 := b // another branch's fact-0002
	b2.Title = "Invoices are sent monthly"
	write := func(t *testing.T, dir, name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name               string
		base, ours, theirs []byte
		want               []byte
	}{
		{name: "each side adds a fact", base: mk(a), ours: mk(a, b), theirs: mk(a, c), want: mk(a, b, c)},
		// The fact is one file after the merge: its line is one fact.
		{name: "both sides add the same fact", base: mk(a), ours: mk(a, b, d), theirs: mk(a, c, d), want: mk(a, b, c, d)},
		// Two facts of one id, which doctor --fix renumbers.
		{name: "both sides add one id with different text", base: mk(a), ours: mk(a, b), theirs: mk(a, b2), want: mk(a, b, b2)},
		{name: "one side removes a fact the other keeps", base: mk(a, b), ours: mk(a, c), theirs: mk(a, b, d), want: mk(a, c, d)},
		{name: "both sides remove the same fact", base: mk(a, b), ours: mk(a, c), theirs: mk(a, d), want: mk(a, c, d)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ours := write(t, dir, "A", tt.ours)
			if err := hooks.MergeIndexFiles(dir, write(t, dir, "O", tt.base), ours, write(t, dir, "B", tt.theirs), 0); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(tt.want), readFile(t, ours)); diff != "" {
				t.Errorf("merged index (-want +got):\n%s", diff)
			}
		})
	}

	dir := t.TempDir()
	base, ours := write(t, dir, "O", mk(a)), write(t, dir, "A", mk(a, b))
	bad := write(t, dir, "bad", []byte("<<<<<<< ours\n"))
	before := readFile(t, ours)
	if err := hooks.MergeIndexFiles(dir, base, ours, bad, 0); !errors.Is(err, facts.ErrBadIndex) {
		t.Fatalf("merge with conflict markers: error = %v, want ErrBadIndex", err)
	}
	if readFile(t, ours) != before {
		t.Fatal("a failed merge changed ours")
	}

	// A version larger than any file Foundry reads (a hostile history) is
	// refused before it is read whole: git records a conflict.
	huge := write(t, dir, "huge", bytes.Repeat([]byte("- fact-0001 · decision · high · 2026-01-01 · x\n"), 9<<20/48))
	if err := hooks.MergeIndexFiles(dir, base, ours, huge, 0); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("merge with a 9 MiB version: error = %v, want it refused over the limit", err)
	}
	if readFile(t, ours) != before {
		t.Fatal("a refused merge changed ours")
	}
}

// TestScriptInstallHint holds the install command a hook names, when it
// finds no foundry to run, to the one README.md's Install section gives,
// so that the two cannot drift apart.
func TestScriptInstallHint(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Install\n")
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, inBlock := strings.Cut(section, "```sh\n")
	install, _, _ := strings.Cut(block, "\n")
	if !ok || !inBlock || install == "" {
		t.Fatal("README.md has no ## Install section with a sh block")
	}
	for _, hook := range []string{hooks.PreCommit, hooks.PreMergeCommit} {
		t.Run(hook, func(t *testing.T) {
			t.Parallel()
			script := string(hooks.Script(hook, []string{"."}, ""))
			if want := "Install it with '" + install + "' and make sure it is on PATH"; !strings.Contains(script, want) {
				t.Errorf("the %s hook does not say %q, the install line of README.md:\n%s", hook, want, script)
			}
		})
	}
}

// TestMergeIndexFilesUnreadable: a version that cannot be read is named as
// given, relative to dir, in validate's words, and ours is left as it was.
func TestMergeIndexFilesUnreadable(t *testing.T) {
	t.Parallel()
	index := facts.BuildIndex(nil, "2026-01-10", 0).Content
	tests := []struct {
		name               string
		base, ours, theirs string
		want               error
		wantMsg            string
	}{
		{name: "base missing", base: "gone.md", ours: "ours.md", theirs: "theirs.md",
			want: artifacts.ErrNotFound, wantMsg: "merge memory index: gone.md: no such file"},
		{name: "theirs in a folder that is not there", base: "base.md", ours: "ours.md", theirs: "nowhere/theirs.md",
			want: artifacts.ErrNotFound, wantMsg: "merge memory index: nowhere/theirs.md: no such file"},
		{name: "ours a folder", base: "base.md", ours: "sub", theirs: "theirs.md",
			want: artifacts.ErrFolder, wantMsg: "merge memory index: sub: is a folder, not a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, name := range []string{"base.md", "ours.md", "theirs.md", "sub/x"} {
				testenv.WriteFile(t, dir, name, string(index))
			}
			err := hooks.MergeIndexFiles(dir, tt.base, tt.ours, tt.theirs, 0)
			if !errors.Is(err, tt.want) || err.Error() != tt.wantMsg {
				t.Fatalf("error = %v, want %q (%v)", err, tt.wantMsg, tt.want)
			}
			if got := readFile(t, filepath.Join(dir, "ours.md")); got != string(index) {
				t.Errorf("a failed merge changed ours:\n%s", got)
			}
		})
	}
}

// TestChainRace checks that an install planned before another process
// changed the hooks never loses a hook: when the chained name was taken in
// between (another install chained the user's hook first, or anything else
// appeared there), the install fails naming it, and every hook file is as
// the other process left it.
func TestChainRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const user = "#!/bin/sh\necho user hook\n"
	opts := hooks.Options{Executable: "/opt/foundry/bin/foundry"}
	tests := []struct {
		name    string
		between func(t *testing.T, dir string)
		chained string // the content the chained name must keep
	}{
		{"another install chained it first", func(t *testing.T, dir string) {
			if _, err := hooks.InstallPreCommit(ctx, dir, opts); err != nil {
				t.Fatal(err)
			}
		}, user},
		{"the chained name appeared", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit.pre-foundry"), []byte("other\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "other\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			hook := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
			if err := os.WriteFile(hook, []byte(user), 0o755); err != nil {
				t.Fatal(err)
			}
			var after string
			err := hooks.InstallPreCommitAfter(ctx, r.Dir, opts, func() {
				tt.between(t, r.Dir)
				after = readFile(t, hook)
			})
			if err == nil || !strings.Contains(err.Error(), "cannot chain the hook there: "+hook+".pre-foundry already exists") {
				t.Errorf("install planned before the change: %v, want it refused", err)
			}
			if got := readFile(t, hook+".pre-foundry"); got != tt.chained {
				t.Errorf("chained hook = %q, want %q", got, tt.chained)
			}
			if got := readFile(t, hook); got != after {
				t.Errorf("pre-commit = %q, want it as the other process left it, %q", got, after)
			}
		})
	}
}

// TestUninstallAfterHookReplaced: foundry's chaining hook replaced by
// another tool since the install is left in place, and so is the hook
// foundry had chained, which the result names.
func TestUninstallAfterHookReplaced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write(".git/hooks/pre-commit", "#!/bin/sh\necho lint\n")
	if _, err := hooks.InstallPreCommit(ctx, r.Dir, hooks.Options{}); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
	const other = "#!/bin/sh\necho another tool\n"
	r.Write(".git/hooks/pre-commit", other)
	res, err := hooks.UninstallPreCommit(ctx, r.Dir)
	want := hooks.Result{Hook: hooks.PreCommit, Action: hooks.Foreign, Path: hook, Backup: hook + ".pre-foundry"}
	if diff := cmp.Diff(want, res); err != nil || diff != "" {
		t.Errorf("uninstall (-want +got):\n%s\nerror %v", diff, err)
	}
	if readFile(t, hook) != other || readFile(t, hook+".pre-foundry") != "#!/bin/sh\necho lint\n" {
		t.Errorf("uninstall touched the hooks")
	}
}
