package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedactValue(t *testing.T) {
	t.Parallel()
	pw := "correct-" + "horse-battery" // assembled so the source holds no secret literal
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "sensitive keys", in: `{"password":"` + pw + `","db_password":"x","apiKey":"k","access-token":"t","privateKey":"p","connectionString":"c","clientSecret":"s"}`,
			want: `{"access-token":"[REDACTED]","apiKey":"[REDACTED]","clientSecret":"[REDACTED]","connectionString":"[REDACTED]","db_password":"[REDACTED]","password":"[REDACTED]","privateKey":"[REDACTED]"}`},
		{name: "counts and non-strings stay", in: `{"tokens":1980,"indexTokens":"~1980","token":12,"password":null,"secret":""}`,
			want: `{"indexTokens":"~1980","password":null,"secret":"","token":12,"tokens":1980}`},
		{name: "secrets inside free text", in: `{"body":"connect with postgres://u:` + pw + `@h/db","list":["password=` + pw + `"]}`,
			want: `{"body":"connect with postgres://u:[REDACTED]@h/db","list":["password=[REDACTED]"]}`},
		{name: "nested", in: `{"a":[{"b":{"token":"zzz"}}]}`, want: `{"a":[{"b":{"token":"[REDACTED]"}}]}`},
		{name: "scalar string", in: `"password=` + pw + `"`, want: `"password=[REDACTED]"`},
		{name: "plain text untouched", in: `{"title":"Persistence layer uses Flyway, not Liquibase"}`, want: `{"title":"Persistence layer uses Flyway, not Liquibase"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v any
			if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(redactValue(v))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("redactValue (-want +got):\n%s", diff)
			}
		})
	}
}
