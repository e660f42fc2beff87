//go:build unix

package confined_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/testenv"
)

// TestLockDirs: a folder locked by LockDirs cannot be locked again until
// released, whichever set of folders names it and in whichever order; a
// folder named twice is locked once (no waiting on oneself); a symbolic
// link is not locked through and a missing folder is an error; and no
// file is created. The second taker's context is already done, so it
// never waits: it gets the locks at once or gives up with ctx.Err().
func TestLockDirs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		holder  []string // locked first; none for no holder
		taker   []string
		wantErr error  // of the taker while the holder holds; nil: it locks at once
		wantMsg string // the error's end, when it has no wantErr
	}{
		{name: "same folder", holder: []string{"a"}, taker: []string{"a"}, wantErr: context.Canceled},
		{name: "overlapping sets, other order", holder: []string{"a", "b"}, taker: []string{"b", "c"}, wantErr: context.Canceled},
		{name: "the same folder by another path", holder: []string{"a"}, taker: []string{"c", "b/../a"}, wantErr: context.Canceled},
		{name: "other folders", holder: []string{"a"}, taker: []string{"b", "c"}},
		{name: "one folder named twice", taker: []string{"a", "b", "a/.", "a"}},
		{name: "a symbolic link to a folder", taker: []string{"link"}, wantMsg: "a symbolic link is not locked through"},
		{name: "missing folder", taker: []string{"a", "missing"}, wantErr: fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, name := range []string{"a", "b", "c"} {
				if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			paths := func(names []string) []string {
				out := make([]string, len(names))
				for i, n := range names {
					out[i] = filepath.Join(dir, filepath.FromSlash(n))
				}
				return out
			}
			before := testenv.Tree(t, dir)
			done, cancel := context.WithCancel(context.Background())
			cancel()
			var release func() error
			if tc.holder != nil {
				var err error
				release, err = confined.LockDirs(context.Background(), paths(tc.holder)...)
				if err != nil {
					t.Fatal(err)
				}
			}
			unlock, err := confined.LockDirs(done, paths(tc.taker)...)
			switch {
			case tc.wantErr == nil && tc.wantMsg == "" && err != nil:
				t.Fatalf("lock: %v", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("lock: %v, want %v", err, tc.wantErr)
			case tc.wantMsg != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.wantMsg)):
				t.Fatalf("lock: %v, want an error ending %q", err, tc.wantMsg)
			case err == nil:
				if err := unlock(); err != nil {
					t.Fatal(err)
				}
			}
			if release != nil {
				if err := release(); err != nil {
					t.Fatal(err)
				}
				// Released, the folders are free again.
				unlock, err := confined.LockDirs(done, paths(tc.taker)...)
				if err != nil {
					t.Fatalf("lock once released: %v", err)
				}
				if err := unlock(); err != nil {
					t.Fatal(err)
				}
			}
			if got := testenv.Tree(t, dir); len(got) != len(before) {
				t.Errorf("files after locking: %q, before: %q", got, before)
			}
		})
	}
}
