// This file defines the making of bearer tokens for the HTTP daemon.

package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
)

// TokenPrefix starts every token NewToken makes, so that secret scanners
// and people can tell one.
const TokenPrefix = "fmcp_"

// Scopes lists every scope of Foundry's capabilities: config's list, which
// config files are checked against and tests hold to the registry.
var Scopes = config.MCPScopes

// NewToken makes a bearer token named name for the HTTP daemon, stores its
// hash (never the token) with its scopes in the project's mcp.http.tokens
// and returns the token, which exists nowhere else. nil scopes give the
// token every scope the server enables.
func NewToken(ctx context.Context, root *confined.Root, name string, scopes []string) (string, error) {
	if !config.ValidTokenName(name) {
		return "", fmt.Errorf("make token %q: a name is 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	for _, sc := range scopes {
		if !slices.Contains(Scopes, sc) {
			return "", fmt.Errorf("make token %s: unknown scope %q (known: %s)", name, sc, strings.Join(Scopes, ", "))
		}
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make token %s: %w", name, err)
	}
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))

	err := editConfig(ctx, root, func(data []byte) ([]byte, error) {
		return config.AddToken(config.Path, data, config.MCPToken{Name: name, Scopes: scopes, SHA256: hex.EncodeToString(sum[:])})
	})
	if err != nil {
		return "", fmt.Errorf("make token %s: %w", name, err)
	}
	return token, nil
}

// editConfig replaces the config's content by what edit makes of it (nil
// for a missing file), under the config's lock, atomically, keeping the
// file's permissions (0644 for a new one).
func editConfig(ctx context.Context, root *confined.Root, edit func(data []byte) ([]byte, error)) error {
	unlock, err := root.Lock(ctx, config.LockPath)
	if err != nil {
		return err
	}
	defer func() { _ = unlock() }()
	data, err := confined.ReadFile(root.FS(), config.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	out, err := edit(data)
	if err != nil {
		return err
	}
	return root.Rewrite(config.Path, out, 0o644)
}

// TokenEntry is one configured token, as foundry mcp token list shows it.
type TokenEntry struct {
	Name string `json:"name"`
	// Scopes narrow the server's for the token; nil: all it enables, and
	// empty (scopes: [] in the file): none.
	Scopes []string `json:"scopes"`
	// Source is the file that holds the token: config.Path, or the token
	// file as mcp.http.token_file names it.
	Source string `json:"source"`
}

// MarshalJSON leaves scopes out for a token of every scope the server
// enables, and writes [] for one of none.
func (e TokenEntry) MarshalJSON() ([]byte, error) {
	var scopes *[]string
	if e.Scopes != nil {
		scopes = &e.Scopes
	}
	return json.Marshal(struct {
		Name   string    `json:"name"`
		Scopes *[]string `json:"scopes,omitempty"`
		Source string    `json:"source"`
	}{e.Name, scopes, e.Source})
}

// ListTokens returns the tokens a daemon of the project would accept now,
// FOUNDRY_MCP_TOKEN aside: the config's mcp.http.tokens, then the entries
// of the token file it names (which must lie outside worktree).
func ListTokens(root *confined.Root, worktree string) ([]TokenEntry, error) {
	c, err := config.LoadChecked(root.FS())
	if err != nil {
		return nil, err
	}
	out := []TokenEntry{}
	for _, t := range c.MCP.HTTP.Tokens {
		out = append(out, TokenEntry{Name: t.Name, Scopes: t.Scopes, Source: config.Path})
	}
	if c.MCP.HTTP.TokenFile != "" {
		more, err := readTokenFile(configFilePath(c.MCP.HTTP.TokenFile, root.Dir()), worktree)
		if err != nil {
			return nil, err
		}
		for _, t := range more {
			out = append(out, TokenEntry{Name: t.Name, Scopes: t.Scopes, Source: c.MCP.HTTP.TokenFile})
		}
	}
	return out, nil
}

// RevokeToken removes the token named name from the project's
// mcp.http.tokens. A daemon serving the project refuses it from its next
// request on, and ends its sessions. A token of the token file is not
// removed: the error names the file, which Foundry never writes.
func RevokeToken(ctx context.Context, root *confined.Root, worktree, name string) error {
	err := editConfig(ctx, root, func(data []byte) ([]byte, error) {
		out, err := config.RemoveToken(config.Path, data, name)
		var none *config.NoTokenError
		if !errors.As(err, &none) {
			return out, err
		}
		hint := fmt.Errorf("%w (foundry mcp token list names the tokens)", err)
		c, cerr := config.Parse(config.Path, data)
		if cerr != nil || c.MCP.HTTP.TokenFile == "" {
			return nil, hint
		}
		file := c.MCP.HTTP.TokenFile
		more, ferr := readTokenFile(configFilePath(file, root.Dir()), worktree)
		if ferr != nil {
			return nil, fmt.Errorf("%s has no token named %s, and the token file %s cannot be read to look there: %w", config.Path, name, file, ferr)
		}
		if slices.ContainsFunc(more, func(t config.MCPToken) bool { return t.Name == name }) {
			return nil, fmt.Errorf("it is held by the token file %s (mcp.http.token_file), which foundry does not write: remove its entry there, and a daemon running refuses it from its next request", file)
		}
		return nil, fmt.Errorf("neither %s nor the token file %s has a token named %s (foundry mcp token list names the tokens)", config.Path, file, name)
	})
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", name, err)
	}
	return nil
}
