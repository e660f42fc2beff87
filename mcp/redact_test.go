package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedactValue(t *testing.T) {
	t.Parallel()
	pw := "correct-" + "horse-battery" // assembled so the source holds no secret literal
	gh := "ghp_" + strings.Repeat("a1B2", 9)
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
		{name: "numbers under password and key families", in: `{"db":{"user":"admin","password":84736251937,"pin":4321,"apiKey":12.5,"sessionId":7,"secret":{"old":1234,"on":true}}}`,
			want: `{"db":{"apiKey":"[REDACTED]","password":"[REDACTED]","pin":4321,"secret":{"old":"[REDACTED]","on":true},"sessionId":7,"user":"admin"}}`},
		{name: "a key that holds a token", in: `{"tokens":{"` + gh + `":"ci bot"},"n":1}`, want: `{"n":1,"tokens":{"[REDACTED]":"ci bot"}}`},
		{name: "keys that redact alike stay apart", in: `{"` + gh + `":"a","` + gh + `x":"b","[REDACTED]":"c","password=` + pw + `":"d"}`,
			want: `{"[REDACTED]":"c","[REDACTED] (2)":"a","[REDACTED] (3)":"b","password=[REDACTED]":"d"}`},
		{name: "a key that holds a token under a sensitive key", in: `{"token":{"` + gh + `":"x"}}`, want: `{"token":{"[REDACTED]":"[REDACTED]"}}`},
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

// TestSensitiveKeyFamilies: each key family, in case and separator
// variants, at any depth, is redacted in structuredContent (a value) and in
// text that is JSON, also when that JSON sits in a string (escaped).
func TestSensitiveKeyFamilies(t *testing.T) {
	t.Parallel()
	keys := []string{
		"password", "PASSWORD", "db_password", "passwordHash", "password_hash", "Password-Hash", "pwHash",
		"session", "sessionId", "session_id", "SESSION-ID", "Session.Key", "cookie", "Set-Cookie", "cookies",
		"authorization", "Authorization", "connectionString", "connection_string", "Connection-String", "CONNECTION_STRING",
		"connStr", "conn_str", "dsn", "credentials", "credential", "apiKey", "api_key", "access-token", "privateKey", "clientSecret",
	}
	for _, k := range keys {
		t.Run(k, func(t *testing.T) {
			t.Parallel()
			const secret = "v4lue-that-must-go"
			doc := map[string]any{"outer": []any{map[string]any{k: secret, "kept": "visible"}}}
			for name, got := range map[string]string{
				"value":         mustJSON(t, redactValue(roundTrip(t, doc))),
				"json text":     redactText(mustJSON(t, doc)),
				"indented json": redactText(mustIndent(t, doc)),
				"escaped":       redactText(mustJSON(t, map[string]any{"note": mustJSON(t, doc)})),
				"fenced":        redactText("entry\n```json\n" + mustIndent(t, doc) + "\n```\n"),
			} {
				if strings.Contains(got, secret) || !strings.Contains(got, "visible") {
					t.Errorf("%s: %s", name, got)
				}
			}
		})
	}
}

// TestSensitiveKeysMatchTextKeys: every key whose value package secrets
// redacts in an assignment (key="value") is a sensitive key of structured
// data too, so an artifact's JSON hides what the same line of text hides.
func TestSensitiveKeysMatchTextKeys(t *testing.T) {
	t.Parallel()
	keys := []string{
		"password", "passwd", "passphrase", "pwd", "DB_PWD", "secret", "api_key", "apikey", "access_key", "accessKey",
		"access_token", "auth_token", "refresh_token", "client_secret", "private_key", "account_key", "accountKey",
		"storage_account_key", "AccountKey", "token", "password_hash", "pw_hash", "session", "session_id", "session_key",
		"cookie", "set_cookie", "credential", "credentials", "authorization", "connection_string", "conn_str", "dsn",
	}
	const secret = "v4lue-that-must-go"
	for _, k := range keys {
		if got := redactText(k + `="` + secret + `"`); strings.Contains(got, secret) {
			t.Errorf("text %s=: the text detector does not know this key (%s); drop it from the table", k, got)
		}
		if got := mustJSON(t, redactValue(map[string]any{k: secret})); strings.Contains(got, secret) {
			t.Errorf("structured key %q: %s", k, got)
		}
	}
}

// TestRedactTextKeepsCleanText: text with nothing to hide comes back byte
// for byte, JSON formatting included.
func TestRedactTextKeepsCleanText(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain", "{\n    \"a\": 1,  \"tokens\": 3\n}\n", "x\n```json\n{\"b\":[1,2]}\n```\n", "{broken"} {
		if got := redactText(s); got != s {
			t.Errorf("redactText(%q) = %q", s, got)
		}
	}
	if got := redactText("{\n    \"token\": \"abcdefgh\"\n}\n"); got != "{\n    \"token\": \"[REDACTED]\"\n}\n" {
		t.Errorf("indentation not kept: %q", got)
	}
}

// TestRedactTextWideIndentation: a document's indentation is kept only
// where it adds at most jsonindent.MaxAdded bytes. A committed text 1 MiB
// indented, nested 1,000 deep, would come back 500 GB long; it comes back
// compact.
func TestRedactTextWideIndentation(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	text := "{\n" + strings.Repeat(" ", 1<<20) + `"token": "abcdefgh", "deep": ` + deep + "}\n"
	want := `{"deep":` + deep + `,"token":"[REDACTED]"}` + "\n"
	if got := redactText(text); got != want {
		t.Errorf("redactText gave %d bytes in %d lines, want the document compact on one line", len(got), strings.Count(got, "\n"))
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(mustJSON(t, v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustIndent(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzRedactText: any text redacts without a panic; a JSON document stays
// a JSON document; a secret the redactor found once is not found again.
func FuzzRedactText(f *testing.F) {
	for _, s := range []string{"", "{}", `{"token": "abcdefgh"}`, "x\n```json\n{\"password\":\"p\"}\n```\n", `{"q": "password: \"X1y2z3\""}`, "[1, {\"a\": [\"b\"]}]", "```json\n{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := redactText(s)
		if isJSONDoc(s) && !json.Valid([]byte(strings.TrimSpace(out))) {
			t.Fatalf("redactText(%q) = %q: no longer JSON", s, out)
		}
		if again := redactText(out); again != out {
			t.Fatalf("redactText is not stable: %q -> %q -> %q", s, out, again)
		}
	})
}

// TestSelfRedactedResults checks the result types whose handlers redact
// their answers themselves (Output.Redacted), skipping the server's
// encode, decode and walk: redactValue would also hide every string under
// a sensitive key whatever it holds, which redacting each string as text
// does not, so none of their keys, at any depth, may be sensitive; and
// their fields must be in key order, so that the answer keeps the bytes of
// the sorted map the server encoded before.
func TestSelfRedactedResults(t *testing.T) {
	t.Parallel()
	for _, v := range []any{memorySearchResult{}, memoryWriteResult{}} {
		seen := map[reflect.Type]bool{}
		var walk func(typ reflect.Type)
		walk = func(typ reflect.Type) {
			for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
				typ = typ.Elem()
			}
			if typ.Kind() != reflect.Struct || seen[typ] {
				return
			}
			seen[typ] = true
			var keys []string
			for f := range typ.Fields() {
				key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if key == "" || key == "-" {
					t.Errorf("%s.%s: no JSON key", typ, f.Name)
					continue
				}
				if sensitiveKey(key) {
					t.Errorf("%s.%s: key %q is one redaction hides whatever it holds", typ, f.Name, key)
				}
				keys = append(keys, key)
				walk(f.Type)
			}
			if !slices.IsSorted(keys) {
				t.Errorf("%s: keys %q are not in order", typ, keys)
			}
		}
		walk(reflect.TypeOf(v))
	}
}
