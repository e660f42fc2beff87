package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
	"github.com/foundryhq/foundry/tokens"
)

// BenchmarkServeMemorySearch measures one memory_search through Serve, in
// process over pipes, on a project of 10,000 facts: the server's own cost
// per call without process and pipe overhead outside Go.
func BenchmarkServeMemorySearch(b *testing.B) {
	const n = 10_000
	call := serveInProcess(b, memoryRegistry(b, n))
	search := func(i int) {
		call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"kw%05d"}}}`, i, i*7919%n))
	}
	search(0)
	i := 0
	for b.Loop() {
		i++
		search(i)
	}
}

// serveInProcess serves reg through Serve over pipes until the test or
// benchmark ends, and returns a function that sends one request line and
// returns its answer's.
func serveInProcess(tb testing.TB, reg *mcp.Registry) (call func(line string) []byte) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = mcp.Serve(context.Background(), inR, outW, mcp.Options{Registry: reg, RequestsPerMinute: -1})
		outW.Close()
	}()
	tb.Cleanup(func() { inW.Close() })
	out := bufio.NewReaderSize(outR, 1<<20)
	return func(line string) []byte {
		fmt.Fprintln(inW, line)
		answer, err := out.ReadBytes('\n')
		if err != nil {
			tb.Fatal(err)
		}
		return answer
	}
}

// memoryRegistry returns the registry of a project of n facts, each found
// by its code word kw%05d, written long before they are searched.
func memoryRegistry(tb testing.TB, n int) *mcp.Registry {
	tb.Helper()
	reg, _ := memoryProject(tb, n)
	return reg
}

// memoryProject is memoryRegistry, with the project's root.
func memoryProject(tb testing.TB, n int) (*mcp.Registry, string) {
	tb.Helper()
	root := tb.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(facts.Dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for i := range n {
		id := facts.FormatID(i + 1)
		title := fmt.Sprintf("The orders service relies on postgres for kw%05d", i)
		f := facts.Fact{ID: id, Type: facts.Types[i%7], Title: title, Scope: "project", Tags: []string{"orders"},
			Confidence: facts.Medium, Source: "code", Created: "2026-01-02", Status: facts.Active,
			Body: fmt.Sprintf("Fact %d.\nWhy: load test.\nHow to apply: check first.", i)}
		name := filepath.Join(dir, facts.FileName(id, title))
		if err := os.WriteFile(name, facts.Format(f), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chtimes(name, old, old); err != nil {
			tb.Fatal(err)
		}
	}
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		tb.Fatal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: slog.New(slog.DiscardHandler), WatchMemory: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { reg.Close() })
	return reg, root
}

// BenchmarkServeSearchAfterWrite measures the memory_search right after a
// memory_write through Serve, on a project of 10,000 facts, the write
// untimed: what a write costs the next search (goal P8: within 2x of
// BenchmarkServeMemorySearch). Like scripts/bench-mcp, it writes titles no
// two of which are similar, and searches a code word of fixed width, so the
// search is a one-hit search like the warm one.
func BenchmarkServeSearchAfterWrite(b *testing.B) {
	const n = 10_000
	call := serveInProcess(b, memoryRegistry(b, n))
	search := func(id int, q string) {
		call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":%q}}}`, id, q))
	}
	search(0, "kw00001")
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_write","arguments":{"title":"Benchmark stores kwbench%05d beside kwpair%05d","body":"Measured.","type":"convention"}}}`, 2*i+1, i, i))
		b.StartTimer()
		search(2*i+2, fmt.Sprintf("kwbench%05d", i))
	}
	b.StopTimer()
}

// BenchmarkServeMemoryWrite measures one memory_write through Serve, in
// process over pipes, into projects of 10,000 and 50,000 facts, the
// server warm (goal P10: within 3x of facts.BenchmarkWriteFileFloor). The
// two sizes side by side show whether a write grows with the corpus.
func BenchmarkServeMemoryWrite(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			call := serveInProcess(b, memoryRegistry(b, n))
			call(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"kw00001"}}}`)
			call(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"memory_index","arguments":{}}}`)
			i := 0
			cpu0, user0 := testenv.CPUTime(), testenv.UserTime()
			for b.Loop() {
				i++
				call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_write","arguments":{"title":"Benchmark stores kwbench%05d beside kwpair%05d","body":"Measured.","type":"convention"}}}`, i, i, i))
			}
			// The processor's share, user and system, steadier than the
			// device's syncs, to compare two builds.
			b.ReportMetric(float64(testenv.CPUTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(testenv.UserTime()-user0)/float64(time.Microsecond)/float64(b.N), "user-µs/op")
		})
	}
}

// BenchmarkTokenReport measures one token_report through Serve, in process
// over pipes, on a warm server of a project of 10,000 facts whose event log
// holds 20,000 events and which has no blackboard: what a call costs once
// the server has followed the project for a while.
func BenchmarkTokenReport(b *testing.B) {
	reg, root := memoryProject(b, 10_000)
	var log []byte
	for i := range 20_000 {
		log = fmt.Appendf(log, `{"ts":"2026-01-02T00:00:%02dZ","kind":%q}`+"\n", i%60, []string{"memory_search", "memory_write", "runbook_get"}[i%3])
	}
	testenv.WriteFile(b, root, tokens.EventsPath, string(log))
	call := serveInProcess(b, reg)
	call(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"kw00001"}}}`)
	call(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"token_report","arguments":{}}}`)
	i := 0
	for b.Loop() {
		i++
		call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"token_report","arguments":{}}}`, i))
	}
}
