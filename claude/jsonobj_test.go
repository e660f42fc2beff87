package claude

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParseObject checks the order-keeping object on arbitrary settings
// files: it accepts exactly the JSON objects encoding/json accepts, and
// renders them back to the same value.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"b":[1,2],"c":{"d":"<&>"}}`, `{"hooks":{"PostToolUse":[]}}`,
		`[]`, `{"a":1} {}`, `{"a":`, `{"a":1,"a":2}`, "\ufeff{}", `{"\u00e9":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := parseObject(data)
		var want map[string]any
		stdErr := json.Unmarshal(data, &want)
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("parseObject error %v, encoding/json error %v", err, stdErr)
		}
		if err != nil {
			return
		}
		out, err := render(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("rendered %q is not JSON: %v", out, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed the value: %v -> %v", want, got)
		}
	})
}
