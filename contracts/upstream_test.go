package contracts

import (
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// TestViolationLocationsNotAliased shows that the library still reports a
// propertyNames problem at a later sibling's location (array items, so the
// order is fixed; the case of upstream pull request #269's own test), which is why
// repairLocations exists (see its comment for the upstream bug). When this
// test fails after an upgrade, the library copies the location itself:
// delete repairLocations and relocate, and this test.
func TestViolationLocationsNotAliased(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t, `{"properties": {"a": {"properties": {"b": {"properties": {"arr": {"items": {"propertyNames": {"maxLength": 3}}}}}}}}}`)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"a": {"b": {"arr": [{"long": 1}, {"ok": 1}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var verr *jsonschema.ValidationError
	if !errors.As(sch.Validate(inst), &verr) {
		t.Fatal("the instance validates")
	}
	var found []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if _, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			found = append(found, "/"+strings.Join(e.InstanceLocation, "/"))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(verr)
	if len(found) != 1 || found[0] != "/a/b/arr/1" {
		t.Fatalf("the library reports the propertyNames problem at %v, not at the aliased /a/b/arr/1: the upstream bug is fixed; remove repairLocations", found)
	}
	// And the repair puts it back where it belongs.
	vs := violationsOf(sch.Validate(inst), inst, nil)
	if len(vs) != 1 || vs[0].Pointer != "#/a/b/arr/0" {
		t.Errorf("violations after repair = %v, want one at #/a/b/arr/0", vs)
	}
	// The repair also holds for siblings visited in map order, whichever
	// comes first.
	sch2 := compileSchema(t, `{"properties": {"pn": {"propertyNames": {"maxLength": 3}}, "z": {}}}`)
	inst2, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"pn": {"long": 1}, "z": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 64 {
		if vs := violationsOf(sch2.Validate(inst2), inst2, nil); len(vs) != 1 || vs[0].Pointer != "#/pn" {
			t.Fatalf("violations after repair = %v, want one at #/pn", vs)
		}
	}
}

// compileSchema compiles one schema document with the library alone.
func compileSchema(t *testing.T, doc string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	schema, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("mem://s.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://s.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
