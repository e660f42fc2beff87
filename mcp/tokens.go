// This file defines the making of bearer tokens for the HTTP daemon.

package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
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

	unlock, err := root.Lock(ctx, config.LockPath)
	if err != nil {
		return "", fmt.Errorf("make token %s: %w", name, err)
	}
	defer func() { _ = unlock() }()
	data, err := confined.ReadFile(root.FS(), config.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("make token %s: %w", name, err)
	}
	out, err := config.AddToken(config.Path, data, config.MCPToken{Name: name, Scopes: scopes, SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return "", fmt.Errorf("make token %s: %w", name, err)
	}
	if err := root.WriteFile(config.Path, out, 0o644); err != nil {
		return "", fmt.Errorf("make token %s: %w", name, err)
	}
	return token, nil
}
