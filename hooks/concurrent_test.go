package hooks_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestConcurrentProjects installs and uninstalls the hooks of several
// projects of one repository at once, as `foundry hook install` run in
// each at the same moment: every project's change must survive in the
// shared pre-commit hook and in the merge driver's git config, none
// overwritten by another's read-plan-write, and no run may fail.
func TestConcurrentProjects(t *testing.T) {
	t.Parallel()
	const n = 8
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	tests := []struct {
		name      string
		hooksPath string   // core.hooksPath; "" unset
		names     []string // the hooks installed and uninstalled; nil for all
		before    []int    // projects installed one after the other first
		install   []int    // projects installed at once
		uninstall []int    // projects uninstalled at once, with those installed
		want      []int    // the projects left in the hook and the records
	}{
		{name: "install", install: all, want: all},
		{name: "install the pre-commit hook alone", names: []string{hooks.PreCommit}, install: all, want: all},
		{name: "install, hooks in the working tree", hooksPath: ".githooks", install: all, want: all},
		{name: "uninstall some", before: all, uninstall: all[:n/2], want: all[n/2:]},
		{name: "uninstall every one", before: all, uninstall: all},
		{name: "install and uninstall", before: all[:n/2], install: all[n/2:], uninstall: all[:n/2], want: all[n/2:]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := gittest.New(t)
			hooksDir := filepath.Join(r.Dir, ".git", "hooks")
			if tc.hooksPath != "" {
				r.Git("config", "core.hooksPath", tc.hooksPath)
				hooksDir = filepath.Join(r.Dir, tc.hooksPath)
			}
			opts := hooks.Options{Executable: "/opt/foundry/bin/foundry"}
			names := tc.names
			if names == nil {
				names = hooks.Names
			}
			driver := slices.Contains(names, hooks.MergeIndex)
			project := func(i int) string { return fmt.Sprintf("projects/p%d", i) }
			root := func(i int) string { return filepath.Join(r.Dir, "projects", fmt.Sprintf("p%d", i)) }
			for i := range n {
				if err := os.MkdirAll(filepath.Join(root(i), ".foundry"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, i := range tc.before {
				if _, err := hooks.Install(ctx, root(i), names, opts); err != nil {
					t.Fatalf("install %s: %v", project(i), err)
				}
			}

			start := make(chan struct{})
			var wg sync.WaitGroup
			run := func(i int, verb string, op func() error) {
				wg.Go(func() {
					<-start
					if err := op(); err != nil {
						t.Errorf("%s %s: %v", verb, project(i), err)
					}
				})
			}
			for _, i := range tc.install {
				run(i, "install", func() error { _, err := hooks.Install(ctx, root(i), names, opts); return err })
			}
			for _, i := range tc.uninstall {
				run(i, "uninstall", func() error { _, err := hooks.Uninstall(ctx, root(i), names); return err })
			}
			close(start)
			wg.Wait()

			var want []string
			for _, i := range tc.want {
				want = append(want, project(i))
			}
			slices.Sort(want)
			hook := filepath.Join(hooksDir, hooks.PreCommit)
			content, err := os.ReadFile(hook)
			switch {
			case len(want) == 0 && !errors.Is(err, os.ErrNotExist):
				t.Errorf("pre-commit hook: %v; want it removed with the last project:\n%s", err, content)
			case len(want) > 0 && err != nil:
				t.Errorf("pre-commit hook: %v", err)
			case len(want) > 0:
				got, ok := hooks.HookProjects(content)
				if diff := cmp.Diff(want, got); !ok || diff != "" {
					t.Errorf("projects in the pre-commit hook (-want +got):\n%s", diff)
				}
			}
			// Every project's .gitattributes was created by its install, so
			// the records list exactly the projects still installed.
			var wantDriven []string
			if driver {
				wantDriven = want
			}
			out, _ := r.TryGit("config", "--local", "--get-all", "merge.foundry-index.attributescreated")
			var created []string
			if out != "" {
				created = strings.Split(out, "\n")
			}
			slices.Sort(created)
			if diff := cmp.Diff(wantDriven, created); diff != "" {
				t.Errorf("projects recorded in the merge driver's config (-want +got):\n%s", diff)
			}
			_, err = r.TryGit("config", "--local", "merge.foundry-index.driver")
			if registered := err == nil; registered != (len(wantDriven) > 0) {
				t.Errorf("merge driver registered: %v, want %v", registered, !registered)
			}
			// Nothing but the hooks appears in the working tree.
			untracked, err := r.TryGit("ls-files", "--others", "--", ":!projects")
			if err != nil {
				t.Fatal(err)
			}
			wantHooks := tc.hooksPath + "/" + hooks.PreCommit + "\n" + tc.hooksPath + "/" + hooks.PreMergeCommit
			if tc.hooksPath != "" && untracked != wantHooks || tc.hooksPath == "" && untracked != "" {
				t.Errorf("untracked files outside the projects: %q", untracked)
			}
			for i := range n {
				_, err := os.Stat(filepath.Join(root(i), ".gitattributes"))
				if has := err == nil; has != (driver && slices.Contains(tc.want, i)) {
					t.Errorf("%s/.gitattributes present: %v, want %v", project(i), has, !has)
				}
			}
		})
	}
}

// TestConcurrentSharedHooksFolder installs and uninstalls the hooks of the
// projects of two repositories at once, both with one absolute
// core.hooksPath (a ~/.githooks shared on purpose): the pre-commit hook
// there is one file for both, so their read-plan-write must take turns as
// those of one repository's projects do. Every project's change survives,
// and the last uninstall puts back the user's own hook it chained.
func TestConcurrentSharedHooksFolder(t *testing.T) {
	t.Parallel()
	const n = 8 // projects in each repository
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	const userHook = "#!/bin/sh\necho the user's own hook\n"
	tests := []struct {
		name      string
		folder    string // the shared hooks folder, under a temporary folder
		mkdir     bool   // the folder exists before the installs
		userHook  bool   // the folder holds the user's own pre-commit hook first
		before    []int  // projects of each repository installed one after the other first
		install   []int  // projects of each repository installed at once
		uninstall []int  // projects of each repository uninstalled at once
		want      []int  // the projects of each repository left in the hook
	}{
		{name: "install", folder: "githooks", mkdir: true, install: all, want: all},
		{name: "install, folder created by the installs", folder: "home/githooks", install: all, want: all},
		{name: "install, chaining the user's hook", folder: "githooks", mkdir: true, userHook: true, install: all, want: all},
		{name: "uninstall some", folder: "githooks", mkdir: true, before: all, uninstall: all[:n/2], want: all[n/2:]},
		{name: "install and uninstall", folder: "githooks", mkdir: true, before: all[:n/2], install: all[n/2:], uninstall: all[:n/2], want: all[n/2:]},
		{name: "uninstall every one, restoring the user's hook", folder: "githooks", mkdir: true, userHook: true, before: all, uninstall: all},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			shared := filepath.Join(t.TempDir(), filepath.FromSlash(tc.folder))
			if tc.mkdir {
				if err := os.MkdirAll(shared, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			hook := filepath.Join(shared, hooks.PreCommit)
			if tc.userHook {
				if err := os.WriteFile(hook, []byte(userHook), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			repos := []string{"a", "b"}
			dirs := map[string]string{}
			for _, name := range repos {
				r := gittest.New(t)
				r.Git("config", "core.hooksPath", shared)
				dirs[name] = r.Dir
			}
			// Each repository's projects have names of their own, so the
			// hook names 2n projects.
			project := func(repo string, i int) string { return fmt.Sprintf("%s%d", repo, i) }
			root := func(repo string, i int) string { return filepath.Join(dirs[repo], project(repo, i)) }
			for _, repo := range repos {
				for i := range n {
					if err := os.MkdirAll(filepath.Join(root(repo, i), ".foundry"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			opts := hooks.Options{Executable: "/opt/foundry/bin/foundry"}
			for _, i := range tc.before {
				for _, repo := range repos {
					if _, err := hooks.Install(ctx, root(repo, i), hooks.Names, opts); err != nil {
						t.Fatalf("install %s: %v", project(repo, i), err)
					}
				}
			}

			start := make(chan struct{})
			var wg sync.WaitGroup
			run := func(repo string, i int, verb string, op func() error) {
				wg.Go(func() {
					<-start
					if err := op(); err != nil {
						t.Errorf("%s %s: %v", verb, project(repo, i), err)
					}
				})
			}
			for _, repo := range repos {
				for _, i := range tc.install {
					run(repo, i, "install", func() error { _, err := hooks.Install(ctx, root(repo, i), hooks.Names, opts); return err })
				}
				for _, i := range tc.uninstall {
					run(repo, i, "uninstall", func() error { _, err := hooks.Uninstall(ctx, root(repo, i), hooks.Names); return err })
				}
			}
			close(start)
			wg.Wait()

			var want []string
			for _, repo := range repos {
				for _, i := range tc.want {
					want = append(want, project(repo, i))
				}
			}
			slices.Sort(want)
			content, err := os.ReadFile(hook)
			switch {
			case err != nil && (len(want) > 0 || tc.userHook):
				t.Errorf("pre-commit hook: %v", err)
			case len(want) > 0:
				got, ok := hooks.HookProjects(content)
				if diff := cmp.Diff(want, got); !ok || diff != "" {
					t.Errorf("projects in the shared pre-commit hook (-want +got):\n%s", diff)
				}
			case tc.userHook:
				if string(content) != userHook {
					t.Errorf("pre-commit hook after the last uninstall:\n%s\nwant the user's own hook back:\n%s", content, userHook)
				}
			case err == nil:
				t.Errorf("pre-commit hook left after the last uninstall:\n%s", content)
			}
			chained, err := os.ReadFile(hook + ".pre-foundry")
			switch {
			case tc.userHook && len(want) > 0 && string(chained) != userHook:
				t.Errorf("chained hook: %q, %v; want the user's own hook", chained, err)
			case (!tc.userHook || len(want) == 0) && !errors.Is(err, os.ErrNotExist):
				t.Errorf("chained hook: %q, %v; want none", chained, err)
			}
		})
	}
}

// TestNothingInGitFolder: an install that fails, and an uninstall with
// nothing to uninstall, leave no file behind: not in the git folder (no
// lock file), and no hooks folder an install would have created.
func TestNothingInGitFolder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		hooksPath string   // core.hooksPath under a temporary folder, absolute; "" unset
		hooks     []string // the user's files in the hooks folder
		attrDir   bool     // the project's .gitattributes is a folder: the merge driver cannot be planned
		uninstall bool
		names     []string
		wantErr   string // the error's end; "" none
	}{
		{name: "uninstall, nothing installed", uninstall: true, names: hooks.Names},
		{name: "uninstall the pre-commit hook, no hooks folder", hooksPath: "home/githooks", uninstall: true, names: []string{hooks.PreCommit}},
		{name: "install, unknown hook", names: []string{hooks.PreCommit, "post-commit"}, wantErr: "unknown hook"},
		{name: "install, chained hook in the way", hooks: []string{"pre-commit", "pre-commit.pre-foundry"}, names: hooks.Names,
			wantErr: "pre-commit.pre-foundry already exists; merge the two by hand"},
		{name: "install, .gitattributes a folder", attrDir: true, names: hooks.Names, wantErr: "is a directory"},
		{name: "install, .gitattributes a folder, hooks folder to create", hooksPath: "home/githooks", attrDir: true, names: hooks.Names,
			wantErr: "is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := gittest.New(t)
			hooksDir := filepath.Join(r.Dir, ".git", "hooks")
			watched := []string{filepath.Join(r.Dir, ".git")}
			if tc.hooksPath != "" {
				home := t.TempDir()
				hooksDir = filepath.Join(home, filepath.FromSlash(tc.hooksPath))
				r.Git("config", "core.hooksPath", hooksDir)
				watched = append(watched, home)
			}
			for _, name := range tc.hooks {
				if err := os.WriteFile(filepath.Join(hooksDir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			project := filepath.Join(r.Dir, "p")
			if err := os.MkdirAll(filepath.Join(project, ".foundry"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.attrDir {
				if err := os.Mkdir(filepath.Join(project, ".gitattributes"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := testenv.Tree(t, watched...)
			var err error
			if tc.uninstall {
				_, err = hooks.Uninstall(ctx, project, tc.names)
			} else {
				_, err = hooks.Install(ctx, project, tc.names, hooks.Options{Executable: "/opt/foundry/bin/foundry"})
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.wantErr)):
				t.Fatalf("error: %v; want one ending %q", err, tc.wantErr)
			}
			if diff := cmp.Diff(before, testenv.Tree(t, watched...)); diff != "" {
				t.Errorf("files in the git and hooks folders (-before +after):\n%s", diff)
			}
		})
	}
}
