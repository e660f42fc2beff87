package contracts

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// TestExampleValidatesForEveryEmbeddedContract: each embedded contract's
// example is valid against it (Example checks too; this asserts it again
// through Validate and that none of the eleven fails to generate).
func TestExampleValidatesForEveryEmbeddedContract(t *testing.T) {
	reg, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := reg.IDs()
	if len(ids) != 11 {
		t.Fatalf("%d embedded contracts, want 11: %v", len(ids), ids)
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			doc, err := reg.Example(id)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := reg.Validate(id, doc)
			if err != nil || len(vs) > 0 {
				t.Fatalf("example of %s is invalid: %v %v\n%s", id, vs, err, doc)
			}
		})
	}
}

// TestExampleNamesThePointerItCannotSatisfy: a pattern no value tried
// matches is an ErrNoExample naming the pointer, not an invalid example.
func TestExampleNamesThePointerItCannotSatisfy(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"pattern", `{"type":"object","required":["code"],"properties":{"code":{"type":"string","pattern":"^ZZ[0-9]{9}$","maxLength":3}}}`, "at #/code"},
		{"false", `{"type":"object","required":["never"],"properties":{"never":false}}`, "at #/never"},
		{"nested arrays", `{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":64,"items":{"type":"array","minItems":64,"items":{"type":"array","minItems":64,"items":{"type":"string"}}}}}}`, "values"},
		{"huge minLength", `{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":999999999999}}}`, "at #/s: minLength"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{".foundry/schemas/thing.v1.schema.json": {Data: []byte(tt.schema)}}
			reg, err := Load(fsys)
			if err != nil {
				t.Fatal(err)
			}
			_, err = reg.Example("thing.v1")
			if !errors.Is(err, ErrNoExample) {
				t.Fatalf("err = %v, want ErrNoExample", err)
			}
			if got := err.Error(); !strings.Contains(got, tt.want) {
				t.Errorf("err = %q, want it to name %q", got, tt.want)
			}
		})
	}
}
