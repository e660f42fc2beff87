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
			// Nothing but the hook appears in the working tree: the lock
			// file is kept in the git folder.
			untracked, err := r.TryGit("ls-files", "--others", "--", ":!projects")
			if err != nil {
				t.Fatal(err)
			}
			if wantHook := tc.hooksPath + "/" + hooks.PreCommit; tc.hooksPath != "" && untracked != wantHook || tc.hooksPath == "" && untracked != "" {
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
