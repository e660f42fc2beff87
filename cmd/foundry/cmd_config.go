package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/mcp"
)

func newConfigCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "config",
		Usage:     "print the effective configuration (defaults merged with .foundry/config.yaml)",
		ArgsUsage: " ",
		Description: `Loads .foundry/config.yaml from the chosen source (working tree, --staged
or --rev REV) and prints every setting with its effective value. A missing
file gives the defaults; an unknown key, a wrong type or an out-of-range
value is an error naming the file, the line and the key.

EXIT STATUS:
   0  ok
   1  no project, or the config is invalid
   2  malformed command line`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("config takes no arguments")
			}
			return runConfig(env)
		},
	}
}

func runConfig(env *cliEnv) error {
	p, err := env.open()
	if err != nil {
		return err
	}
	// Every MCP name held to the ones this build serves: the other
	// commands read past a name another version of Foundry knows.
	cfg, err := config.LoadChecked(p.FS)
	if err != nil {
		return err
	}
	scopes := "(every read scope, no write scope)"
	if cfg.MCP.Scopes != nil {
		scopes = "[" + strings.Join(cfg.MCP.Scopes, ", ") + "]"
	}
	capNames := slices.Sorted(maps.Keys(cfg.MCP.Capabilities))
	caps := "{}"
	if len(capNames) > 0 {
		parts := make([]string, len(capNames))
		for i, name := range capNames {
			parts[i] = fmt.Sprintf("%s: { enabled: %t }", name, cfg.MCP.Capabilities[name])
		}
		caps = "{ " + strings.Join(parts, ", ") + " }"
	}
	h := httpSettings(effectiveHTTP(cfg.MCP.HTTP))
	block := "# no mcp block: foundry mcp serve refuses to start (foundry init adds the opt-in)\n"
	if cfg.MCP.Declared {
		block = ""
	}
	if env.json {
		// The answer holds no null: scopes are the effective ones (every
		// read scope the server has when the key is omitted), and no
		// capability switched is {} as in the text form.
		effective := cfg.MCP.Scopes
		if effective == nil {
			reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: env.logger, ReadOnly: true})
			if err != nil {
				return err
			}
			effective = reg.ReadScopes()
			if err := reg.Close(); err != nil {
				return err
			}
		}
		capabilities := cfg.MCP.Capabilities
		if capabilities == nil {
			capabilities = map[string]bool{}
		}
		return env.printJSON(map[string]any{
			"source":          p.Label(),
			"memoryRetrieval": map[string]any{"maxFacts": cfg.MemoryRetrieval.MaxFacts},
			"memory":          map[string]any{"indexBudgetTokens": cfg.Memory.IndexBudgetTokens},
			"mcp": map[string]any{
				"enabled":         cfg.MCP.Enabled,
				"read_only":       cfg.MCP.ReadOnly,
				"audit":           cfg.MCP.Audit,
				"max_concurrency": cfg.MCP.MaxConcurrency,
				"rate_limit":      map[string]any{"requests_per_minute": cfg.MCP.RequestsPerMinute, "burst": cfg.MCP.Burst},
				"scopes":          effective,
				"capabilities":    capabilities,
				"declared":        cfg.MCP.Declared,
				"http":            h.jsonValue(),
			},
		})
	}
	_, err = fmt.Fprintf(env.stdout, `# effective configuration of %s (%s)
memoryRetrieval:
  maxFacts: %d
memory:
  indexBudgetTokens: %d
%smcp:
  enabled: %t
  read_only: %t
  audit: %t
  max_concurrency: %d
  rate_limit: { requests_per_minute: %d, burst: %d }
  scopes: %s
  capabilities: %s
%s`, p.Root, p.Label(), cfg.MemoryRetrieval.MaxFacts, cfg.Memory.IndexBudgetTokens, block,
		cfg.MCP.Enabled, cfg.MCP.ReadOnly, cfg.MCP.Audit, cfg.MCP.MaxConcurrency,
		cfg.MCP.RequestsPerMinute, cfg.MCP.Burst, scopes, caps, h.text())
	return err
}

// effectiveHTTP returns the daemon's settings with the server's defaults
// for those the file leaves out.
func effectiveHTTP(h config.MCPHTTP) config.MCPHTTP {
	if h.Listen == "" {
		h.Listen = config.DefaultHTTPListen
	}
	if h.MaxConcurrency == 0 {
		h.MaxConcurrency = mcp.DefaultTotalConcurrency
	}
	if h.RequestsPerMinute == 0 {
		h.RequestsPerMinute = mcp.DefaultTotalPerMinute
	}
	if h.Burst == 0 {
		h.Burst = mcp.DefaultTotalBurst
	}
	return h
}

// httpSettings prints the effective mcp.http block: tokens by name and
// scopes, never their hashes.
type httpSettings config.MCPHTTP

func (h httpSettings) text() string {
	tls, tokenFile := "none", "none"
	if h.TLSCert != "" {
		tls = fmt.Sprintf("{ cert: %s, key: %s }", h.TLSCert, h.TLSKey)
	}
	if h.TokenFile != "" {
		tokenFile = h.TokenFile
	}
	tokens := make([]string, len(h.Tokens))
	for i, t := range h.Tokens {
		tokens[i] = t.Name
		if t.Scopes != nil {
			tokens[i] += " (" + strings.Join(t.Scopes, ", ") + ")"
		}
	}
	return fmt.Sprintf(`  http:
    listen: %s
    tls: %s
    allowed_origins: [%s]
    token_file: %s
    tokens: [%s]
    max_concurrency: %d
    rate_limit: { requests_per_minute: %d, burst: %d }
`, h.Listen, tls, strings.Join(h.AllowedOrigins, ", "), tokenFile, strings.Join(tokens, ", "),
		h.MaxConcurrency, h.RequestsPerMinute, h.Burst)
}

func (h httpSettings) jsonValue() map[string]any {
	type token struct {
		Name   string   `json:"name"`
		Scopes []string `json:"scopes,omitempty"` // omitted: every scope the server enables
	}
	tokens := make([]token, len(h.Tokens))
	for i, t := range h.Tokens {
		tokens[i] = token{t.Name, t.Scopes}
	}
	v := map[string]any{
		"listen":          h.Listen,
		"allowed_origins": append([]string{}, h.AllowedOrigins...),
		"tokens":          tokens,
		"max_concurrency": h.MaxConcurrency,
		"rate_limit":      map[string]any{"requests_per_minute": h.RequestsPerMinute, "burst": h.Burst},
	}
	if h.TLSCert != "" {
		v["tls"] = map[string]any{"cert": h.TLSCert, "key": h.TLSKey}
	}
	if h.TokenFile != "" {
		v["token_file"] = h.TokenFile
	}
	return v
}
