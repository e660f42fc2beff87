package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/foundryhq/foundry/mcp"
)

// liveHeap collects twice, so objects freed by cleanups go too, and returns
// the heap the collection marked live.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestSearchRetainsNothing checks that the warm server keeps nothing per
// search: after a warm-up that has every fact found once (filling the
// per-fact redaction cache) and the index prepared for prefix and typo matching,
// and a thousand searches more, 5,000 searches whose query texts are all new
// leave the live heap where it was, give or take 256 KiB, about 50 bytes a
// search. A cache keyed by query, a growing audit or rate-limiter map, or
// scratch kept per call would break it. It asserts memory, not time.
func TestSearchRetainsNothing(t *testing.T) {
	const (
		n        = 2000
		searches = 5000
		slack    = 256 << 10
	)
	reg := memoryRegistry(t, n)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mcp.Serve(context.Background(), inR, outW, mcp.Options{Registry: reg, RequestsPerMinute: -1})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); <-done })
	out := bufio.NewReaderSize(outR, 1<<20)
	id := 0
	search := func(query string) {
		t.Helper()
		id++
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":%q}}}`+"\n", id, query)
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(line, []byte("fact-")) {
			t.Fatalf("search %q found nothing: %.300s", query, line)
		}
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range n {
		search(fmt.Sprintf("kw%05d", i))
	}
	search("ordres postgres") // a typo: the deletion map is built once
	search("orde")            // a prefix
	// Queries never seen before: one hit plus a word that matches nothing,
	// and every tenth broad with a typo. The first thousand settle what
	// the server sizes once (buffers, pools, the collector's own state).
	next := 0
	mixed := func(count int) {
		for range count {
			next++
			if next%10 == 0 {
				search(fmt.Sprintf("orders chekc%d", next))
			} else {
				search(fmt.Sprintf("kw%05d zq%dx", next*7919%n, next))
			}
		}
	}
	mixed(1000)
	before := liveHeap()
	mixed(searches)
	after := liveHeap()
	runtime.KeepAlive(out) // the test's own 1 MiB reader counts in both figures
	t.Logf("live heap %d B after the warm-up, %d B after %d searches", before, after, searches)
	if after > before+slack {
		t.Fatalf("live heap grew by %d B over %d searches (%.0f B a search), want at most %d B",
			after-before, searches, float64(after-before)/searches, slack)
	}
}
