package confined_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestDigest: Digest hashes a regular file of any size, past the root's
// size limit, and reports none for a missing file, a folder, or a link
// that leads out of the root.
func TestDigest(t *testing.T) {
	t.Parallel()
	root, secret := project(t)
	small := []byte("# Memory index\n")
	large := bytes.Repeat([]byte("x"), int(confined.ArtifactMax)+1)
	for name, b := range map[string][]byte{"INDEX.md": small, "large.json": large} {
		if err := os.WriteFile(filepath.Join(root, ".foundry", "memory", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, secret, filepath.Join(root, ".foundry", "memory", "out.md"))
	r := open(t, root)
	for _, tt := range []struct {
		name string
		want []byte // nil: no digest
	}{
		{".foundry/memory/INDEX.md", small},
		{".foundry/memory/large.json", large},
		{".foundry/memory/missing.md", nil},
		{".foundry/memory", nil},
		{".foundry/memory/out.md", nil},
	} {
		sum, ok := confined.Digest(r.FS(), tt.name)
		switch {
		case tt.want == nil && ok:
			t.Errorf("Digest(%s) = %x, want none", tt.name, sum)
		case tt.want != nil && (!ok || sum != sha256.Sum256(tt.want)):
			t.Errorf("Digest(%s) = %x, %v, want the file's sha256", tt.name, sum, ok)
		}
	}
}
