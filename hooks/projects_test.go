package hooks_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/internal/testenv"
)

// legacyHook is the pre-commit hook as foundry wrote it when a hook checked
// one project, for the project at examples/it's.
const legacyHook = `#!/bin/sh
# foundry-hook: pre-commit
# Written by ` + "`foundry hook install pre-commit`" + `: checks what the
# commit changes under .foundry/ (facts, runbooks, artifacts, schemas,
# config, conflict markers).
foundry_chained="${0%/*}/pre-commit.pre-foundry"
if [ -x "$foundry_chained" ]; then
	"$foundry_chained" "$@" || exit $?
fi
[ -d 'examples/it'\''s/.foundry' ] || exit 0
foundry_recorded='/opt/foundry'
if command -v foundry >/dev/null 2>&1; then
	foundry_bin=foundry
elif [ -n "$foundry_recorded" ] && [ -x "$foundry_recorded" ]; then
	foundry_bin=$foundry_recorded
else
	exit 1
fi
exec "$foundry_bin" -C 'examples/it'\''s' hook pre-commit
`

// TestHookProjects reads back the projects a hook checks: what
// PreCommitScript wrote (sorted, each once, "" as "."), or the single
// project of a hook written before hooks checked several.
func TestHookProjects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    []string
		wantOK  bool
	}{
		{"one", string(hooks.Script(hooks.PreCommit, []string{"svc/api"}, "/opt/foundry")), []string{"svc/api"}, true},
		{"sorted, each once", string(hooks.Script(hooks.PreCommit, []string{"web", "", "api", "web", "."}, "")), []string{".", "api", "web"}, true},
		{"quotes and newlines", string(hooks.Script(hooks.PreCommit, []string{"it's", "a\nb", `c\'d`}, "")), []string{"a\nb", `c\'d`, "it's"}, true},
		{"CRLF", strings.ReplaceAll(string(hooks.Script(hooks.PreCommit, []string{"b", "a"}, "")), "\n", "\r\n"), []string{"a", "b"}, true},
		// A hook as written, LF line ends, keeps a name's own CRLF.
		{"a name holding CRLF", string(hooks.Script(hooks.PreCommit, []string{"a\r\nb"}, "")), []string{"a\r\nb"}, true},
		{"legacy", legacyHook, []string{"examples/it's"}, true},
		{"legacy at the top", strings.Replace(legacyHook, `-C 'examples/it'\''s'`, `-C '.'`, 1), []string{"."}, true},
		{"foundry's marker, no project", "#!/bin/sh\n" + hooks.Marker + "\nexit 0\n", nil, false},
		{"a check line cut short", "#!/bin/sh\n" + hooks.Marker + "\nfoundry_check 'a\n", nil, false},
		{"foreign", "#!/bin/sh\nfoundry_check 'a' || foundry_status=$?\n", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := hooks.HookProjects([]byte(tt.content))
			if ok != tt.wantOK || !slices.Equal(got, tt.want) {
				t.Fatalf("HookProjects = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestPreCommitScriptDeterministic: the same projects in any order, and
// repeated, give the same hook.
func TestPreCommitScriptDeterministic(t *testing.T) {
	t.Parallel()
	want := string(hooks.Script(hooks.PreCommit, []string{"api", "web"}, "/opt/foundry"))
	for _, projects := range [][]string{{"web", "api"}, {"api", "web", "api"}, {"web", "web", "api"}} {
		if got := string(hooks.Script(hooks.PreCommit, projects, "/opt/foundry")); got != want {
			t.Errorf("Script(%q) differs from PreCommitScript([api web]):\n%s", projects, cmp.Diff(want, got))
		}
	}
}

// TestInstallPreCommitProjects installs and uninstalls the hook for the
// projects of one repository in turn: each install adds its project to the
// hook, each uninstall takes out only its own, and the last one removes the
// hook. Each step sees the hook the previous ones left.
func TestInstallPreCommitProjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := hooks.Options{Executable: "/opt/foundry/bin/foundry"}
	type step struct {
		project   string // "" the top; install, or uninstall with remove
		remove    bool
		preHook   string // written as the hook first, when set
		want      hooks.Action
		wantHook  []string // the projects the hook file checks after, and Result.Projects; nil: no hook
		wantError string
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"two projects", []step{
			{project: "api", want: hooks.Installed, wantHook: []string{"api"}},
			{project: "web", want: hooks.Added, wantHook: []string{"api", "web"}},
			{project: "web", want: hooks.Unchanged, wantHook: []string{"api", "web"}},
			{project: "api", want: hooks.Unchanged, wantHook: []string{"api", "web"}},
			{project: "api", remove: true, want: hooks.Dropped, wantHook: []string{"web"}},
			{project: "api", remove: true, want: hooks.Absent, wantHook: []string{"web"}},
			{project: "web", remove: true, want: hooks.Removed},
			{project: "web", remove: true, want: hooks.Absent},
		}},
		{"the top and a sub-folder", []step{
			{project: "web", want: hooks.Installed, wantHook: []string{"web"}},
			{project: "", want: hooks.Added, wantHook: []string{".", "web"}},
			{project: "web", remove: true, want: hooks.Dropped, wantHook: []string{"."}},
			{project: "", remove: true, want: hooks.Removed},
		}},
		{"a hook of the single-project format", []step{
			{project: "web", preHook: legacyHook, want: hooks.Added, wantHook: []string{"examples/it's", "web"}},
			{project: "examples/it's", remove: true, want: hooks.Dropped, wantHook: []string{"web"}},
		}},
		{"its own project, in the single-project format", []step{
			{project: "examples/it's", preHook: legacyHook, want: hooks.Updated, wantHook: []string{"examples/it's"}},
		}},
		{"uninstall a single-project format hook", []step{
			{project: "examples/it's", remove: true, preHook: legacyHook, want: hooks.Removed},
		}},
		{"foundry's marker, no project", []step{
			{project: "web", preHook: "#!/bin/sh\n" + hooks.Marker + "\nexit 0\n",
				wantError: "foundry's hook there names no project this foundry can read; remove it with foundry hook uninstall pre-commit, then install again"},
			{project: "web", remove: true, want: hooks.Removed},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			hook := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
			for i, s := range tt.steps {
				dir := filepath.Join(r.Dir, filepath.FromSlash(s.project))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if s.preHook != "" {
					if err := os.WriteFile(hook, []byte(s.preHook), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				before, _ := os.ReadFile(hook)
				var res hooks.Result
				var err error
				if s.remove {
					res, err = hooks.UninstallPreCommit(ctx, dir)
				} else {
					res, err = hooks.InstallPreCommit(ctx, dir, opts)
				}
				if s.wantError != "" {
					if err == nil || !strings.HasSuffix(err.Error(), s.wantError) {
						t.Fatalf("step %d: error = %v, want one ending %q", i, err, s.wantError)
					}
					if after, _ := os.ReadFile(hook); string(after) != string(before) {
						t.Fatalf("step %d: a failed install changed the hook", i)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if res.Action != s.want {
					t.Fatalf("step %d: action %s, want %s", i, res.Action, s.want)
				}
				var wantRoots []string
				for _, p := range s.wantHook {
					wantRoots = append(wantRoots, filepath.Join(r.Dir, filepath.FromSlash(p)))
				}
				if !slices.Equal(res.Projects, wantRoots) {
					t.Fatalf("step %d: projects %q, want %q", i, res.Projects, wantRoots)
				}
				content, err := os.ReadFile(hook)
				switch {
				case s.wantHook == nil && !errors.Is(err, os.ErrNotExist):
					t.Fatalf("step %d: hook still there (%v)", i, err)
				case s.wantHook == nil:
				case err != nil:
					t.Fatalf("step %d: %v", i, err)
				default:
					if want := string(hooks.Script(hooks.PreCommit, s.wantHook, opts.Executable)); string(content) != want {
						t.Fatalf("step %d: hook differs from Script(%q):\n%s", i, s.wantHook, cmp.Diff(want, string(content)))
					}
					if got, _ := hooks.HookProjects(content); !slices.Equal(got, s.wantHook) {
						t.Fatalf("step %d: hook checks %q, want %q", i, got, s.wantHook)
					}
				}
			}
		})
	}
}

// TestPreCommitScriptChecksEveryProject runs a hook of several projects
// with a stand-in foundry that fails for the project "bad": every project
// present is checked, in order, even after one fails, and the hook fails
// when any check does. A project not in this repository is skipped.
//
// The stand-in is written before the parallel tests start (see
// TestPreCommitScriptFindsFoundry).
//
//nolint:paralleltest // see above
func TestPreCommitScriptChecksEveryProject(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hook is a POSIX shell script; git for Windows runs it with its own sh")
	}
	sh := testenv.Exec(t, "sh")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\necho \"$*\"\ncase \"$2\" in *bad) exit 1;; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "foundry"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(dir, "top")
	for _, p := range []string{".", "api", "bad", "web"} {
		if err := os.MkdirAll(filepath.Join(top, p, ".foundry"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		projects []string
		wantOut  string
		wantFail bool
	}{
		{"all pass", []string{"web", "api", "."}, "-C . hook pre-commit\n-C api hook pre-commit\n-C web hook pre-commit\n", false},
		{"one fails", []string{"web", "bad", "api"}, "-C api hook pre-commit\n-C bad hook pre-commit\n-C web hook pre-commit\n", true},
		{"one missing", []string{"gone", "web"}, "-C web hook pre-commit\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hook := filepath.Join(t.TempDir(), "pre-commit")
			if err := os.WriteFile(hook, hooks.Script(hooks.PreCommit, tt.projects, ""), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(sh, hook)
			cmd.Env = []string{"PATH=" + bin}
			cmd.Dir = top
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if (err != nil) != tt.wantFail {
				t.Fatalf("run hook: %v, want failure %v; stderr %q", err, tt.wantFail, stderr.String())
			}
			if stdout.String() != tt.wantOut {
				t.Fatalf("stdout %q, want %q", stdout.String(), tt.wantOut)
			}
		})
	}
}

// FuzzHookProjects: any hook file is read without a panic, and the
// projects of a hook PreCommitScript wrote are read back as written,
// sorted, whatever their names (quotes, newlines, the hook's own lines).
func FuzzHookProjects(f *testing.F) {
	f.Add("services/api\x00services/web", "/usr/local/bin/foundry")
	f.Add(".\x00it's", "")
	f.Add("a\nfoundry_check 'b' || foundry_status=$?\x00c", "x'y")
	f.Add(legacyHook, "")
	f.Fuzz(func(t *testing.T, names, exe string) {
		hooks.HookProjects([]byte(names)) // arbitrary content: no panic
		var projects []string
		for _, p := range strings.Split(names, "\x00") {
			if p != "" && p != "." {
				projects = append(projects, p)
			}
		}
		if len(projects) == 0 {
			return
		}
		got, ok := hooks.HookProjects(hooks.Script(hooks.PreCommit, projects, exe))
		want := slices.Compact(slices.Sorted(slices.Values(projects)))
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("projects read back = %q, %v; want %q", got, ok, want)
		}
	})
}
