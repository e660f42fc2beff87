package contracts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/contracts"
)

const fixtures = "../schemas/testdata"

// formatLines renders violations as the fixtures' .want files hold them:
// "line:col: <pointer>: <message>", one a line.
func formatLines(vs []contracts.Violation) string {
	var sb strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&sb, "%d:%d: %s\n", v.Line, v.Column, v)
	}
	return sb.String()
}

// TestFixtures checks every contract against its fixtures: each file in
// schemas/testdata/valid/<id>/ is valid, and each file in invalid/<id>/
// fails with exactly the lines of the .want file beside it.
func TestFixtures(t *testing.T) {
	t.Parallel()
	r, err := contracts.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range r.IDs() {
		for _, dir := range []string{"valid", "invalid"} {
			files, err := filepath.Glob(filepath.Join(fixtures, dir, id, "*.json"))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Errorf("%s: no %s fixture", id, dir)
			}
			for _, f := range files {
				t.Run(dir+"/"+id+"/"+filepath.Base(f), func(t *testing.T) {
					t.Parallel()
					doc, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					vs, err := r.Validate(id, doc)
					if err != nil {
						t.Fatal(err)
					}
					got := formatLines(vs)
					want := ""
					if dir == "invalid" {
						b, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".want")
						if err != nil {
							t.Fatal(err)
						}
						want = string(b)
						if want == "" {
							t.Fatalf("%s.want is empty: an invalid fixture must assert its errors", f)
						}
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("violations (-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}
