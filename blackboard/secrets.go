// This file defines the secret check of artifacts: a provider-format token
// or a private key never goes on the blackboard.

package blackboard

import (
	"fmt"
	"sort"
	"strings"

	"github.com/foundryhq/foundry/internal/secrets"
)

// Secret is a secret found in an artifact: where (a JSON pointer) and what
// kind, never the value.
type Secret struct {
	Pointer string       `json:"pointer"`
	Kind    secrets.Kind `json:"kind"`
	// Key says the secret is in a key of the object at Pointer, not in a
	// value. The pointers never spell a secret: one in a key is redacted.
	Key bool `json:"key,omitempty"`
}

func (s Secret) String() string {
	if s.Key {
		return fmt.Sprintf("%s: a key holds a %s", s.Pointer, s.Kind)
	}
	return fmt.Sprintf("%s: holds a %s", s.Pointer, s.Kind)
}

// SecretError refuses an artifact that holds a provider-format token or a
// private key block; nothing was written.
type SecretError struct {
	Secrets []Secret
}

func (e *SecretError) Error() string {
	parts := make([]string, len(e.Secrets))
	for i, s := range e.Secrets {
		parts[i] = s.String()
	}
	return "artifact holds a secret (" + strings.Join(parts, "; ") +
		"); secrets never go on the blackboard: refer to the credential by name (e.g. $GITHUB_TOKEN) instead"
}

// Is makes a *SecretError match [ErrSecret].
func (e *SecretError) Is(target error) bool { return target == ErrSecret }

// FindSecrets returns the provider-format tokens and private key blocks in
// a decoded JSON value (keys included), by JSON pointer. Prose about
// secrets (a finding that speaks of a password list, even a password
// assignment quoted as evidence) is not reported: only values that are a
// credential whatever surrounds them.
func FindSecrets(v any) []Secret {
	var out []Secret
	walkSecrets(v, "#", &out)
	return out
}

func walkSecrets(v any, ptr string, out *[]Secret) {
	switch v := v.(type) {
	case string:
		stringSecrets(v, ptr, false, out)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			stringSecrets(k, ptr, true, out)
			walkSecrets(v[k], ptr+"/"+escapePointer(secrets.Redact(k)), out)
		}
	case []any:
		for i, e := range v {
			walkSecrets(e, fmt.Sprintf("%s/%d", ptr, i), out)
		}
	}
}

// stringSecrets adds the provider-format secrets of s, one per kind.
func stringSecrets(s, ptr string, key bool, out *[]Secret) {
	seen := map[secrets.Kind]bool{}
	for _, f := range secrets.Find(s) {
		if f.Kind.Provider() && !seen[f.Kind] {
			seen[f.Kind] = true
			*out = append(*out, Secret{Pointer: ptr, Kind: f.Kind, Key: key})
		}
	}
}

// escapePointer escapes a key as a JSON pointer token (RFC 6901).
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
