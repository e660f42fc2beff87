package git_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/testenv"
)

func TestParentsAndIsAncestor(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a", "a")
	base := r.CommitAll("base")
	r.Git("checkout", "-q", "-b", "side")
	r.Write("b", "b")
	side := r.CommitAll("side")
	r.Git("checkout", "-q", "main")
	r.Write("c", "c")
	main := r.CommitAll("main")
	r.Git("merge", "-q", "--no-edit", "side")
	merge := r.Git("rev-parse", "HEAD")

	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	parents, err := repo.Parents(merge)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{main, side}, parents); diff != "" {
		t.Errorf("parents of the merge (-want +got):\n%s", diff)
	}
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"itself", side, side, true},
		{"base of main", base, main, true},
		{"side of merge", side, merge, true},
		{"side of main", side, main, false},
		{"merge of base", merge, base, false},
	}
	h, err := repo.History(context.Background(), "HEAD", git.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		got, err := repo.IsAncestor(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("%s: IsAncestor = %v, %v; want %v", tt.name, got, err, tt.want)
		}
		// The walk's answer, which searches no further back than a.
		if got, err := h.IsAncestor(tt.a, tt.b); err != nil || got != tt.want {
			t.Errorf("%s: History.IsAncestor = %v, %v; want %v", tt.name, got, err, tt.want)
		}
		// b's whole history, searched once.
		in, err := h.InHistoryOf(tt.b)
		if err != nil || in(tt.a) != tt.want {
			t.Errorf("%s: History.InHistoryOf = %v, %v; want %v", tt.name, err == nil && in(tt.a), err, tt.want)
		}
	}
	if _, err := repo.Parents("not-a-hash"); err == nil {
		t.Error("Parents of a bad hash succeeded")
	}
}

// TestHistoryIsAncestorSameSecond: commits of one second are walked in
// queue order, which can place an ancestor before its descendant (here P
// before X, whose child Z the walk reaches through the merge first): the
// walk is then not topological, and the answer comes from a full search.
func TestHistoryIsAncestorSameSecond(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	var stream strings.Builder
	mark := 0
	// commit writes a commit of one file on branch, after from and merging
	// merge (marks, 0 for none), every one dated the same second.
	commit := func(branch string, from, merge int) int {
		mark++
		fmt.Fprintf(&stream, "commit refs/heads/%s\nmark :%d\ncommitter T <t@example.com> 1704067200 +0000\ndata 1\nc\n", branch, mark)
		if from > 0 {
			fmt.Fprintf(&stream, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(&stream, "merge :%d\n", merge)
		}
		fmt.Fprintf(&stream, "M 100644 inline f%d\ndata 1\n%d\n", mark, mark%10)
		return mark
	}
	b := commit("main", 0, 0)
	p := commit("main", b, 0)
	x := commit("side", p, 0)
	z := commit("side", x, 0)
	y := commit("main", p, 0)
	commit("main", y, z)
	cmd := exec.Command(testenv.Git(t), "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = r.Dir, strings.NewReader(stream.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	repo, err := git.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	h, err := repo.History(context.Background(), "main", git.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rev := func(spec string) string { return r.Git("rev-parse", spec) }
	pH, xH, zH := rev("main^2~2"), rev("main^2~1"), rev("main^2")
	for _, tc := range []struct {
		a, b string
		want bool
	}{{pH, zH, true}, {xH, zH, true}, {zH, xH, false}} {
		got, err := h.IsAncestor(tc.a, tc.b)
		want, _ := repo.IsAncestor(tc.a, tc.b)
		if err != nil || got != tc.want || want != tc.want {
			t.Errorf("History.IsAncestor(%.7s, %.7s) = %v, %v; Repo.IsAncestor %v; want %v (walk topological: %v)", tc.a, tc.b, got, err, want, tc.want, h.Topological())
		}
	}
}
