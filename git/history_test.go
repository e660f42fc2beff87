package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
)

// change is the comparable part of a git.PathChange.
type change struct {
	Subject string
	Blob    string
}

func changesOf(h *git.History, p string) []change {
	var out []change
	for _, c := range h.Changes(p) {
		out = append(out, change{c.Commit.Subject, c.Blob})
	}
	return out
}

func openRepo(t *testing.T, dir string) *git.Repo {
	t.Helper()
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return repo
}

func TestHistoryLinear(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("proj/.foundry/blackboard/w1/a.json", "a1")
	r.Write("proj/.foundry/schemas/x.v1.schema.json", "s1")
	r.Write("proj/README.md", "readme")
	r.CommitAll("add a and x")
	r.Write("proj/.foundry/blackboard/w1/a.json", "a2")
	r.Write("proj/README.md", "readme 2")
	r.CommitAll("edit a")
	r.Write("proj/README.md", "readme 3")
	r.CommitAll("unrelated")
	r.Remove("proj/.foundry/blackboard/w1/a.json")
	r.CommitAll("delete a")
	r.Write("proj/.foundry/blackboard/w1/a.json", "a3")
	r.Write("proj/.foundry/schemas/x.v1.schema.json", "s2")
	r.CommitAll("re-add a, edit x")

	repo := openRepo(t, r.Dir)
	h, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{
		Sub:      "proj",
		Prefixes: []string{".foundry/blackboard/", ".foundry/schemas/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if h.Commits != 5 || h.Truncated || h.Head.Subject != "re-add a, edit x" {
		t.Errorf("walked %d commits (truncated %v) from %q; want 5 from the head", h.Commits, h.Truncated, h.Head.Subject)
	}
	tests := []struct {
		path string
		want []change
	}{
		{".foundry/blackboard/w1/a.json", []change{
			{"re-add a, edit x", git.BlobID([]byte("a3"))},
			{"delete a", ""},
			{"edit a", git.BlobID([]byte("a2"))},
			{"add a and x", git.BlobID([]byte("a1"))},
		}},
		{".foundry/schemas/x.v1.schema.json", []change{
			{"re-add a, edit x", git.BlobID([]byte("s2"))},
			{"add a and x", git.BlobID([]byte("s1"))},
		}},
		{"README.md", nil}, // not selected
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, changesOf(h, tt.path)); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{".foundry/blackboard/w1/a.json", ".foundry/schemas/x.v1.schema.json"}, h.Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	last, ok := h.LastChange(".foundry/schemas/x.v1.schema.json")
	if !ok || last.Seq != 0 || last.Commit.Hash != r.Git("rev-parse", "HEAD") {
		t.Errorf("last change = %+v, want HEAD at seq 0", last)
	}
	first := h.Changes(".foundry/blackboard/w1/a.json")[3]
	if first.Seq != 4 || first.Commit.When != "2026-01-01" {
		t.Errorf("first change seq %d date %s, want 4 and 2026-01-01", first.Seq, first.Commit.When)
	}
	data, err := repo.ReadBlob("schemas/x.json", first.Blob)
	if err != nil || string(data) != "a1" {
		t.Errorf("ReadBlob = %q, %v; want a1", data, err)
	}
}

func TestHistoryFromOlderRevisionAndExactPaths(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a/one.json", "1")
	r.Write("a/two.json", "2")
	r.Write("ab/x.json", "x")
	r.CommitAll("c1")
	r.Write("a/one.json", "1b")
	r.Write("ab/x.json", "x2")
	r.CommitAll("c2")
	r.Write("a/one.json", "1c")
	r.CommitAll("c3")

	repo := openRepo(t, r.Dir)
	h, err := repo.History(context.Background(), "HEAD~1", git.HistoryOptions{Prefixes: []string{"a/one.json", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []change{{"c2", git.BlobID([]byte("1b"))}, {"c1", git.BlobID([]byte("1"))}}
	if diff := cmp.Diff(want, changesOf(h, "a/one.json")); diff != "" {
		t.Errorf("a/one.json (-want +got):\n%s", diff)
	}
	// "a" selects the folder a, not the sibling ab.
	if diff := cmp.Diff([]string{"a/one.json", "a/two.json"}, h.Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func TestHistoryMergeAttributesBranchCommits(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(".foundry/memory/fact-0001-a.md", "one")
	r.CommitAll("base")
	r.Git("checkout", "-q", "-b", "left")
	r.Write(".foundry/memory/fact-0016-left.md", "left")
	r.Write(".foundry/memory/shared.md", "left side")
	r.CommitAll("left adds fact-0016")
	r.Git("checkout", "-q", "main")
	r.Write(".foundry/memory/fact-0016-right.md", "right")
	r.Write(".foundry/memory/shared.md", "right side")
	r.CommitAll("right adds fact-0016")
	if _, err := r.TryGit("merge", "-q", "--no-edit", "left"); err == nil {
		t.Fatal("merge did not conflict on shared.md")
	}
	r.Write(".foundry/memory/shared.md", "resolved")
	r.CommitAll("merge left")

	repo := openRepo(t, r.Dir)
	h, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{Prefixes: []string{".foundry/memory/"}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Commits != 4 {
		t.Errorf("walked %d commits, want 4", h.Commits)
	}
	tests := []struct {
		path string
		want []change
	}{
		{".foundry/memory/fact-0016-left.md", []change{{"left adds fact-0016", git.BlobID([]byte("left"))}}},
		{".foundry/memory/fact-0016-right.md", []change{{"right adds fact-0016", git.BlobID([]byte("right"))}}},
		// The resolution differs from both parents: the merge changed it.
		{".foundry/memory/shared.md", []change{
			{"merge left", git.BlobID([]byte("resolved"))},
			{"right adds fact-0016", git.BlobID([]byte("right side"))},
			{"left adds fact-0016", git.BlobID([]byte("left side"))},
		}},
		{".foundry/memory/fact-0001-a.md", []change{{"base", git.BlobID([]byte("one"))}}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, changesOf(h, tt.path)); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistoryFileBecomesFolder(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("x/item", "file")
	r.CommitAll("file")
	r.Remove("x/item")
	r.Write("x/item/inner.json", "inner")
	r.CommitAll("folder")
	repo := openRepo(t, r.Dir)
	h, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{Prefixes: []string{"x/"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]change{}
	for _, p := range h.Paths() {
		got[p] = changesOf(h, p)
	}
	want := map[string][]change{
		"x/item":            {{"folder", ""}, {"file", git.BlobID([]byte("file"))}},
		"x/item/inner.json": {{"folder", git.BlobID([]byte("inner"))}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestHistoryShallowCloneIsTruncated(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	for _, s := range []string{"one", "two", "three"} {
		r.Write("a.json", s)
		r.CommitAll(s)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	r.Git("clone", "-q", "--depth", "2", "file://"+r.Dir, clone)
	repo := openRepo(t, clone)
	h, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !h.Truncated {
		t.Error("Truncated = false for a shallow clone")
	}
	want := []change{{"three", git.BlobID([]byte("three"))}}
	if diff := cmp.Diff(want, changesOf(h, "a.json")); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestHistoryErrors(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	repo := openRepo(t, r.Dir)
	if _, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{}); !errors.Is(err, git.ErrNoCommits) {
		t.Errorf("History on an empty repository: %v, want ErrNoCommits", err)
	}
	r.Write("a", "a")
	r.CommitAll("a")
	if _, err := repo.History(context.Background(), "nope", git.HistoryOptions{}); !errors.Is(err, git.ErrRevisionNotFound) {
		t.Errorf("History at an unknown revision: %v, want ErrRevisionNotFound", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := repo.History(ctx, "HEAD", git.HistoryOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("History with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := repo.ReadBlob("x", git.BlobID([]byte("never committed"))); !errors.Is(err, git.ErrPathNotFound) {
		t.Errorf("ReadBlob of a missing object: %v, want ErrPathNotFound", err)
	}
	if _, err := repo.ReadBlob("x", "zz"); !errors.Is(err, git.ErrPathNotFound) {
		t.Errorf("ReadBlob of a malformed id: %v, want ErrPathNotFound", err)
	}
}

// TestHistoryLatestMatchesFullWalk checks that a walk asking only for the
// latest change of some paths (HistoryOptions.Latest) records for each the
// change a full walk returns from LastChange, over a history with edits, a
// deletion, a rename, a file that becomes a folder, a merge whose branches
// both edit a path, and a path no commit touches; and that contract files
// under Prefixes are still followed in full.
func TestHistoryLatestMatchesFullWalk(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("proj/.foundry/schemas/x.v1.schema.json", "s1")
	r.Write("proj/.foundry/blackboard/w1/a.json", "a1")
	r.Write("proj/.foundry/blackboard/w1/b.json", "b1")
	r.Write("proj/.foundry/blackboard/w2/c.json", "c1")
	r.Write("proj/.foundry/blackboard/w2/d.json", "d1")
	r.CommitAll("base")
	r.Write("proj/.foundry/blackboard/w1/a.json", "a2")
	r.Remove("proj/.foundry/blackboard/w1/b.json")
	r.CommitAll("edit a, delete b")
	r.Git("mv", "proj/.foundry/blackboard/w2/c.json", "proj/.foundry/blackboard/w2/renamed.json")
	r.Write("proj/.foundry/schemas/x.v1.schema.json", "s2")
	r.CommitAll("rename c, edit x")
	r.Git("checkout", "-q", "-b", "side")
	r.Write("proj/.foundry/blackboard/w2/d.json", "d-side")
	r.Write("proj/.foundry/blackboard/w1/a.json", "a-side")
	r.CommitAll("side edits d and a")
	r.Git("checkout", "-q", "main")
	r.Write("proj/.foundry/blackboard/w1/a.json", "a-main")
	r.Remove("proj/.foundry/blackboard/w2/d.json")
	r.Write("proj/.foundry/blackboard/w2/d.json/inner.json", "folder now")
	r.CommitAll("main edits a, d becomes a folder")
	if _, err := r.TryGit("merge", "-q", "--no-edit", "side"); err == nil {
		t.Fatal("merge did not conflict")
	}
	r.Write("proj/.foundry/blackboard/w1/a.json", "a-merged")
	if err := os.RemoveAll(filepath.Join(r.Dir, "proj/.foundry/blackboard/w2/d.json")); err != nil {
		t.Fatal(err)
	}
	r.Write("proj/.foundry/blackboard/w2/d.json", "d-side")
	r.CommitAll("merge side")

	repo := openRepo(t, r.Dir)
	paths := []string{
		".foundry/blackboard/w1/a.json", ".foundry/blackboard/w1/b.json", ".foundry/blackboard/w2/c.json",
		".foundry/blackboard/w2/renamed.json", ".foundry/blackboard/w2/d.json", ".foundry/blackboard/w2/d.json/inner.json",
		".foundry/blackboard/w9/never.json",
	}
	full, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{Sub: "proj"})
	if err != nil {
		t.Fatal(err)
	}
	latest, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{Sub: "proj", Prefixes: []string{".foundry/schemas/"}, Latest: paths})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		want, wok := full.LastChange(p)
		got, ok := latest.LastChange(p)
		if ok != wok || got.Commit.Hash != want.Commit.Hash || got.Blob != want.Blob || got.Seq != want.Seq {
			t.Errorf("%s: latest change %v, %v (%q); the full walk says %v, %v (%q)", p, got.Blob, ok, got.Commit.Subject, want.Blob, wok, want.Commit.Subject)
		}
		if n := len(latest.Changes(p)); n > 1 {
			t.Errorf("%s: %d changes recorded, want only the latest", p, n)
		}
	}
	const schema = ".foundry/schemas/x.v1.schema.json"
	if diff := cmp.Diff(changesOf(full, schema), changesOf(latest, schema)); diff != "" {
		t.Errorf("%s (-full walk +with Latest):\n%s", schema, diff)
	}
	if n := len(changesOf(full, ".foundry/blackboard/w1/a.json")); n < 4 {
		t.Errorf("a.json changed %d times in the full walk: the fixture lost its history", n)
	}
}
