package contracts

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/schemas"
)

func TestValidIDAndParseFileName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in     string
		wantID bool
	}{{"finding.v1", true}, {"tracker-item.v12", true}, {"Finding.v1", false}, {"finding", false}, {"-x.v1", false}, {"finding.v1.schema.json", false}} {
		if got := ValidID(tt.in); got != tt.wantID {
			t.Errorf("ValidID(%q) = %v, want %v", tt.in, got, tt.wantID)
		}
	}
	for _, tt := range []struct {
		in   string
		want FileName
		ok   bool
	}{
		{"finding.v1.schema.json", FileName{"finding", 1, "schema"}, true},
		{"evidence.v2.defs.json", FileName{"evidence", 2, "defs"}, true},
		{"finding.v1.json", FileName{}, false},
		{"Finding.v1.schema.json", FileName{}, false},
		{"x.v99999999999999999999.schema.json", FileName{}, false},
	} {
		got, ok := ParseFileName(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseFileName(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestIDPatternInSchemas keeps the contract-id pattern that embedded schemas
// spell in JSON equal to the one ValidID uses.
func TestIDPatternInSchemas(t *testing.T) {
	t.Parallel()
	pattern := regexp.MustCompile(`"pattern": "(\^\[a-z0-9\][^"]*\\\\\.v[^"]*)"`)
	found := 0
	err := fs.WalkDir(schemas.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(schemas.FS, name)
		if err != nil {
			return err
		}
		for _, m := range pattern.FindAllStringSubmatch(string(b), -1) {
			found++
			if got := strings.ReplaceAll(m[1], `\\`, `\`); got != "^"+idPattern+"$" {
				t.Errorf("%s: pattern %s, want ^%s$", name, got, idPattern)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no contract-id pattern found in the embedded schemas; is the search still right?")
	}
}
