package foundry_test

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// TestBinaryHasNoTestCode builds the shipped binary as README.md says to
// (CGO_ENABLED=0, -tags urfave_cli_no_docs) and checks that it is static —
// no C code, so no dynamic loader at start-up — that it links no man-page
// generator, and that its symbol table and strings hold no test pause
// code: no symbol of package internal/testpause and not the environment
// variable it reads.
func TestBinaryHasNoTestCode(t *testing.T) {
	t.Parallel()
	goBin := testenv.Exec(t, "go")
	bin := filepath.Join(t.TempDir(), "foundry")
	build := exec.Command(goBin, "build", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/foundry")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build -tags urfave_cli_no_docs: %v\n%s", err, out)
	}
	if f, err := elf.Open(bin); err == nil {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("the CGO_ENABLED=0 binary asks for a dynamic loader (PT_INTERP); a dependency brought in C code")
			}
		}
		f.Close()
	}
	nm, err := exec.Command(goBin, "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !bytes.Contains(nm, []byte("internal/pause.hook")) {
		t.Fatal("symbol table lacks internal/pause.hook; is this check still looking at the right binary?")
	}
	for _, bad := range []string{"internal/testpause", "internal/testenv", "internal/pause.Install", "russross/blackfriday", "cpuguy83/go-md2man"} {
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
