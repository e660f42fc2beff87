package git_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/git/gittest"
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
	}
	if _, err := repo.Parents("not-a-hash"); err == nil {
		t.Error("Parents of a bad hash succeeded")
	}
}
