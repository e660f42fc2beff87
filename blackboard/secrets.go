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
// credential whatever surrounds them. It stops at [MaxSecrets]: one is
// enough to refuse a write, and a report of every token of data holding
// thousands would be as large as the data.
func FindSecrets(v any) []Secret {
	w := secretWalk{}
	w.walk(v)
	return w.out
}

// MaxSecrets bounds the secrets FindSecrets reports.
const MaxSecrets = 32

// secretWalk walks a value for [FindSecrets]. It keeps the path to the
// value it is at, each key already escaped as a pointer token (and
// redacted, so that no pointer spells a secret), and joins the path into a
// pointer only for a secret: joining it at every level would cost the
// square of the depth in data nested thousands deep.
type secretWalk struct {
	path []string
	out  []Secret
}

func (w *secretWalk) walk(v any) {
	if len(w.out) >= MaxSecrets {
		return
	}
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
			w.path = append(w.path, escapePointer(secrets.Redact(k)))
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
		if f.Kind.Provider() && !seen[f.Kind] && len(w.out) < MaxSecrets {
			if seen == nil {
				seen = map[secrets.Kind]bool{}
			}
			seen[f.Kind] = true
			w.out = append(w.out, Secret{Pointer: w.pointer(), Kind: f.Kind, Key: key})
		}
	}
}

// pointer spells the path as a JSON pointer (RFC 6901) from "#".
func (w *secretWalk) pointer() string {
	if len(w.path) == 0 {
		return "#"
	}
	return "#/" + strings.Join(w.path, "/")
}

// escapePointer escapes a key as a JSON pointer token (RFC 6901).
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
