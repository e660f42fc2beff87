package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
)

// TestLiveTokensSettled: files changed long after they were read (their
// stamps settled, so each call trusts a stat) are seen changed by the
// stat alone: a config, a token file, and the file a linked config
// leads to, whose link itself does not change.
func TestLiveTokensSettled(t *testing.T) {
	t.Parallel()
	entry := func(name string) string {
		sum := sha256.Sum256([]byte(name + "-token-0123456789"))
		return "{name: " + name + ", sha256: " + hex.EncodeToString(sum[:]) + "}"
	}
	tests := []struct {
		name   string
		linked bool // .foundry/config.yaml a link to .foundry/real.yaml
		file   bool // the tokens in a token file
	}{
		{name: "config"},
		{name: "token file", file: true},
		{name: "linked config", linked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".foundry"), 0o755); err != nil {
				t.Fatal(err)
			}
			tokenFile := filepath.Join(t.TempDir(), "tokens.yaml")
			cfg := filepath.Join(dir, config.Path)
			if tt.linked {
				if err := os.Symlink("real.yaml", cfg); err != nil {
					t.Fatal(err)
				}
				cfg = filepath.Join(dir, ".foundry", "real.yaml")
			}
			write := func(names ...string) {
				t.Helper()
				list := "["
				for i, n := range names {
					if i > 0 {
						list += ", "
					}
					list += entry(n)
				}
				list += "]"
				var err error
				if tt.file {
					err = os.WriteFile(cfg, []byte("mcp:\n  enabled: true\n  http:\n    token_file: "+tokenFile+"\n"), 0o644)
					if err == nil {
						err = os.WriteFile(tokenFile, []byte(list+"\n"), 0o600)
					}
				} else {
					err = os.WriteFile(cfg, []byte("mcp:\n  enabled: true\n  http:\n    tokens: "+list+"\n"), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			write("alice")
			root, err := confined.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			l := newLiveTokens(DaemonOptions{Root: root, Worktree: dir}, nil)
			// An hour on: every file written now has settled.
			l.now = func() time.Time { return time.Now().Add(time.Hour) }
			names := func() []string {
				t.Helper()
				toks, _, err := l.current()
				if err != nil {
					t.Fatal(err)
				}
				return tokenNames(toks)
			}
			if got := names(); len(got) != 1 || got[0] != "alice" {
				t.Fatalf("tokens %v, want alice", got)
			}
			if _, changed, _ := l.current(); changed {
				t.Errorf("unchanged files: changed")
			}
			write("alice", "bob")
			if got := names(); len(got) != 2 {
				t.Errorf("tokens after bob was added to settled files: %v, want alice and bob", got)
			}
			write("carol")
			if got := names(); len(got) != 1 || got[0] != "carol" {
				t.Errorf("tokens after alice and bob were revoked: %v, want carol", got)
			}
		})
	}
}

// BenchmarkLiveTokens is what the daemon's live tokens add to each
// request when the files have not changed: a stat of the config and of
// the token file.
func BenchmarkLiveTokens(b *testing.B) {
	dir := b.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".foundry"), 0o755); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "tokens.yaml")
	if err := os.WriteFile(file, []byte("- {name: ci, sha256: "+hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte("ci-token-0123456789")); return s[:] }())+"}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg := filepath.Join(dir, config.Path)
	if err := os.WriteFile(cfg, []byte("mcp:\n  enabled: true\n  http:\n    token_file: "+file+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // settled: not read again
	for _, f := range []string{cfg, file} {
		if err := os.Chtimes(f, old, old); err != nil {
			b.Fatal(err)
		}
	}
	root, err := confined.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	l := newLiveTokens(DaemonOptions{Root: root, Worktree: dir}, nil)
	if toks, _, err := l.current(); err != nil || len(toks) != 1 {
		b.Fatalf("current = %v, %v", toks, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, changed, err := l.current(); err != nil || changed {
			b.Fatalf("current: changed %v, %v", changed, err)
		}
	}
}
