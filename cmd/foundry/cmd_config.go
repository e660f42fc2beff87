package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

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
	cfg := p.Config
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
`, p.Root, p.Label(), cfg.MemoryRetrieval.MaxFacts, cfg.Memory.IndexBudgetTokens, block,
		cfg.MCP.Enabled, cfg.MCP.ReadOnly, cfg.MCP.Audit, cfg.MCP.MaxConcurrency,
		cfg.MCP.RequestsPerMinute, cfg.MCP.Burst, scopes, caps)
	return err
}
