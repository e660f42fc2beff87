package blackboard

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// BenchmarkList5k measures blackboard list over 5,000 artifacts in 50
// waves of a working tree: "root" reads each artifact through the
// project's confined root, path by path, "folder" through its wave's
// folder (Board.List).
func BenchmarkList5k(b *testing.B) {
	root := newProject(b)
	files := map[string]string{}
	for i := range 5000 {
		agent := fmt.Sprintf("agent-%03d", i/50)
		files[fmt.Sprintf("%s/wave-%02d/%s.json", Dir, i%50, agent)] = fmt.Sprintf(
			`{"schema":"handoff.v1","producedBy":%q,"wave":"wave-%02d","status":"complete","artifacts":[{"path":"x"}],"summary":"hand-off %d"}`+"\n", agent, i%50, i)
	}
	confinedtest.WriteTree(b, root, files, nil)
	fsys := confined.OpenFS(root)
	ctx := context.Background()
	want, err := Open(confinedtest.PathByPath(fsys), Options{}).List(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		board *Board
	}{{"root", Open(confinedtest.PathByPath(fsys), Options{})}, {"folder", Open(fsys, Options{})}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				got, err := bc.board.List(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if len(got.Waves) != len(want.Waves) {
					b.Fatal(cmp.Diff(want, got))
				}
			}
		})
	}
}
