package runbooks

import (
	"context"
	"fmt"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// BenchmarkPage2000 measures one page of runbook_list over 2,000 runbooks
// in a working tree, read through the project's confined root: "list" the
// way runbook_list took before Book.Page (every runbook read, then the
// page cut), "page" Book.Page, which reads the page's 20.
func BenchmarkPage2000(b *testing.B) {
	root := b.TempDir()
	for i := range 2000 {
		content := fmt.Sprintf("---\ntitle: Runbook %d\ntrigger: deploy %d, release\n---\n\n# Runbook %d\n\n## Steps\n\n1. Check.\n", i, i, i)
		testenv.WriteFile(b, root, fmt.Sprintf("%s/rb-%05d.md", Dir, i), content)
	}
	r, err := confined.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	book := Open(r.FS(), Options{})
	ctx := context.Background()
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			l, err := book.List(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := l.Page(0, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			if _, err := book.Page(ctx, 0, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}
