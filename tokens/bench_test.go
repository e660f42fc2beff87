package tokens

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/confined/confinedtest"
)

// BenchmarkBuildReport10k measures token_report over 5,000 facts and 5,000
// artifacts in 50 waves of a working tree: "root" stats each file through
// the project's confined root, "folder" through its folder (BuildReport).
func BenchmarkBuildReport10k(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{}
	for i := range 5000 {
		files[fmt.Sprintf("%s/fact-%04d-a-fact.md", MemoryDir, i+1)] = strings.Repeat("x", 400+i%300)
		files[fmt.Sprintf("%s/wave-%02d/agent-%03d.json", BlackboardDir, i%50, i/50)] = strings.Repeat("x", 800+i%500)
	}
	confinedtest.WriteTree(b, root, files, nil)
	fsys := confined.OpenFS(root)
	ctx := context.Background()
	want, err := BuildReport(ctx, confinedtest.PathByPath(fsys), nil, 4000)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		fsys fs.FS
	}{{"root", confinedtest.PathByPath(fsys)}, {"folder", fsys}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				r, err := BuildReport(ctx, bc.fsys, nil, 4000)
				if err != nil || r.Text() != want.Text() {
					b.Fatalf("report %v, %q; want %q", err, r.Text(), want.Text())
				}
			}
		})
	}
}
