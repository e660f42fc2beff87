// This file defines the one redactor every answer passes through: tool
// text and structuredContent, resources/read, resource names, progress and
// log messages, and the audit log.

package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/internal/jsonindent"
	"github.com/foundryhq/foundry/internal/secrets"
)

// numberKeys are the endings of object keys (lowercased, without "_", "-",
// "." and spaces) whose values are secrets whatever they look like, numbers
// too (a numeric password or API key): "password", "db_password",
// "apiKey", "privateKey", "passwordHash", "accountKey", "DB_PWD".
var numberKeys = []string{
	"password", "passwd", "passphrase", "pwd", "passwordhash", "pwhash", "secret", "apikey", "accesskey",
	"accountkey", "privatekey", "credential", "credentials", "sessionkey",
}

// textKeys are the endings of the other keys whose strings are secrets:
// "access-token", "sessionId", "Set-Cookie", "Authorization",
// "connection_string", "connStr". A number under them is a count or an
// id; "tokens" (a count) does not match "token".
var textKeys = []string{
	"token", "connectionstring", "connstring", "connstr", "dsn", "session", "sessionid", "cookie", "cookies", "authorization",
}

var keyFolder = strings.NewReplacer("_", "", "-", "", ".", "", " ", "")

// secrecy is what a key makes of the values below it.
type secrecy uint8

const (
	public     secrecy = iota
	textSecret         // its strings are secrets
	anySecret          // its strings and numbers are secrets
)

// keySecrecy returns the secrecy a key gives the values below it. The two
// lists together cover every key package secrets redacts in a key="value"
// assignment (TestSensitiveKeysMatchTextKeys).
func keySecrecy(k string) secrecy {
	k = strings.ToLower(keyFolder.Replace(k))
	hasSuffix := func(s string) bool { return strings.HasSuffix(k, s) }
	switch {
	case slices.ContainsFunc(numberKeys, hasSuffix):
		return anySecret
	case slices.ContainsFunc(textKeys, hasSuffix):
		return textSecret
	}
	return public
}

func sensitiveKey(k string) bool { return keySecrecy(k) != public }

// redactValue returns a copy of a decoded JSON value with secrets
// replaced by [secrets.Placeholder]: every string under a sensitive key
// (at any depth below it), every number under one of the password and key
// families ([numberKeys]), and every secret found in any other string or
// in a key, which is redacted as text (see [redactText]). Booleans and
// null, and values of other Go types, are returned unchanged.
func redactValue(v any) any {
	out, _ := redactIn(v, public)
	return out
}

// redactIn redacts v; under is the secrecy of the keys above it. It
// reports whether anything changed.
func redactIn(v any, under secrecy) (any, bool) {
	switch v := v.(type) {
	case string:
		if under != public {
			if v == "" {
				return v, false
			}
			return secrets.Placeholder, v != secrets.Placeholder
		}
		r := redactText(v)
		return r, r != v
	case json.Number, float64:
		if under == anySecret {
			return secrets.Placeholder, true
		}
		return v, false
	case map[string]any:
		out := make(map[string]any, len(v))
		changed := false
		var secretKeys [][2]string // a key that holds a secret, and as redacted
		for k, e := range v {
			if rk := secrets.Redact(k); rk != k {
				secretKeys = append(secretKeys, [2]string{k, rk})
				continue
			}
			r, c := redactIn(e, max(under, keySecrecy(k)))
			out[k] = r
			changed = changed || c
		}
		// A key that holds a secret is redacted as text; keys that redact
		// alike are told apart, in the order of the keys they were, so
		// that none overwrites another.
		slices.SortFunc(secretKeys, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
		for _, kk := range secretKeys {
			r, _ := redactIn(v[kk[0]], max(under, keySecrecy(kk[0])))
			rk := kk[1]
			for n := 2; ; n++ {
				if _, taken := out[rk]; !taken {
					break
				}
				rk = fmt.Sprintf("%s (%d)", kk[1], n)
			}
			out[rk] = r
			changed = true
		}
		return out, changed
	case []any:
		out := make([]any, len(v))
		changed := false
		for i, e := range v {
			r, c := redactIn(e, under)
			out[i] = r
			changed = changed || c
		}
		return out, changed
	default:
		return v, false
	}
}

// redactText redacts text on its data, not on its spelling: a text that is
// a JSON document, and each ```json fenced block of one that is not, is
// decoded and redacted as a value (so escaping hides nothing and sensitive
// keys count at any depth), then re-encoded when something changed. Any
// other text goes through package secrets.
func redactText(text string) string {
	if isJSONDoc(text) {
		return redactJSONText(text)
	}
	const open, end = "```json\n", "\n```"
	if !strings.Contains(text, open) {
		return secrets.Redact(text)
	}
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			b.WriteString(secrets.Redact(rest))
			return b.String()
		}
		j := strings.Index(rest[i+len(open):], end)
		if j < 0 {
			b.WriteString(secrets.Redact(rest))
			return b.String()
		}
		body := rest[i+len(open) : i+len(open)+j]
		b.WriteString(secrets.Redact(rest[:i+len(open)]))
		if isJSONDoc(body) {
			b.WriteString(redactJSONText(body))
		} else {
			b.WriteString(secrets.Redact(body))
		}
		rest = rest[i+len(open)+j:]
	}
}

// isJSONDoc reports whether text is a JSON object or array.
func isJSONDoc(text string) bool {
	t := strings.TrimSpace(text)
	return len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t))
}

// redactJSONText redacts a JSON document as data. Unchanged, it is
// returned as is; changed, it is re-encoded with the indentation of its
// first indented line (compact when it has none, or when that indentation
// would add more than jsonindent.MaxAdded bytes) and its trailing space.
func redactJSONText(text string) string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return secrets.Redact(text)
	}
	r, changed := redactIn(v, public)
	if !changed {
		return text
	}
	compact, err := jsonindent.Encode(r)
	if err != nil {
		return secrets.Redact(text)
	}
	out := strings.TrimRight(string(jsonindent.IndentWith(compact, jsonindent.Of(text))), "\n")
	trimmed := strings.TrimRight(text, " \t\r\n")
	return out + text[len(trimmed):]
}
