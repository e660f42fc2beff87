package contracts

import (
	"path"
	"testing"
)

// TestIsLocalFile: the names Load reads from LocalDir are the names its
// globs match.
func TestIsLocalFile(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"note.v1.schema.json": true, "common.v1.defs.json": true, "Bad.schema.json": true,
		".schema.json": true, "note.v1.json": false, "note.v1.schema.json.bak": false, "README.md": false,
	} {
		if got := IsLocalFile(name); got != want {
			t.Errorf("IsLocalFile(%q) = %v, want %v", name, got, want)
		}
		contract, err := path.Match("*"+contractSuffix, name)
		if err != nil {
			t.Fatal(err)
		}
		defs, _ := path.Match("*"+defsSuffix, name)
		if globbed := contract || defs; globbed != want {
			t.Errorf("IsLocalFile(%q) = %v, but Load's globs match it: %v", name, want, globbed)
		}
	}
}
