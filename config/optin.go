// This file defines the config.yaml that `foundry init` writes and the
// migration that adds the MCP opt-in to a project initialised before it.

package config

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/foundryhq/foundry/internal/ctrl"
	"go.yaml.in/yaml/v3"
)

// MCPOptIn is the mcp block `foundry init` writes: the explicit opt-in the
// foundry-core agents need (the server enabled, writes allowed, the write
// scopes listed), one comment per key so the choice is visible. Without
// the block `foundry mcp serve` refuses to start.
const MCPOptIn = `# The MCP server of foundry mcp serve. Without this block it refuses to
# start. Written by foundry init so that agents can work at once: delete
# write:memory and write:blackboard below (or set read_only: true) to keep
# them from writing.
mcp:
  enabled: true            # false, or no mcp block: foundry mcp serve refuses to start
  read_only: false         # default true; false alone grants nothing: a write scope must be listed too
  audit: false             # true: every call goes to .foundry/metrics/audit.jsonl; with writes enabled, calls that write are audited even when false
  # max_concurrency: 16    # requests in flight; more are rejected
  # rate_limit: { requests_per_minute: 600, burst: 120 }
  scopes:                  # omitted: every read scope and no write scope
    - read:memory
    - write:memory         # memory_write, memory_index
    - read:runbooks
    - read:contracts
    - read:blackboard
    - write:blackboard     # blackboard_write
    - read:ops
  # capabilities:          # switch one capability on or off (foundry mcp capabilities lists them)
  #   token_report: { enabled: false }
`

// Template is the config.yaml that `foundry init` writes: every optional
// key commented with its default, then the MCP opt-in.
const Template = `# Foundry configuration. Every key is optional; the values shown are the
# defaults. Uncomment a line to change it. Unknown keys are errors.
#
# memoryRetrieval:
#   maxFacts: 8              # memory_search default limit (1–25)
# memory:
#   indexBudgetTokens: 4000  # token budget of .foundry/memory/INDEX.md

` + MCPOptIn

// legacyMCPComment is the commented mcp section of the template `foundry
// init` wrote before the opt-in existed. Its values are no longer the
// defaults, so the migration replaces it rather than leave it misleading.
const legacyMCPComment = `# mcp:
#   enabled: true            # false: foundry mcp serve refuses to start
#   read_only: false         # true: mutating tools are not exposed
#   audit: false             # true: every call is written to the audit log
#   max_concurrency: 16      # requests in flight; more are rejected
#   rate_limit: { requests_per_minute: 600, burst: 120 }
#   scopes: [read:memory, write:memory, read:runbooks, read:contracts, read:blackboard, write:blackboard, read:ops]
`

// AddMCPOptIn returns data (the content of config.yaml, named name in
// errors) with [MCPOptIn] added, and whether it changed anything. A file
// that already has an mcp block, whatever it says, is returned unchanged:
// the block is the owner's choice. Every other key, comment and byte is
// kept; the commented mcp section of the old template is replaced in
// place, anything else gets the block appended.
func AddMCPOptIn(name string, data []byte) ([]byte, bool, error) {
	c, err := Parse(name, data)
	if err != nil {
		return nil, false, err
	}
	if c.MCP.Declared {
		return data, false, nil
	}
	// The block is written with the file's line ends.
	eol := ctrl.LineEnd(data)
	block, legacy := strings.ReplaceAll(MCPOptIn, "\n", eol), strings.ReplaceAll(legacyMCPComment, "\n", eol)
	var out []byte
	if i := bytes.Index(data, []byte(legacy)); i >= 0 {
		out = append(out, data[:i]...)
		out = append(out, eol...)
		out = append(out, block...)
		out = append(out, data[i+len(legacy):]...)
	} else {
		out = append(out, data...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, eol...)
		}
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, eol...)
		}
		out = append(out, block...)
	}
	// A document the block cannot be appended to (a flow mapping, a
	// document end marker) is left for the owner to edit.
	got, err := Parse(name, out)
	if err != nil || !got.MCP.Enabled || !sameOtherKeys(data, out) {
		return nil, false, fmt.Errorf("add the mcp opt-in to %s: the file's layout does not allow it; add the mcp block by hand as foundry mcp serve prints it", name)
	}
	return out, true, nil
}

// sameOtherKeys reports whether the top-level keys other than mcp decode
// to the same values in both documents.
func sameOtherKeys(before, after []byte) bool {
	var a, b map[string]any
	if yaml.Unmarshal(before, &a) != nil || yaml.Unmarshal(after, &b) != nil {
		return false
	}
	delete(b, "mcp")
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		av, _ := yaml.Marshal(v)
		bv, _ := yaml.Marshal(b[k])
		if !bytes.Equal(av, bv) {
			return false
		}
	}
	return true
}
