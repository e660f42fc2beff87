// This file defines the secret check of artifacts: a provider-format token
// or a private key never goes on the blackboard.

package blackboard

import (
	"fmt"
	"sort"
	"strconv"
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
	w := secretWalk{}
	w.walk(v)
	return w.out
}

// secretWalk walks a value for [FindSecrets]. It keeps the path to the
// value it is at, the keys and indices unescaped, and spells a pointer only
// for a secret: spelling one at every level would cost the square of the
// depth in data nested thousands deep.
type secretWalk struct {
	path []string
	out  []Secret
}

func (w *secretWalk) walk(v any) {
	switch v := v.(type) {
	case string:
		w.find(v, false)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			w.find(k, true)
			w.path = append(w.path, k)
			w.walk(v[k])
			w.path = w.path[:len(w.path)-1]
		}
	case []any:
		for i, e := range v {
			w.path = append(w.path, strconv.Itoa(i))
			w.walk(e)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// find adds the provider-format secrets of s, one per kind; key says s is
// a key of the object at the path.
func (w *secretWalk) find(s string, key bool) {
	var seen map[secrets.Kind]bool
	for _, f := range secrets.Find(s) {
		if f.Kind.Provider() && !seen[f.Kind] {
			if seen == nil {
				seen = map[secrets.Kind]bool{}
			}
			seen[f.Kind] = true
			w.out = append(w.out, Secret{Pointer: w.pointer(), Kind: f.Kind, Key: key})
		}
	}
}

// pointer spells the path as a JSON pointer (RFC 6901) from "#"; a key
// that holds a secret is redacted, so that no pointer spells one.
func (w *secretWalk) pointer() string {
	var b strings.Builder
	b.WriteString("#")
	for _, k := range w.path {
		b.WriteString("/" + escapePointer(secrets.Redact(k)))
	}
	return b.String()
}

// escapePointer escapes a key as a JSON pointer token (RFC 6901).
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
