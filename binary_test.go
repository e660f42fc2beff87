package foundry_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// TestBinaryHasNoTestCode builds the shipped binary and checks that its
// symbol table and strings hold no test pause code: no symbol of package
// internal/testpause and not the environment variable it reads.
func TestBinaryHasNoTestCode(t *testing.T) {
	t.Parallel()
	goBin := testenv.Exec(t, "go")
	bin := filepath.Join(t.TempDir(), "foundry")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/foundry")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	nm, err := exec.Command(goBin, "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !bytes.Contains(nm, []byte("internal/pause.hook")) {
		t.Fatal("symbol table lacks internal/pause.hook; is this check still looking at the right binary?")
	}
	for _, bad := range []string{"internal/testpause", "internal/testenv", "internal/pause.Install"} {
		if bytes.Contains(nm, []byte(bad)) {
			t.Errorf("the shipped binary's symbol table names %s", bad)
		}
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("FOUNDRY_TEST_PAUSE")) {
		t.Error("the shipped binary contains the string FOUNDRY_TEST_PAUSE")
	}
}
