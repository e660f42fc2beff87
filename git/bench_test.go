package git_test

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// BenchmarkReadFiles reads 10,000 small artifacts through the working-tree
// view and through the revision view (a packed repository, as after clone or
// gc). The goal is a revision/worktree ratio of at most 1.5.
func BenchmarkReadFiles(b *testing.B) {
	r := gittest.New(b)
	const n = 10000
	for i := range n {
		r.Write(fmt.Sprintf(".foundry/blackboard/w%02d/agent-%05d.json", i%100, i), fmt.Sprintf(`{"schema":"finding.v1","producedBy":"a%d","id":"F-%d"}`, i, i))
	}
	r.CommitAll("artifacts")
	r.Git("gc", "-q")
	repo, err := git.Open(r.Dir)
	if err != nil {
		b.Fatal(err)
	}
	readAll := func(b *testing.B, fsys fs.FS) {
		count := 0
		err := fs.WalkDir(fsys, ".foundry/blackboard", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if _, err := fs.ReadFile(fsys, p); err != nil {
				return err
			}
			count++
			return nil
		})
		if err != nil || count != n {
			b.Fatalf("read %d files: %v", count, err)
		}
	}
	b.Run("worktree", func(b *testing.B) {
		for b.Loop() {
			readAll(b, os.DirFS(r.Dir))
		}
	})
	b.Run("revision", func(b *testing.B) {
		for b.Loop() {
			fsys, _, err := repo.RevFS("HEAD", "")
			if err != nil {
				b.Fatal(err)
			}
			readAll(b, fsys)
		}
	})
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			fsys, err := repo.IndexFS("")
			if err != nil {
				b.Fatal(err)
			}
			readAll(b, fsys)
		}
	})
}

// BenchmarkStagedChanges lists 3 staged changes among 10,000 committed
// files, as the pre-commit hook does, in each of the ways Foundry has had:
// the cache-tree diff it keeps (cache-tree), a git diff-index process
// (git-diff-index, what the hook once ran), and go-git's index decoder with
// a walk of HEAD's whole tree (go-git). Only the first ships; the other two
// stay here so the choice can be measured again:
//
//	go test ./git -run '^$' -bench BenchmarkStagedChanges
//
// On the day it was chosen, under load: cache-tree 0.9–1.6 ms, git
// diff-index 8.5–12 ms, go-git 32–43 ms; on a quiet machine (2026-12-03):
// 1.0–1.4 ms, 2.6–2.7 ms and 21–22 ms.
func BenchmarkStagedChanges(b *testing.B) {
	r := gittest.New(b)
	const n = 10000
	for i := range n {
		r.Write(fmt.Sprintf(".foundry/blackboard/w%02d/agent-%05d.json", i%100, i), fmt.Sprintf(`{"id":"F-%d"}`, i))
	}
	r.CommitAll("artifacts")
	r.Git("gc", "-q")
	r.Write(".foundry/blackboard/w07/agent-00007.json", "{}")
	r.Write(".foundry/blackboard/w50/new.json", "{}")
	r.Git("add", "-A")
	r.Git("rm", "-q", ".foundry/blackboard/w99/agent-00099.json")

	b.Run("cache-tree", func(b *testing.B) {
		repo, err := git.Open(r.Dir)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			got, err := repo.StagedChanges(".foundry")
			if err != nil || len(got) != 3 {
				b.Fatalf("StagedChanges = %v, %v; want 3 changes", got, err)
			}
		}
	})
	b.Run("git-diff-index", func(b *testing.B) {
		for b.Loop() {
			out := r.Git("diff-index", "--cached", "-z", "--no-renames", "HEAD", "--", ".foundry")
			if got := strings.Count(out, "\x00") / 2; got != 3 {
				b.Fatalf("git diff-index listed %d changes; want 3", got)
			}
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			if got := goGitStaged(b, r.Dir, ".foundry/"); got != 3 {
				b.Fatalf("go-git listed %d changes; want 3", got)
			}
		}
	})
}

// goGitStaged counts the staged changes under prefix the way Foundry once
// found them with go-git: decode the whole index, walk HEAD's whole tree and
// compare the two.
func goGitStaged(b *testing.B, dir, prefix string) int {
	repo, err := gogit.PlainOpen(dir)
	if err != nil {
		b.Fatal(err)
	}
	idx, err := repo.Storer.Index()
	if err != nil {
		b.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		b.Fatal(err)
	}
	commit, err := repo.CommitObject(head.Hash())
	if err != nil {
		b.Fatal(err)
	}
	tree, err := commit.Tree()
	if err != nil {
		b.Fatal(err)
	}
	committed := map[string]plumbing.Hash{}
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, entry, err := walker.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if entry.Mode.IsFile() && strings.HasPrefix(name, prefix) {
			committed[name] = entry.Hash
		}
	}
	changes := 0
	for _, e := range idx.Entries {
		if !strings.HasPrefix(e.Name, prefix) {
			continue
		}
		h, ok := committed[e.Name]
		if !ok || h != e.Hash {
			changes++
		}
		delete(committed, e.Name)
	}
	return changes + len(committed)
}

// BenchmarkListStatRead reads 10,000 small fact files at a revision of a
// packed repository, freshly opened, the way a store reads a folder
// through a confined view: the folder listed with each entry's size, then
// each file stat'ed and read. A packed object's size, read from its
// header, is remembered for the stat that follows the listing.
func BenchmarkListStatRead(b *testing.B) {
	r := gittest.New(b)
	const n = 10000
	for i := range n {
		r.Write(fmt.Sprintf(".foundry/memory/fact-%04d-a-fact.md", i+1), fmt.Sprintf("---\nid: fact-%04d\ntitle: Fact %d\n---\nBody of fact %d.\n", i+1, i, i))
	}
	r.CommitAll("facts")
	r.Git("gc", "-q")
	for b.Loop() {
		repo, err := git.Open(r.Dir)
		if err != nil {
			b.Fatal(err)
		}
		fsys, _, err := repo.RevFS("HEAD", "")
		if err != nil {
			b.Fatal(err)
		}
		es, err := fs.ReadDir(fsys, ".foundry/memory")
		if err != nil || len(es) != n {
			b.Fatalf("%d entries: %v", len(es), err)
		}
		for _, e := range es {
			if _, err := e.Info(); err != nil {
				b.Fatal(err)
			}
		}
		for _, e := range es {
			p := ".foundry/memory/" + e.Name()
			if _, err := fs.Stat(fsys, p); err != nil {
				b.Fatal(err)
			}
			if _, err := fs.ReadFile(fsys, p); err != nil {
				b.Fatal(err)
			}
		}
		repo.Close()
	}
}
