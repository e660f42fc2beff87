// Command startfloor is the start-up floor of the benchmarks: a process that
// does nothing but what every Foundry process cannot avoid. It links
// github.com/santhosh-tekuri/jsonschema/v6, whose package initialisation
// compiles the metaschemas of five JSON Schema drafts before main runs, and
// answers each JSON-RPC request line on stdin with a fixed MCP initialize
// result, until stdin ends. Built with -tags bare it links nothing but the
// standard library: the floor of any Go program.
//
// scripts/bench-mcp times it from spawn to the initialize answer beside
// `foundry mcp serve` (goal P2), and scripts/bench-validate from spawn to
// exit beside `foundry validate` on 3 artifacts (goal P1): what the JSON
// Schema library's start-up alone leaves of each goal.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification, or not JSON-RPC: nothing to answer
		}
		answer := `{"jsonrpc":"2.0","id":` + string(req.ID) +
			`,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"startfloor","version":"0"}}}` + "\n"
		if _, err := os.Stdout.WriteString(answer); err != nil {
			os.Exit(1)
		}
	}
}
