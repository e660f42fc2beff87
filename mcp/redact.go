// This file defines the one redactor every answer passes through: tool
// text and structuredContent, resources/read, resource names, progress and
// log messages, and the audit log.

package mcp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/foundryhq/foundry/internal/secrets"
)

// sensitiveKeys are the endings of object keys (lowercased, without "_",
// "-", "." and spaces) whose values are secrets whatever they look like:
// "password", "db_password", "apiKey", "access-token", "privateKey",
// "passwordHash", "sessionId", "Set-Cookie", "Authorization",
// "connection_string", "connStr", "accountKey", "DB_PWD". "tokens" (a
// count) does not match "token". The list covers every key package
// secrets redacts in a key="value" assignment (TestSensitiveKeysMatchTextKeys).
var sensitiveKeys = []string{
	"password", "passwd", "passphrase", "pwd", "passwordhash", "pwhash", "secret", "apikey", "accesskey",
	"accountkey", "privatekey", "token", "connectionstring", "connstring", "connstr", "dsn", "credential", "credentials",
	"session", "sessionid", "sessionkey", "cookie", "cookies", "authorization",
}

var keyFolder = strings.NewReplacer("_", "", "-", "", ".", "", " ", "")

func sensitiveKey(k string) bool {
	k = strings.ToLower(keyFolder.Replace(k))
	for _, s := range sensitiveKeys {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// redactValue returns a copy of a decoded JSON value with secrets
// replaced by [secrets.Placeholder]: every string under a sensitive key (at
// any depth below it), and every secret found in any other string, which
// is redacted as text (see [redactText]). Values of other Go types are
// returned unchanged.
func redactValue(v any) any {
	out, _ := redactIn(v, false)
	return out
}

// redactIn redacts v; under says v sits below a sensitive key. It reports
// whether anything changed.
func redactIn(v any, under bool) (any, bool) {
	switch v := v.(type) {
	case string:
		if under {
			if v == "" {
				return v, false
			}
			return secrets.Placeholder, v != secrets.Placeholder
		}
		r := redactText(v)
		return r, r != v
	case map[string]any:
		out := make(map[string]any, len(v))
		changed := false
		for k, e := range v {
			r, c := redactIn(e, under || sensitiveKey(k))
			out[k] = r
			changed = changed || c
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
// first indented line (compact when it has none) and its trailing space.
func redactJSONText(text string) string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return secrets.Redact(text)
	}
	r, changed := redactIn(v, false)
	if !changed {
		return text
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indentOf(text))
	if err := enc.Encode(r); err != nil {
		return secrets.Redact(text)
	}
	out := strings.TrimRight(b.String(), "\n")
	trimmed := strings.TrimRight(text, " \t\r\n")
	return out + text[len(trimmed):]
}

// indentOf returns the leading white space of the first indented line of
// text, "" when it has none.
func indentOf(text string) string {
	for _, line := range strings.Split(text, "\n")[1:] {
		if ws := line[:len(line)-len(strings.TrimLeft(line, " \t"))]; ws != "" {
			return ws
		}
	}
	return ""
}
