package git

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/foundryhq/foundry/git/gittest"
)

// BenchmarkIndexRead reads the index of a repository of 10,000 files in each
// of the ways Foundry has had: its own reader (own), go-git's decoder
// (go-git) and a git ls-files process (git-ls-files). Only the first ships;
// the others stay here so the choice can be measured again:
//
//	go test ./git -run '^$' -bench BenchmarkIndexRead
func BenchmarkIndexRead(b *testing.B) {
	r := gittest.New(b)
	const n = 10000
	for i := range n {
		r.Write(fmt.Sprintf(".foundry/blackboard/w%02d/agent-%05d.json", i%100, i), fmt.Sprintf(`{"id":"F-%d"}`, i))
	}
	r.Git("add", "-A")
	indexPath := filepath.Join(r.Dir, ".git", "index")

	b.Run("own", func(b *testing.B) {
		for b.Loop() {
			data, err := os.ReadFile(indexPath)
			if err != nil {
				b.Fatal(err)
			}
			ix, err := parseIndex(data)
			if err != nil || ix.len() != n {
				b.Fatalf("parseIndex: %v entries, %v; want %d", ix.len(), err, n)
			}
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			data, err := os.ReadFile(indexPath)
			if err != nil {
				b.Fatal(err)
			}
			var idx index.Index
			if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil || len(idx.Entries) != n {
				b.Fatalf("go-git decoder: %d entries, %v; want %d", len(idx.Entries), err, n)
			}
		}
	})
	b.Run("git-ls-files", func(b *testing.B) {
		for b.Loop() {
			out := r.Git("ls-files", "-s", "-z")
			if got := bytes.Count([]byte(out), []byte{0}); got != n {
				b.Fatalf("git ls-files listed %d entries; want %d", got, n)
			}
		}
	})
}
