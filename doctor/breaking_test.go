package doctor_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/doctor"
)

func TestBreakingChanges(t *testing.T) {
	t.Parallel()
	const base = `{"type":"object","additionalProperties":false,"required":["schema","id"],
		"properties":{"schema":{"const":"note.v1"},"id":{"type":"string","pattern":"^N-[0-9]+$"},
		"severity":{"enum":["high","low"]},"title":{"type":"string","maxLength":80},
		"score":{"type":"number","minimum":0,"maximum":10},"tags":{"type":"array","items":{"type":"string"}}}}`
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"identical", base, base, nil},
		{
			name: "new optional property, widened bound, new enum value, description",
			old:  base,
			new: `{"type":"object","additionalProperties":false,"required":["schema","id"],"description":"x",
				"properties":{"schema":{"const":"note.v1"},"id":{"type":"string","pattern":"^N-[0-9]+$"},
				"severity":{"enum":["high","low","info"]},"title":{"type":"string","maxLength":120},
				"score":{"type":"number","minimum":-1,"maximum":10},"tags":{"type":"array","items":{"type":"string"}},
				"notes":{"type":"string"}}}`,
		},
		{
			name: "new required property",
			old:  base,
			new: `{"type":"object","additionalProperties":false,"required":["schema","id","owner"],
				"properties":{"schema":{"const":"note.v1"},"id":{"type":"string","pattern":"^N-[0-9]+$"},
				"severity":{"enum":["high","low"]},"title":{"type":"string","maxLength":80},
				"score":{"type":"number","minimum":0,"maximum":10},"tags":{"type":"array","items":{"type":"string"}},
				"owner":{"type":"string"}}}`,
			want: []string{`#: new required property "owner"`},
		},
		{
			name: "narrowed enum and bounds, tightened pattern, removed property",
			old:  base,
			new: `{"type":"object","additionalProperties":false,"required":["schema","id"],
				"properties":{"schema":{"const":"note.v1"},"id":{"type":"string","pattern":"^N-[0-9]{3}$"},
				"severity":{"enum":["high"]},"title":{"type":"string","maxLength":40,"minLength":1},
				"score":{"type":"integer","minimum":1,"maximum":5}}}`,
			want: []string{
				`#/properties/id: tightened pattern from "^N-[0-9]+$" to "^N-[0-9]{3}$" (may reject values the old one accepted)`,
				`#/properties/score: narrowed type from "number" to "integer"`,
				`#/properties/score: raised minimum from 0 to 1`,
				`#/properties/score: lowered maximum from 10 to 5`,
				`#/properties/severity: narrowed enum: removed "low"`,
				`#: removed property "tags"`,
				`#/properties/title: new minLength 1`,
				`#/properties/title: lowered maxLength from 80 to 40`,
			},
		},
		{
			name: "nested items and additional properties",
			old:  `{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"ref":{"type":"string"}}}}}}`,
			new:  `{"type":"object","additionalProperties":false,"properties":{"list":{"type":"array","uniqueItems":true,"items":{"type":"object","required":["ref"],"properties":{"ref":{"type":"string","format":"uri"}}}}}}`,
			want: []string{
				`#/properties/list: items must now be unique`,
				`#/properties/list/items: new required property "ref"`,
				`#/properties/list/items/properties/ref: new format "uri"`,
				`#: additional properties are no longer allowed`,
			},
		},
		{
			name: "type from absent, const changed, ref changed, combinators",
			old:  `{"properties":{"a":{"const":1},"b":{"$ref":"x.v1.defs.json"},"c":{"anyOf":[{"type":"string"}]}}}`,
			new:  `{"type":["object","null"],"properties":{"a":{"const":2},"b":{"$ref":"y.v1.defs.json"},"c":{"anyOf":[{"type":"number"}]}},"allOf":[{"required":["a"]}]}`,
			want: []string{
				`#: new type ["object","null"]`,
				`#/properties/a: changed const from 1 to 2`,
				`#/properties/b: changed $ref from "x.v1.defs.json" to "y.v1.defs.json"`,
				`#/properties/c: changed anyOf (may reject values the old one accepted)`,
				`#: new allOf entry 0`,
			},
		},
		{
			name: "numbers compare by value in enum and const",
			old:  `{"properties":{"a":{"enum":[1,2.5,[1]]},"b":{"const":{"n":10}}}}`,
			new:  `{"properties":{"a":{"enum":[1.0,2.50,[1.0],3]},"b":{"const":{"n":1e1}}}}`,
		},
		{
			name: "inclusive and exclusive bounds compare together",
			old:  `{"properties":{"a":{"exclusiveMinimum":1},"b":{"maximum":10,"exclusiveMaximum":5},"c":{"minimum":0},"d":{"exclusiveMaximum":3}}}`,
			new:  `{"properties":{"a":{"minimum":1},"b":{"maximum":5},"c":{"exclusiveMinimum":0},"d":{"exclusiveMaximum":2}}}`,
			want: []string{
				`#/properties/c: new exclusiveMinimum 0`,
				`#/properties/d: lowered exclusiveMaximum from 3 to 2`,
			},
		},
		{
			name: "boolean schemas and widened type",
			old:  `{"properties":{"a":true,"b":false,"c":{"type":"integer"}}}`,
			new:  `{"properties":{"a":false,"b":{"type":"string"},"c":{"type":["number","null"]}}}`,
			want: []string{`#/properties/a: now rejects every value`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			changes, err := doctor.BreakingChanges([]byte(tt.old), []byte(tt.new))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, c.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("breaking changes (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := doctor.BreakingChanges([]byte(`{`), []byte(`{}`)); err == nil {
		t.Error("BreakingChanges accepted an old version that is not JSON")
	}
}

func FuzzBreakingChanges(f *testing.F) {
	f.Add([]byte(`{"type":"object","required":["a"]}`), []byte(`{"type":"object","required":["a","b"]}`))
	f.Add([]byte(`{"properties":{"a":{"enum":[1,2]}}}`), []byte(`{"properties":{"a":{"enum":[1]}}}`))
	f.Add([]byte(`true`), []byte(`false`))
	f.Fuzz(func(t *testing.T, o, n []byte) {
		changes, err := doctor.BreakingChanges(o, n)
		if err != nil {
			return
		}
		// A schema compared with itself has no breaking change.
		if same, err := doctor.BreakingChanges(o, o); err == nil && len(same) != 0 {
			t.Errorf("schema compared with itself: %v", same)
		}
		for _, c := range changes {
			if c.Pointer == "" || c.Message == "" {
				t.Errorf("empty pointer or message: %+v", c)
			}
		}
	})
}
