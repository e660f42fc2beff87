package git

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/git/gittest"
)

// lsFiles lists the index as git ls-files --stage does, the reference.
func lsFiles(t *testing.T, r *gittest.Repo) []indexRecord {
	t.Helper()
	var out []indexRecord
	for rec := range strings.SplitSeq(r.Git("ls-files", "--stage", "-z"), "\x00") {
		if rec == "" {
			continue
		}
		meta, name, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		mode, err := filemode.New(f[0])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, indexRecord{Name: name, Hash: f[1], Mode: mode, Stage: int(f[2][0] - '0')})
	}
	return out
}

// TestSplitIndexMatchesGit reads split indexes git wrote — shared entries
// replaced, deleted, added to, a conflict, version 4 — and checks the
// entries against git ls-files and the staged changes against those of the
// same index once git has unsplit it.
func TestSplitIndexMatchesGit(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "4"} {
		t.Run("version "+version, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Git("config", "index.version", version)
			for i := range 30 {
				r.Write("a/f"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".json", "v1")
			}
			r.Write("c/conflict", "base\n")
			r.CommitAll("base")
			r.Git("checkout", "-q", "-b", "other")
			r.Write("c/conflict", "other\n")
			r.CommitAll("other")
			r.Git("checkout", "-q", "main")
			r.Write("c/conflict", "main\n")
			r.CommitAll("main")
			r.Git("config", "core.splitIndex", "true")
			r.Git("config", "splitIndex.maxPercentChange", "100")
			r.Git("update-index", "--split-index")
			if out, err := r.TryGit("merge", "-q", "other"); err == nil || !strings.Contains(err.Error(), "CONFLICT") {
				t.Fatalf("the merge did not conflict: %s %v", out, err)
			}
			r.Write("a/fc.json", "v2") // replaced
			r.Git("add", "a/fc.json")
			r.Git("rm", "-q", "--cached", "a/fe.json") // deleted
			r.Git("update-index", "--chmod=+x", "a/fg.json")
			r.Write("b/new.json", "new") // added
			r.Write("a/fcc.json", "added between shared ones")
			r.Git("add", "b/new.json", "a/fcc.json")

			data, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			part, link, err := parseIndexParts(data)
			if err != nil || link == nil || len(link) == indexHashLen || part.len() == 0 {
				t.Fatalf("git wrote no split index with bitmaps and entries: link %d bytes, %v", len(link), err)
			}
			repo, err := Open(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			x, err := repo.ReadIndex()
			if err != nil {
				t.Fatal(err)
			}
			got := recordsOf(x.ix)
			for i := range got {
				got[i].IntentToAdd, got[i].SkipWorktree = false, false
			}
			if diff := cmp.Diff(lsFiles(t, r), got); diff != "" {
				t.Errorf("entries (-git ls-files +split index):\n%s", diff)
			}
			split, err := x.StagedChanges("")
			if err != nil {
				t.Fatal(err)
			}
			r.Git("update-index", "--no-split-index")
			whole, err := repo.StagedChanges("")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(whole, split); diff != "" || len(split) < 5 {
				t.Errorf("StagedChanges %v (-unsplit +split):\n%s", split, diff)
			}
		})
	}
}

// TestSplitIndexRejects checks damaged split indexes: each is an
// ErrIndexUnsupported naming the split index, never a panic or a misread.
func TestSplitIndexRejects(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a", "1")
	r.Write("b", "2")
	r.CommitAll("base")
	r.Git("update-index", "--split-index")
	r.Write("a", "changed")
	r.Git("add", "a")
	data, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	part, link, err := parseIndexParts(data)
	if err != nil || link == nil {
		t.Fatalf("no split index: %v", err)
	}
	shared, err := os.ReadFile(filepath.Join(r.Dir, ".git", "sharedindex."+hexOf(link[:indexHashLen])))
	if err != nil {
		t.Fatal(err)
	}
	load := func(b []byte) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return b, nil }
	}
	if _, err := readSplitIndex(part, link, load(shared)); err != nil {
		t.Fatalf("the well-formed sample is declined: %v", err)
	}
	tamper := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(link)) }
	for _, tc := range []struct {
		name   string
		link   []byte
		shared []byte
		err    error
	}{
		{"missing shared file", link, nil, os.ErrNotExist},
		{"another shared file", link, append(bytes.Clone(shared[:len(shared)-1]), shared[len(shared)-1]^1), nil},
		{"short link", link[:10], shared, nil},
		{"truncated bitmap", link[:len(link)-2], shared, nil},
		{"bitmap past the shared entries", tamper(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[indexHashLen:], 1000)
			return b
		}), shared, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := func(string) ([]byte, error) {
				if tc.shared == nil {
					return nil, tc.err
				}
				return tc.shared, nil
			}
			_, err := readSplitIndex(part, tc.link, l)
			if !errors.Is(err, ErrIndexUnsupported) || !strings.Contains(err.Error(), "a split index (core.splitIndex)") {
				t.Errorf("readSplitIndex = %v; want ErrIndexUnsupported naming the split index", err)
			}
		})
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	var s strings.Builder
	for _, c := range b {
		s.WriteByte(digits[c>>4])
		s.WriteByte(digits[c&15])
	}
	return s.String()
}

// FuzzSplitIndex feeds arbitrary link payloads and shared files to the
// merge: it must never panic, and fail only with ErrIndexUnsupported.
func FuzzSplitIndex(f *testing.F) {
	r := gittest.New(f)
	r.Write("a", "1")
	r.Write("b", "2")
	r.CommitAll("base")
	r.Git("update-index", "--split-index")
	r.Write("a", "changed")
	r.Git("add", "a")
	r.Git("rm", "-q", "--cached", "b")
	data, err := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	if err != nil {
		f.Fatal(err)
	}
	part, link, err := parseIndexParts(data)
	if err != nil || link == nil {
		f.Fatalf("no split index: %v", err)
	}
	shared, err := os.ReadFile(filepath.Join(r.Dir, ".git", "sharedindex."+hexOf(link[:indexHashLen])))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(link, shared)
	f.Add(link[:indexHashLen], shared)
	f.Fuzz(func(t *testing.T, link, shared []byte) {
		_, err := readSplitIndex(part, link, func(string) ([]byte, error) { return shared, nil })
		if err != nil && !errors.Is(err, ErrIndexUnsupported) {
			t.Fatalf("readSplitIndex error %v is not ErrIndexUnsupported", err)
		}
	})
}

// TestSplitIndexBesideIndexFile checks that, as in git, a shared file
// missing from the git folder is looked for beside GIT_INDEX_FILE. It sets
// the environment, so it cannot run in parallel.
func TestSplitIndexBesideIndexFile(t *testing.T) {
	r := gittest.New(t)
	r.Write("a", "1")
	r.CommitAll("base")
	r.Git("update-index", "--split-index")
	r.Write("b", "2")
	r.Git("add", "b")
	moved := t.TempDir()
	shared, err := filepath.Glob(filepath.Join(r.Dir, ".git", "sharedindex.*"))
	if err != nil || len(shared) == 0 {
		t.Fatalf("shared index files: %v, %v", shared, err)
	}
	for _, p := range append(shared, filepath.Join(r.Dir, ".git", "index")) {
		if err := os.Rename(p, filepath.Join(moved, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GIT_INDEX_FILE", filepath.Join(moved, "index"))
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := repo.StagedChanges("")
	if err != nil || len(got) != 1 || got[0] != (Change{Path: "b", Kind: Added}) {
		t.Errorf("StagedChanges = %v, %v; want b added", got, err)
	}
}
