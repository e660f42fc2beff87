package blackboard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// TestReadThroughFolders: on a project's confined root, List and Read
// (summaries and full) read each wave through its folder and answer as
// reading each artifact through the root did: regular artifacts, valid or
// not, empty, too large, and links within the wave, to another wave, out
// of .foundry, dangling, looping or to a folder.
func TestReadThroughFolders(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	note := func(by, summary string) string {
		return fmt.Sprintf(`{"schema":"handoff.v1","producedBy":%q,"wave":"audit","status":"complete","artifacts":[{"path":"x"}],"summary":%q}`+"\n", by, summary)
	}
	confinedtest.WriteTree(t, root, map[string]string{
		Dir + "/audit/a.json":       note("a", "first"),
		Dir + "/audit/b.json":       `{"schema":"finding.v1","producedBy":"b","title":"no severity"}`,
		Dir + "/audit/empty.json":   "",
		Dir + "/audit/array.json":   "[1]",
		Dir + "/audit/huge.json":    `{"summary":"` + strings.Repeat("x", confined.ArtifactMax) + `"}`,
		Dir + "/build/c.json":       note("c", "built"),
		".foundry/store/d.json":     note("d", "stored"),
		"outside.json":              note("e", "outside"),
		Dir + "/build/.foundry-tmp": "{}",
	}, map[string]string{
		Dir + "/audit/alias.json":   "a.json",
		Dir + "/audit/sibling.json": "../build/c.json",
		Dir + "/audit/store.json":   "../../store/d.json",
		Dir + "/audit/out.json":     "../../../outside.json",
		Dir + "/audit/gone.json":    "nowhere.json",
		Dir + "/audit/loop.json":    "loop.json",
		Dir + "/audit/wave.json":    "../build",
	})
	fsys := confined.OpenFS(root)
	// The two boards compare two ways only when the waves open: else both
	// read every artifact through the root and agree whatever
	// Folder.ReadRegular does.
	for _, wave := range []string{"audit", "build"} {
		f := Open(fsys, Options{}).openWave(wave)
		if f == nil {
			t.Fatalf("wave %s: not read through its folder", wave)
		}
		f.Close()
	}
	ctx := context.Background()
	byPath, byFolder := Open(confinedtest.PathByPath(fsys), Options{}), Open(fsys, Options{})
	want, err := byPath.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := byFolder.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-path by path +by folder):\n%s", diff)
	}
	if len(got.Waves) != 2 || len(got.Waves[0].Invalid) != 8 || len(got.Waves[1].Invalid) != 0 {
		t.Errorf("List = %+v, want both waves and their problems", got)
	}
	for _, req := range []ReadRequest{{Wave: "audit", Limit: 100}, {Wave: "audit", Full: true, Limit: 100}, {Wave: "build", Full: true}, {Wave: "audit", Agent: "sibling", Full: true}} {
		want, werr := byPath.Read(ctx, req)
		got, err := byFolder.Read(ctx, req)
		if werr != nil || err != nil {
			t.Fatalf("Read(%+v): %v; path by path: %v", req, err, werr)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Artifact{})); diff != "" {
			t.Errorf("Read(%+v) (-path by path +by folder):\n%s", req, diff)
		}
		if want.Text() != got.Text() {
			t.Errorf("Read(%+v) text %q, path by path %q", req, got.Text(), want.Text())
		}
	}
}
