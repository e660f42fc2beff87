package contracts

import (
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// TestViolationLocationsNotAliased shows that the library still reports a
// propertyNames problem at a later sibling's location, which is why
// repairLocations exists (see its comment for the upstream bug). When this
// test fails after an upgrade, the library copies the location itself:
// delete repairLocations and relocate, and this test.
func TestViolationLocationsNotAliased(t *testing.T) {
	t.Parallel()
	c := jsonschema.NewCompiler()
	schema, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"properties": {"pn": {"propertyNames": {"maxLength": 3}}, "z": {}}}`))
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
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"pn": {"long": 1}, "z": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	// The library visits the properties in map order, so the aliased
	// location shows only when z comes after pn: try until it does.
	var found []string
	aliased := false
	for range 64 {
		var verr *jsonschema.ValidationError
		if !errors.As(sch.Validate(inst), &verr) {
			t.Fatal("the instance validates")
		}
		found = found[:0]
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
		if len(found) == 1 && found[0] == "/z" {
			aliased = true
			break
		}
	}
	if !aliased {
		t.Fatalf("the library reports the propertyNames problem at %v, never at the aliased /z: the upstream bug is fixed; remove repairLocations", found)
	}
	// And the repair puts it back where it belongs, in either order.
	for range 64 {
		vs := violationsOf(sch.Validate(inst), inst, nil)
		if len(vs) != 1 || vs[0].Pointer != "#/pn" {
			t.Fatalf("violations after repair = %v, want one at #/pn", vs)
		}
	}
}
