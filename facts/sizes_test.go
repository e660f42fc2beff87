package facts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/tokens"
)

// TestStoreFactFiles changes the memory folder through a store and behind
// its back and measures it after each change from the store's figures (a
// tokens.Reporter over it): the report is the one tokens.BuildReport makes
// by listing the folder. The store follows the folder by events, by
// listing it on every call, or starts from the persisted cache.
func TestStoreFactFiles(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"watched", "listed", "from the cache"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			gen := genFacts(t, 30)
			root := writeTree(t, gen)
			mem := filepath.Join(root, filepath.FromSlash(Dir))
			warn := &syncBuffer{}
			opts := Options{Now: fixedNow, Warn: warn, Watch: mode == "watched", Cache: mode == "from the cache"}
			if mode == "from the cache" {
				cachedSearch(t, root, Query{Text: "kafka"})
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(searchCachePath))); err != nil {
					t.Fatalf("no cache written: %v", err)
				}
			}
			s := OpenDir(root, opts)
			t.Cleanup(func() { _ = s.Close() })
			file := func(i int) string { return filepath.Join(root, filepath.FromSlash(gen[i].Path)) }
			write := func(t *testing.T, name, data string) {
				t.Helper()
				if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var written string
			steps := []struct {
				name string
				do   func(t *testing.T)
			}{
				{"start", func(*testing.T) {}},
				{"a write", func(t *testing.T) {
					res, err := s.Write(ctx, WriteRequest{Title: "Queue is Kafka for the wombats", Body: "Ordered per partition.", Type: Convention})
					if err != nil {
						t.Fatal(err)
					}
					written = res.ID
				}},
				{"the fact written retired", func(t *testing.T) {
					if _, err := s.Retire(ctx, written, "replaced by a queue of otters"); err != nil {
						t.Fatal(err)
					}
				}},
				{"a fact edited in place by hand, longer", func(t *testing.T) {
					write(t, file(1), readFile(t, root, gen[1].Path)+"\nOne more line of body.\n")
				}},
				{"a fact replaced by hand, shorter", func(t *testing.T) {
					f := gen[2]
					f.Body = "Short."
					write(t, file(2)+".new", string(Format(f)))
					if err := os.Rename(file(2)+".new", file(2)); err != nil {
						t.Fatal(err)
					}
				}},
				{"a fact deleted", func(t *testing.T) {
					if err := os.Remove(file(3)); err != nil {
						t.Fatal(err)
					}
				}},
				{"a fact file dropped in by hand", func(t *testing.T) {
					f := gen[4]
					f.ID, f.Title = "fact-0100", "Dropped in by hand"
					write(t, filepath.Join(mem, FileName(f.ID, f.Title)), string(Format(f)))
				}},
				{"a malformed fact file dropped in", func(t *testing.T) {
					write(t, filepath.Join(mem, "fact-0101-broken.md"), "no front matter\n")
				}},
				{"a folder named as a fact file", func(t *testing.T) {
					if err := os.Mkdir(filepath.Join(mem, "fact-0102-folder.md"), 0o755); err != nil {
						t.Fatal(err)
					}
				}},
				{"a link to another fact", func(t *testing.T) {
					if err := os.Symlink(filepath.Base(file(5)), filepath.Join(mem, "fact-0103-link.md")); err != nil {
						t.Fatal(err)
					}
				}},
				{"the fact the link leads to edited", func(t *testing.T) {
					write(t, file(5), strings.Replace(readFile(t, root, gen[5].Path), "\n---\n", "\n---\nA first line more.\n", 1))
				}},
				{"a dangling link", func(t *testing.T) {
					if err := os.Symlink("fact-9999-nowhere.md", filepath.Join(mem, "fact-0104-dangling.md")); err != nil {
						t.Fatal(err)
					}
				}},
				{"a link out of .foundry", func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "out.md")
					write(t, out, "outside")
					if err := os.Symlink(out, filepath.Join(mem, "fact-0105-out.md")); err != nil {
						t.Fatal(err)
					}
				}},
				{"the links removed", func(t *testing.T) {
					for _, name := range []string{"fact-0103-link.md", "fact-0104-dangling.md", "fact-0105-out.md"} {
						if err := os.Remove(filepath.Join(mem, name)); err != nil {
							t.Fatal(err)
						}
					}
				}},
				{"a fact file replaced by a link to a copy of it", func(t *testing.T) {
					// The content read is the same: only the stat tells
					// the link from the file.
					copied := filepath.Join(root, ".foundry", "copy.md")
					write(t, copied, readFile(t, root, gen[6].Path))
					if err := os.Remove(file(6)); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink("../copy.md", file(6)); err != nil {
						t.Fatal(err)
					}
				}},
				{"a fact file replaced by a link to another", func(t *testing.T) {
					if err := os.Remove(file(7)); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(filepath.Base(file(8)), file(7)); err != nil {
						t.Fatal(err)
					}
				}},
			}
			fsys := confined.OpenFS(root)
			rp := tokens.NewReporter(s)
			for _, step := range steps {
				step.do(t)
				got, err := rp.Report(ctx, fsys, nil, 4000)
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				want, err := tokens.BuildReport(ctx, fsys, nil, 4000)
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: the store's figures differ from a listing's (-want +got):\n%s", step.name, diff)
				}
			}
			if mode == "watched" && strings.Contains(warn.String(), "no file-system events") {
				t.Skipf("no file-system events here: %s", warn)
			}
		})
	}
}
