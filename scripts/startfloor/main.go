// Command startfloor is the start-up floor of the benchmarks: a process that
// does nothing but what every Foundry process cannot avoid. It links
// github.com/santhosh-tekuri/jsonschema/v6, whose package initialisation
// compiles the metaschemas of five JSON Schema drafts before main runs, and
// answers each JSON-RPC request line on stdin with a fixed MCP initialize
// result, until stdin ends. Built with -tags bare it links nothing but the
// standard library and golang.org/x/sys/unix: the floor of any Go program.
//
// With -facts DIR, the first request after initialize is answered only once
// DIR is listed and every file in it stat-ed, spread over the processors, as
// a first search must before it may trust its cache (the racy-clean rule):
// the answer counts the files and names the first fact file. That is the
// floor of a first search.
//
// With -writes DIR (not with -facts, nor in the bare build), every request
// after initialize is answered once a fact-sized file is written in DIR
// through internal/confined as a memory_write writes one (a temp file
// synced, renamed into place, the folder synced), with -index together with
// an INDEX.md-sized file: the write floors of facts' benchmarks (goal P10),
// made by the same calls, taken through a process's pipes and the client
// that times memory_write.
//
// scripts/bench-mcp times it from spawn to the initialize answer beside
// `foundry mcp serve` (goal P2), and with -facts from spawn to that answer
// beside the first memory_search (P2b); scripts/bench-validate from spawn to
// exit beside `foundry validate` on 3 artifacts (goal P1): what the JSON
// Schema library's start-up alone leaves of each goal.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	facts := flag.String("facts", "", "`folder` to list and stat before the first answer after initialize")
	writes := flag.String("writes", "", "`folder` to write a file in before each answer after initialize")
	index := flag.Bool("index", false, "with -writes, write INDEX.md too")
	flag.Parse()
	if *facts != "" && *writes != "" {
		fmt.Fprintln(os.Stderr, "startfloor: -facts and -writes time different things: give one")
		os.Exit(2)
	}
	var w *floorWriter
	if *writes != "" {
		var err error
		if w, err = newFloorWriter(*writes, *index); err != nil {
			fmt.Fprintln(os.Stderr, "startfloor:", err)
			os.Exit(1)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	answered := 0
	for in.Scan() {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification, or not JSON-RPC: nothing to answer
		}
		result := `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"startfloor","version":"0"}}`
		if answered == 1 && *facts != "" {
			names, err := statAll(*facts)
			if err != nil {
				fmt.Fprintln(os.Stderr, "startfloor:", err)
				os.Exit(1)
			}
			text := fmt.Sprintf("%d files stat-ed", len(names))
			if i := slices.IndexFunc(names, func(n string) bool { return strings.HasPrefix(n, "fact-") }); i >= 0 {
				text += "; first fact file " + names[i]
			}
			result = `{"content":[{"type":"text","text":` + strconv.Quote(text) + `}]}`
		}
		if answered > 0 && w != nil {
			name, err := w.write()
			if err != nil {
				fmt.Fprintln(os.Stderr, "startfloor:", err)
				os.Exit(1)
			}
			result = `{"content":[{"type":"text","text":` + strconv.Quote("wrote "+name) + `}]}`
		}
		answered++
		answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + "}\n"
		if _, err := os.Stdout.WriteString(answer); err != nil {
			os.Exit(1)
		}
	}
}

// statAll lists dir and stats each of its files (see statNames); it
// returns the names, sorted.
func statAll(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, statNames(d, names)
}
