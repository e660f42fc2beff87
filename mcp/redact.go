package mcp

import (
	"strings"

	"github.com/foundryhq/foundry/internal/secrets"
)

// sensitiveKeys are the endings of object keys (lowercased, without "_"
// and "-") whose string values are secrets whatever they look like:
// "password", "db_password", "apiKey", "access-token", "privateKey",
// "connectionString". "tokens" (a count) does not match "token".
var sensitiveKeys = []string{
	"password", "passwd", "passphrase", "secret", "apikey", "accesskey",
	"privatekey", "token", "connectionstring", "credential", "credentials",
}

func sensitiveKey(k string) bool {
	k = strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
	for _, s := range sensitiveKeys {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// redactValue returns a copy of a decoded JSON value with secrets
// replaced by [secrets.Placeholder]: every string value of a sensitive key,
// and every secret that package secrets finds inside any other string.
// Values of other Go types are returned unchanged.
func redactValue(v any) any {
	switch v := v.(type) {
	case string:
		return secrets.Redact(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if s, ok := e.(string); ok && s != "" && sensitiveKey(k) {
				out[k] = secrets.Placeholder
				continue
			}
			out[k] = redactValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactValue(e)
		}
		return out
	default:
		return v
	}
}
