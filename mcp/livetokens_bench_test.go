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
