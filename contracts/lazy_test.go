package contracts

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"testing"

	"github.com/foundryhq/foundry/schemas"
)

// compiledIDs returns the sorted ids of the set's contracts compiled so
// far (successfully or not).
func (s *set) compiledIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, e := range s.entries {
		if e.schema != nil || e.err != nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// freshRegistry returns a registry over a set of the embedded contracts of
// its own, which no other test compiles into.
func freshRegistry(t *testing.T) (*Registry, *set) {
	t.Helper()
	emb, err := loadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	r, err := loadOver(emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, emb
}

// TestValidateCompilesOnlyItsContract: loading compiles nothing, and
// validating one artifact compiles its contract alone (the shared pieces it
// reaches come with it), once.
func TestValidateCompilesOnlyItsContract(t *testing.T) {
	t.Parallel()
	r, emb := freshRegistry(t)
	if got := emb.compiledIDs(); len(got) != 0 {
		t.Fatalf("after Load, compiled %v, want nothing", got)
	}
	for _, doc := range findingDocs(2) {
		if _, _, err := r.ValidateAuto(doc); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := emb.compiledIDs(), []string{"finding.v1"}; !slices.Equal(got, want) {
		t.Fatalf("after validating findings, compiled %v, want %v", got, want)
	}
}

// TestCompileParsesOnlyReachedFiles: compiling a contract parses the files
// its $refs reach and no other, so a file nothing uses costs nothing (here
// it cannot even be parsed, and the contract still compiles); a contract
// that reaches it fails as an invalid schema.
func TestCompileParsesOnlyReachedFiles(t *testing.T) {
	t.Parallel()
	_, emb := freshRegistry(t)
	emb.files["broken.v1.defs.json"] = &file{b: []byte(`{"type": `)}
	emb.files["uses-broken.v1.schema.json"] = &file{b: []byte(`{"$ref": "broken.v1.defs.json"}`)}
	emb.entries["uses-broken.v1"] = &entry{}
	if _, err := emb.compiled("finding.v1"); err != nil {
		t.Fatalf("compile finding.v1 beside an unparseable file it does not reach: %v", err)
	}
	if _, err := emb.compiled("uses-broken.v1"); !errors.Is(err, ErrInvalidSchema) {
		t.Fatalf("compile a contract reaching an unparseable file: %v, want %v", err, ErrInvalidSchema)
	}
}

// readFiles returns the sorted names of the set's embedded files read so
// far.
func (s *set) readFiles() []string {
	var names []string
	for name, f := range s.files {
		if f.embedded != "" && f.b != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// TestValidateReadsOnlyReachedFiles: loading reads no embedded file, and
// validating findings reads the files of finding.v1 and the shared pieces
// it reaches, no other; the schema and digest of another contract read its
// file then, with the same bytes as the embedded file.
func TestValidateReadsOnlyReachedFiles(t *testing.T) {
	t.Parallel()
	r, emb := freshRegistry(t)
	if got := emb.readFiles(); len(got) != 0 {
		t.Fatalf("after Load, read %v, want nothing", got)
	}
	for _, doc := range findingDocs(2) {
		if _, _, err := r.ValidateAuto(doc); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"actor.v1.defs.json", "evidence.v1.defs.json", "finding.v1.schema.json"}
	if got := emb.readFiles(); !slices.Equal(got, want) {
		t.Fatalf("after validating findings, read %v, want %v", got, want)
	}
	got, err := r.Schema("adr.v1")
	if err != nil {
		t.Fatal(err)
	}
	wantBytes, err := fs.ReadFile(schemas.FS, "adr.v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantBytes) {
		t.Fatalf("Schema(adr.v1) is not the embedded file")
	}
	if _, err := r.Digest("plan.v1"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(emb.readFiles(), "plan.v1.schema.json") {
		t.Fatalf("Digest(plan.v1) did not read its file: read %v", emb.readFiles())
	}
}
