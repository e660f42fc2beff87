package hooks_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/hooks"
)

// TestMergeDriverProjects installs and uninstalls the merge driver for two
// projects of one repository: the git config stays while any attributes
// file still names the driver, and each project's .gitattributes comes back
// as it was, whichever project goes first.
func TestMergeDriverProjects(t *testing.T) {
	t.Parallel()
	type op struct {
		project   string // folder of the project, relative to the repository
		install   bool   // else uninstall
		want      hooks.Action
		wantAttrs []string // Result.Attributes, relative to the repository
	}
	const web = "*.png binary" // web's own .gitattributes, no final newline
	tests := []struct {
		name   string
		files  map[string]string // written before the first op
		legacy bool              // after the installs, the records of the previous format
		ops    []op
		// after the ops: each .gitattributes ("" for none), and whether
		// the driver is still in git config
		wantFiles  map[string]string
		wantDriver bool
	}{
		{
			name:  "api uninstalls first",
			files: map[string]string{"services/web/.gitattributes": web},
			ops: []op{
				{"services/api", true, hooks.Installed, nil},
				{"services/web", true, hooks.Updated, nil},
				{"services/api", false, hooks.Dropped, []string{"services/web/.gitattributes"}},
				{"services/api", false, hooks.Absent, []string{"services/web/.gitattributes"}},
				{"services/web", false, hooks.Removed, nil},
			},
			wantFiles: map[string]string{"services/api/.gitattributes": "", "services/web/.gitattributes": web},
		},
		{
			name:  "web uninstalls first",
			files: map[string]string{"services/web/.gitattributes": web},
			ops: []op{
				{"services/api", true, hooks.Installed, nil},
				{"services/web", true, hooks.Updated, nil},
				{"services/web", false, hooks.Dropped, []string{"services/api/.gitattributes"}},
				{"services/api", false, hooks.Removed, nil},
			},
			wantFiles: map[string]string{"services/api/.gitattributes": "", "services/web/.gitattributes": web},
		},
		{
			name:   "records of the previous format",
			files:  map[string]string{"services/web/.gitattributes": web},
			legacy: true,
			ops: []op{
				{"services/api", true, hooks.Installed, nil},
				{"services/web", true, hooks.Updated, nil},
				{"services/web", false, hooks.Dropped, []string{"services/api/.gitattributes"}},
				{"services/api", false, hooks.Removed, nil},
			},
			// The flags, one for the repository, are honoured by the
			// last uninstall only: web keeps the newline install added.
			wantFiles: map[string]string{"services/api/.gitattributes": "", "services/web/.gitattributes": web + "\n"},
		},
		{
			name:  "a hand-written line at the top names the driver",
			files: map[string]string{".gitattributes": "services/web/.foundry/memory/INDEX.md merge=foundry-index\n"},
			ops: []op{
				{"services/api", true, hooks.Installed, nil},
				{"services/api", false, hooks.Dropped, []string{".gitattributes"}},
			},
			wantFiles:  map[string]string{"services/api/.gitattributes": ""},
			wantDriver: true,
		},
		{
			name:  "info/attributes names the driver",
			files: map[string]string{".git/info/attributes": "*.idx merge=foundry-index\n"},
			ops: []op{
				{"services/api", true, hooks.Installed, nil},
				{"services/api", false, hooks.Dropped, []string{".git/info/attributes"}},
			},
			wantFiles:  map[string]string{"services/api/.gitattributes": ""},
			wantDriver: true,
		},
		{
			name:  "a comment naming the driver does not keep it",
			files: map[string]string{".gitattributes": "# x merge=foundry-index\n"},
			ops: []op{
				{"services/api", true, hooks.Installed, nil},
				{"services/api", false, hooks.Removed, nil},
			},
			wantFiles: map[string]string{"services/api/.gitattributes": ""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := gittest.New(t)
			dir, err := filepath.EvalSymlinks(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			r.Write("services/api/README", "api")
			r.Write("services/web/README", "web")
			for name, content := range tc.files {
				r.Write(name, content)
			}
			installs := 0
			for i, o := range tc.ops {
				root := filepath.Join(r.Dir, filepath.FromSlash(o.project))
				var res hooks.Result
				if o.install {
					res, err = hooks.RegisterMergeDriver(ctx, root)
					installs++
				} else {
					if tc.legacy && installs > 0 {
						// What an install of the previous format left: one
						// flag each for the whole repository.
						r.Git("config", "--local", "--unset-all", "merge.foundry-index.attributescreated")
						r.Git("config", "--local", "--unset-all", "merge.foundry-index.attributesnewline")
						r.Git("config", "--local", "merge.foundry-index.attributescreated", "true")
						r.Git("config", "--local", "merge.foundry-index.attributesnewline", "true")
						installs = 0
					}
					res, err = hooks.UnregisterMergeDriver(ctx, root)
				}
				if err != nil {
					t.Fatalf("op %d (%+v): %v", i, o, err)
				}
				var attrs []string
				for _, a := range res.Attributes {
					rel, err := filepath.Rel(dir, a)
					if err != nil {
						t.Fatal(err)
					}
					attrs = append(attrs, filepath.ToSlash(rel))
				}
				if res.Action != o.want || !cmp.Equal(attrs, o.wantAttrs) {
					t.Fatalf("op %d (%+v): action %s, attributes %q", i, o, res.Action, attrs)
				}
			}
			for name, want := range tc.wantFiles {
				got, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(name)))
				switch {
				case want == "" && !errors.Is(err, os.ErrNotExist):
					t.Errorf("%s: %q, %v; want it removed", name, got, err)
				case want != "" && string(got) != want:
					t.Errorf("%s = %q, %v; want %q", name, got, err, want)
				}
			}
			_, err = r.TryGit("config", "--local", "merge.foundry-index.driver")
			if (err == nil) != tc.wantDriver {
				t.Errorf("driver in git config: %v, want %v", err == nil, tc.wantDriver)
			}
		})
	}
}
