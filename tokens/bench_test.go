package tokens

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// throughRoot is a project's confined root FS that [confined.RootOf] does
// not see through: BuildReport stats every file through the root, as it
// did before it opened a folder per wave.
type throughRoot struct{ fs.FS }

func (t throughRoot) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(t.FS, name) }
func (t throughRoot) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(t.FS, name) }

// BenchmarkBuildReport10k measures token_report over 5,000 facts and 5,000
// artifacts in 50 waves of a working tree: "root" stats each file through
// the project's confined root, "folder" through its folder (BuildReport).
func BenchmarkBuildReport10k(b *testing.B) {
	root := b.TempDir()
	write := func(p string, n int) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 5000 {
		write(fmt.Sprintf("%s/fact-%04d-a-fact.md", MemoryDir, i+1), 400+i%300)
		write(fmt.Sprintf("%s/wave-%02d/agent-%03d.json", BlackboardDir, i%50, i/50), 800+i%500)
	}
	fsys := confined.OpenFS(root)
	ctx := context.Background()
	want, err := BuildReport(ctx, throughRoot{fsys}, nil, 4000)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		fsys fs.FS
	}{{"root", throughRoot{fsys}}, {"folder", fsys}} {
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
