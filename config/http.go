// This file defines the mcp.http block: the optional daemon that serves
// MCP over Streamable HTTP, and its bearer tokens.

package config

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/foundryhq/foundry/internal/lazyre"
)

// DefaultHTTPListen is where `foundry mcp serve --transport http` listens
// unless mcp.http.listen or --listen say otherwise.
const DefaultHTTPListen = "127.0.0.1:7391"

// MCPHTTP configures the HTTP daemon. Its limits apply to all clients
// together; the mcp block's own max_concurrency and rate_limit apply per
// client (per token).
type MCPHTTP struct {
	Listen string
	// TLSCert and TLSKey name the certificate and key files; both or
	// neither, named as TokenFile is (relative to the project root, "~/"
	// the home folder). The key is held to TokenFile's rules. A daemon
	// listening beyond loopback requires them.
	TLSCert, TLSKey string
	// AllowedOrigins are accepted besides the daemon's own loopback
	// origins.
	AllowedOrigins []string
	// TokenFile names a file outside the worktree, mode 0600, that holds
	// more tokens in the form of Tokens.
	TokenFile string
	// Tokens are the accepted bearer tokens, by hash.
	Tokens []MCPToken
	// MaxConcurrency, RequestsPerMinute and Burst limit all clients
	// together; 0 means the server's default.
	MaxConcurrency    int
	RequestsPerMinute int
	Burst             int
}

// MCPToken is one accepted bearer token: its name, the scopes it narrows
// the server to (nil: all the server enables) and the hex SHA-256 of the
// token. The token itself is never stored.
type MCPToken struct {
	Name   string   `yaml:"name"`
	Scopes []string `yaml:"scopes,omitempty,flow"`
	SHA256 string   `yaml:"sha256"`
}

var (
	tokenNameRe = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	sha256Re    = lazyre.New(`^[0-9a-f]{64}$`)
)

// ValidTokenName reports whether name may name a token.
func ValidTokenName(name string) bool { return tokenNameRe().MatchString(name) }

func (d decoder) mcpHTTP(n *yaml.Node, k string, h *MCPHTTP) error {
	return d.object(n, k, map[string]func(*yaml.Node, string) error{
		"listen":          func(n *yaml.Node, k string) error { return d.str(n, k, &h.Listen) },
		"max_concurrency": func(n *yaml.Node, k string) error { return d.intIn(n, k, &h.MaxConcurrency, 1, 4096) },
		"rate_limit": func(n *yaml.Node, k string) error {
			return d.object(n, k, map[string]func(*yaml.Node, string) error{
				"requests_per_minute": func(n *yaml.Node, k string) error {
					return d.intIn(n, k, &h.RequestsPerMinute, 1, 10_000_000)
				},
				"burst": func(n *yaml.Node, k string) error { return d.intIn(n, k, &h.Burst, 1, 10_000_000) },
			})
		},
		"tls": func(n *yaml.Node, k string) error {
			err := d.object(n, k, map[string]func(*yaml.Node, string) error{
				"cert": func(n *yaml.Node, k string) error { return d.str(n, k, &h.TLSCert) },
				"key":  func(n *yaml.Node, k string) error { return d.str(n, k, &h.TLSKey) },
			})
			if err == nil && (h.TLSCert == "") != (h.TLSKey == "") {
				return d.errorf(n, k, "want both cert and key")
			}
			return err
		},
		"allowed_origins": func(n *yaml.Node, k string) error { return d.strings(n, k, &h.AllowedOrigins) },
		"token_file":      func(n *yaml.Node, k string) error { return d.str(n, k, &h.TokenFile) },
		"tokens": func(n *yaml.Node, k string) error {
			toks, err := d.tokens(n, k)
			h.Tokens = toks
			return err
		},
	})
}

func (d decoder) str(n *yaml.Node, key string, dst *string) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Value == "" {
		return d.errorf(n, key, "want a non-empty string, got %s", describe(n))
	}
	*dst = n.Value
	return nil
}

func (d decoder) strings(n *yaml.Node, key string, dst *[]string) error {
	if n.Kind != yaml.SequenceNode {
		return d.errorf(n, key, "want a list of strings, got %s", describe(n))
	}
	*dst = []string{}
	for i, item := range n.Content {
		var s string
		if err := d.str(item, fmt.Sprintf("%s[%d]", key, i), &s); err != nil {
			return err
		}
		*dst = append(*dst, s)
	}
	return nil
}

// tokens decodes a list of token entries; names must be unique.
func (d decoder) tokens(n *yaml.Node, key string) ([]MCPToken, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errorf(n, key, "want a list of {name, scopes, sha256}, got %s", describe(n))
	}
	out := []MCPToken{}
	seen := map[string]bool{}
	for i, item := range n.Content {
		ik := fmt.Sprintf("%s[%d]", key, i)
		var t MCPToken
		err := d.object(item, ik, map[string]func(*yaml.Node, string) error{
			"name": func(n *yaml.Node, k string) error {
				if err := d.str(n, k, &t.Name); err != nil || !ValidTokenName(t.Name) {
					return d.errorf(n, k, "want a name of letters, digits, '.', '_' and '-', got %s", describe(n))
				}
				return nil
			},
			"sha256": func(n *yaml.Node, k string) error {
				if err := d.str(n, k, &t.SHA256); err != nil || !sha256Re().MatchString(t.SHA256) {
					return d.errorf(n, k, "want 64 lowercase hex digits, got %s", describe(n))
				}
				return nil
			},
			"scopes": func(n *yaml.Node, k string) error {
				if err := d.strings(n, k, &t.Scopes); err != nil {
					return err
				}
				for j, sc := range t.Scopes {
					if !validScope(sc) {
						return d.errorf(n.Content[j], fmt.Sprintf("%s[%d]", k, j), "want a scope like read:memory, got %q", sc)
					}
					if err := d.known(n.Content[j], fmt.Sprintf("%s[%d]", k, j), "scope", sc, MCPScopes); err != nil {
						return err
					}
				}
				return nil
			},
		})
		switch {
		case err != nil:
			return nil, err
		case t.Name == "" || t.SHA256 == "":
			return nil, d.errorf(item, ik, "want name and sha256")
		case seen[t.Name]:
			return nil, d.errorf(item, ik+".name", "duplicate token name %q", t.Name)
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	return out, nil
}

// ParseTokens parses a token file: a YAML list of {name, scopes, sha256}
// entries, as mcp.http.tokens holds them, each scope one this build serves
// (as [ParseChecked] holds them). name is used in error messages.
func ParseTokens(name string, data []byte) ([]MCPToken, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(name, data)
	}
	if len(doc.Content) == 0 {
		return []MCPToken{}, nil
	}
	return decoder{file: name, checked: true}.tokens(doc.Content[0], "tokens")
}

// Hash returns the token's hash as bytes.
func (t MCPToken) Hash() ([32]byte, error) {
	var h [32]byte
	b, err := hex.DecodeString(t.SHA256)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("token %s: sha256 is not 64 hex digits", t.Name)
	}
	copy(h[:], b)
	return h, nil
}

// AddToken returns config file content with t appended to mcp.http.tokens,
// creating the blocks it needs and keeping everything else, comments
// included. A token of the same name is an error.
func AddToken(name string, data []byte, t MCPToken) ([]byte, error) {
	c, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	for _, old := range c.MCP.HTTP.Tokens {
		if old.Name == t.Name {
			return nil, fmt.Errorf("%s already has a token named %s", name, t.Name)
		}
	}
	var entry yaml.Node
	if err := entry.Encode(t); err != nil {
		return nil, fmt.Errorf("add token %s: %w", t.Name, err)
	}
	out, ok := addTokenLines(data, t)
	return inPlace(name, out, ok, c, append(slices.Clone(c.MCP.HTTP.Tokens), t), func() ([]byte, error) {
		return editTokens(name, data, func(list *yaml.Node) { list.Content = append(list.Content, &entry) })
	})
}

// inPlace returns out, the config edited in place, where it says what c,
// the config before the edit, says with its tokens replaced by tokens, or
// what the config encoded anew by whole says; else the config encoded
// anew. The edit in place keeps every line it does not change; the check
// keeps a file whose shape it mistook (a defect) from being written wrong.
func inPlace(name string, out []byte, ok bool, c Config, tokens []MCPToken, whole func() ([]byte, error)) ([]byte, error) {
	var got Config
	if ok {
		var err error
		if got, err = Parse(name, out); err != nil {
			ok = false
		}
		c.MCP.HTTP.Tokens = tokens
		if ok && reflect.DeepEqual(got, c) {
			return out, nil
		}
	}
	w, err := whole()
	if err != nil {
		return nil, err
	}
	if ok {
		// The blocks the edit made may say more than c did (an mcp block
		// now present): the file encoded anew has them too.
		if want, err := Parse(name, w); err == nil && reflect.DeepEqual(got, want) {
			return out, nil
		}
	}
	return w, nil
}

// NoTokenError is the error of [RemoveToken] when the config has no token
// of that name.
type NoTokenError struct {
	File, Name string
}

func (e *NoTokenError) Error() string {
	return fmt.Sprintf("%s has no token named %s", e.File, e.Name)
}

// RemoveToken returns config file content without the token named
// tokenName in mcp.http.tokens, keeping everything else, comments
// included. A name the config does not hold is a [*NoTokenError].
func RemoveToken(name string, data []byte, tokenName string) ([]byte, error) {
	c, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(c.MCP.HTTP.Tokens, func(t MCPToken) bool { return t.Name == tokenName }) {
		return nil, &NoTokenError{File: name, Name: tokenName}
	}
	out, ok := removeTokenLines(data, tokenName)
	rest := slices.DeleteFunc(slices.Clone(c.MCP.HTTP.Tokens), func(t MCPToken) bool { return t.Name == tokenName })
	return inPlace(name, out, ok, c, rest, func() ([]byte, error) {
		return editTokens(name, data, func(list *yaml.Node) {
			list.Content = slices.DeleteFunc(list.Content, func(item *yaml.Node) bool {
				if item.Kind != yaml.MappingNode {
					return false
				}
				_, v := valueOf(item, "name")
				return v != nil && v.Value == tokenName
			})
		})
	})
}

// editTokens returns config file content with the list mcp.http.tokens
// changed by edit, the blocks it needs created and everything else kept.
// What it returns parses.
func editTokens(name string, data []byte, edit func(list *yaml.Node)) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("edit mcp.http.tokens: %w", err)
	}
	if len(doc.Content) == 0 || (doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null") {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	list := child(child(child(doc.Content[0], "mcp", yaml.MappingNode), "http", yaml.MappingNode), "tokens", yaml.SequenceNode)
	list.Style = 0
	edit(list)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("edit mcp.http.tokens: %w", err)
	}
	if _, err := Parse(name, b.Bytes()); err != nil { // never writes what it cannot read back
		return nil, fmt.Errorf("edit mcp.http.tokens: %w", err)
	}
	return b.Bytes(), nil
}

// child returns the value of key in the mapping m, adding an empty one of
// the given kind when the key is missing.
func child(m *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				v.Kind, v.Tag, v.Value = kind, "", ""
			}
			return v
		}
	}
	v := &yaml.Node{Kind: kind}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return v
}
