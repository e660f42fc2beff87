package mcp_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/testenv"
)

// BenchmarkServeToolCPU measures one call of each tool (and resource read)
// a warm server answers, through Serve in process, on projects of 10,000
// and 50,000 facts with a few runbooks and blackboard artifacts: the two
// sizes side by side show which calls do work in proportion to the memory.
// Each call is warmed before its timed loop, so one-time costs (the title
// index of the first write, the typo map) are not counted per call.
func BenchmarkServeToolCPU(b *testing.B) {
	finding := `{"id":"F-1","severity":"low","title":"Slow list","summary":"s","failureScenario":"f","confidence":"low"}`
	cases := []struct {
		name string
		req  func(i int) string // the request line's method and params
	}{
		{"search-one", func(i int) string {
			return fmt.Sprintf(`"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"kw%05d"}}`, i*7919%10_000)
		}},
		{"search-typo", func(i int) string {
			return fmt.Sprintf(`"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"kx%05d"}}`, i*7919%10_000)
		}},
		{"search-broad", func(int) string { // every fact matches: in proportion to the memory by nature
			return `"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"postgres"}}`
		}},
		{"search-miss", func(int) string {
			return `"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"zebra"}}`
		}},
		{"runbook_list", func(int) string {
			return `"method":"tools/call","params":{"name":"runbook_list","arguments":{}}`
		}},
		{"runbook_get", func(int) string {
			return `"method":"tools/call","params":{"name":"runbook_get","arguments":{"slug":"task-03"}}`
		}},
		{"contract_validate", func(int) string {
			return `"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","data":` + finding + `}}`
		}},
		{"blackboard_read", func(int) string {
			return `"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"audit"}}`
		}},
		{"blackboard_write", func(i int) string {
			return `"method":"tools/call","params":{"name":"blackboard_write","arguments":{"wave":"bench","agent":"a","schema":"finding.v1","data":` + finding + `}}`
		}},
		{"read-index", func(int) string { return `"method":"resources/read","params":{"uri":"foundry://memory/index"}` }},
		{"read-fact", func(i int) string {
			return fmt.Sprintf(`"method":"resources/read","params":{"uri":"foundry://memory/facts/fact-%04d"}`, 1+i*7919%10_000)
		}},
		{"read-runbook", func(int) string { return `"method":"resources/read","params":{"uri":"foundry://runbooks/task-03"}` }},
		{"resources-list", func(int) string { return `"method":"resources/list","params":{}` }},
		{"tools-list", func(int) string { return `"method":"tools/list","params":{}` }},
		{"token_report", func(int) string {
			return `"method":"tools/call","params":{"name":"token_report","arguments":{}}`
		}},
		{"memory_index", func(int) string {
			return `"method":"tools/call","params":{"name":"memory_index","arguments":{}}`
		}},
		{"write-unchanged", func(int) string {
			return `"method":"tools/call","params":{"name":"memory_write","arguments":{"title":"The orders service relies on postgres for kw00042","body":"Fact 42.\nWhy: load test.\nHow to apply: check first.","type":"decision","tags":["orders"],"source":"code"}}`
		}},
		{"memory_write", func(i int) string {
			return fmt.Sprintf(`"method":"tools/call","params":{"name":"memory_write","arguments":{"title":"Benchmark stores kwbench%05d beside kwpair%05d","body":"Measured.","type":"convention"}}`, i, i)
		}},
	}
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			reg, root := memoryProject(b, n)
			for i := range 10 {
				testenv.WriteFile(b, root, fmt.Sprintf(".foundry/runbooks/task-%02d.md", i), fmt.Sprintf("---\ntitle: Task %d\ntrigger: t%d\n---\nSteps.\n", i, i))
			}
			src, err := os.ReadFile(filepath.Join("testdata", "fixture", ".foundry", "blackboard", "audit", "perf-reviewer.json"))
			if err != nil {
				b.Fatal(err)
			}
			testenv.WriteFile(b, root, ".foundry/blackboard/audit/perf-reviewer.json", string(src))
			call := serveInProcess(b, reg)
			id := 0
			do := func(req string) []byte {
				id++
				answer := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, id, req))
				if bytes.Contains(answer, []byte(`"isError":true`)) || bytes.Contains(answer, []byte(`"error":{`)) {
					b.Fatalf("%s: %.400s", req, answer)
				}
				return answer
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					// Warm: first scan, title index, typo map, kept contracts.
					// Every call has a number of its own, so a write stores a
					// new fact however often the benchmark runs (-count).
					for range 10 {
						do(c.req(id))
					}
					cpu0 := testenv.CPUTime()
					for b.Loop() {
						do(c.req(id))
					}
					b.ReportMetric(float64(testenv.CPUTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
				})
			}
		})
	}
}

// BenchmarkServeBoardCPU measures the blackboard and runbook tools on a
// warm server of a project with 2,000 and 10,000 artifacts in one wave
// and as many runbooks: which calls do work in proportion to them.
func BenchmarkServeBoardCPU(b *testing.B) {
	finding := `{"id":"F-1","severity":"low","title":"Slow list","summary":"s","failureScenario":"f","confidence":"low"}`
	cases := []struct{ name, req string }{
		{"blackboard_write-new-wave", `"method":"tools/call","params":{"name":"blackboard_write","arguments":{"wave":"other","agent":"a","schema":"finding.v1","data":` + finding + `}}`},
		{"blackboard_write-big-wave", `"method":"tools/call","params":{"name":"blackboard_write","arguments":{"wave":"big","agent":"a","schema":"finding.v1","data":` + finding + `}}`},
		{"blackboard_read-other", `"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"other"}}`},
		{"blackboard_read-big-agent", `"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"big","agent":"agent-00042"}}`},
		{"blackboard_read-big-page", `"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"big","limit":5}}`},
		{"read-artifact", `"method":"resources/read","params":{"uri":"foundry://blackboard/big/agent-00042"}`},
		{"runbook_get", `"method":"tools/call","params":{"name":"runbook_get","arguments":{"slug":"task-00042"}}`},
		{"read-runbook", `"method":"resources/read","params":{"uri":"foundry://runbooks/task-00042"}`},
		{"runbook_list", `"method":"tools/call","params":{"name":"runbook_list","arguments":{"limit":5}}`},
		{"contract_validate", `"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","data":` + finding + `}}`},
		{"search-one", `"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"kw00042"}}`},
	}
	for _, n := range []int{2_000, 10_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			reg, root := memoryProject(b, 1_000)
			artifact := `{"schema":"finding.v1","producedBy":"x","id":"F-1","severity":"low","title":"Slow list","summary":"s","failureScenario":"f","confidence":"low"}`
			for i := range n {
				testenv.WriteFile(b, root, fmt.Sprintf(".foundry/blackboard/big/agent-%05d.json", i), artifact)
				testenv.WriteFile(b, root, fmt.Sprintf(".foundry/runbooks/task-%05d.md", i), fmt.Sprintf("---\ntitle: Task %d\ntrigger: t%d\n---\nSteps.\n", i, i))
			}
			call := serveInProcess(b, reg)
			id := 0
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					do := func() {
						id++
						answer := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, id, c.req))
						if bytes.Contains(answer, []byte(`"isError":true`)) || bytes.Contains(answer, []byte(`"error":{`)) {
							b.Fatalf("%s: %.400s", c.req, answer)
						}
					}
					for range 10 {
						do()
					}
					cpu0 := testenv.CPUTime()
					for b.Loop() {
						do()
					}
					b.ReportMetric(float64(testenv.CPUTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
				})
			}
		})
	}
}
