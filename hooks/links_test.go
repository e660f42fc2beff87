package hooks_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/hooks"
	"github.com/foundryhq/foundry/internal/confined"
)

// foundryHookOutside is a file outside the repository that looks like
// Foundry's hook, so an install that followed a link would rewrite it and
// an uninstall would remove it.
const foundryHookOutside = "#!/bin/sh\n" + hooks.Marker + "\nexit 0\n"

// TestInstallRefusesLinks: installing or removing the pre-commit hook never
// writes, moves or removes anything through a symbolic link out of the
// repository — the hooks folder linked away, a core.hooksPath inside the
// tree that is a link — and the error names the link. A hook file that is
// itself a link is a foreign hook: it is chained as the link it is, its
// target neither read nor changed.
func TestInstallRefusesLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name      string
		hooksPath string // core.hooksPath; "" unset
		link      string // repository-relative
		target    string // under the outside folder; "" the folder itself
		uninstall bool
		want      string // the error's end; "" none
	}{
		{name: "hooks folder", link: ".git/hooks", want: "refuse to write through .git/hooks: is a symbolic link"},
		{name: "hooks folder, uninstall", link: ".git/hooks", uninstall: true, want: "refuse to write through .git/hooks: is a symbolic link"},
		{name: "hooksPath in the tree", hooksPath: ".githooks", link: ".githooks", want: "refuse to write through .githooks: is a symbolic link"},
		{name: "hook file", link: ".git/hooks/pre-commit", target: "pre-commit", want: ""},
		// A link is not a hook foundry wrote: left in place, no error.
		{name: "hook file, uninstall", link: ".git/hooks/pre-commit", target: "pre-commit", uninstall: true, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			outside := t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "pre-commit"), []byte(foundryHookOutside), 0o755); err != nil {
				t.Fatal(err)
			}
			r := gittest.New(t)
			if tt.hooksPath != "" {
				r.Git("config", "core.hooksPath", tt.hooksPath)
			}
			link := filepath.Join(r.Dir, filepath.FromSlash(tt.link))
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, tt.target), link); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			var err error
			if tt.uninstall {
				_, err = hooks.UninstallPreCommit(ctx, r.Dir)
			} else {
				_, err = hooks.InstallPreCommit(ctx, r.Dir, hooks.Options{})
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error = %v", err)
			case tt.want != "" && (err == nil || !strings.HasSuffix(err.Error(), tt.want)):
				t.Errorf("error = %v, want one ending %q", err, tt.want)
			case tt.want != "" && strings.Contains(tt.want, "refuse") && !errors.Is(err, confined.ErrSymlink):
				t.Errorf("error = %v, want ErrSymlink", err)
			}
			es, err := os.ReadDir(outside)
			if err != nil || len(es) != 1 || readFile(t, filepath.Join(outside, "pre-commit")) != foundryHookOutside {
				t.Errorf("the outside folder changed: %v %v", es, err)
			}
			if tt.name == "hook file" {
				// Chained as the link it is: the new hook runs it first.
				if dest, err := os.Readlink(link + ".pre-foundry"); err != nil || dest != filepath.Join(outside, "pre-commit") {
					t.Errorf("chained hook = %q, %v; want the link moved aside", dest, err)
				}
				if !hooks.IsFoundryHook([]byte(readFile(t, link))) {
					t.Errorf("%s is not foundry's hook", link)
				}
			}
		})
	}
}

// TestInstallLinkedWorktree: in a linked worktree, whose .git is a file
// naming the git folder elsewhere, the hook goes to the shared hooks folder
// of the main repository.
func TestInstallLinkedWorktree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("README", "x\n")
	r.CommitAll("one")
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "-b", "side", wt)
	res, err := hooks.InstallPreCommit(ctx, wt, hooks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
	if res.Path != want || res.Action != hooks.Installed {
		t.Fatalf("result = %+v, want installed at %s", res, want)
	}
	if !hooks.IsFoundryHook([]byte(readFile(t, want))) {
		t.Fatalf("%s is not foundry's hook", want)
	}
	if res, err := hooks.UninstallPreCommit(ctx, wt); err != nil || res.Action != hooks.Removed {
		t.Fatalf("uninstall = %+v, %v", res, err)
	}
}
