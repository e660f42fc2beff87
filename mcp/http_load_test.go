package mcp_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foundryhq/foundry/mcp"
)

// rawClient is one MCP session over HTTP driven by hand, lighter than the
// SDK client so that a load test measures the server.
type rawClient struct {
	hc    *http.Client
	url   string
	token string
	sid   string
}

func (c *rawClient) post(ctx context.Context, body string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if c.sid == "" {
		c.sid = resp.Header.Get("Mcp-Session-Id")
	}
	return resp.StatusCode, b, err
}

// open initializes the session.
func (c *rawClient) open(ctx context.Context) error {
	if st, b, err := c.post(ctx, initBody); err != nil || st != 200 || c.sid == "" {
		return fmt.Errorf("initialize: %d %s %v", st, b, err)
	}
	if st, b, err := c.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || st != 202 {
		return fmt.Errorf("initialized: %d %s %v", st, b, err)
	}
	return nil
}

// search calls memory_search for the code word of fact i.
func (c *rawClient) search(ctx context.Context, id, i int) ([]byte, error) {
	st, b, err := c.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"kw%05d"}}}`, id, i))
	if err == nil && st != 200 {
		err = fmt.Errorf("status %d: %s", st, b)
	}
	return b, err
}

func (c *rawClient) close(ctx context.Context) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Mcp-Session-Id", c.sid)
	if resp, err := c.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// serveLoopback serves reg over HTTP on a loopback port and returns the
// endpoint and a stop function that returns once the server has stopped.
func serveLoopback(tb testing.TB, reg *mcp.Registry, edit func(*mcp.HTTPOptions)) (string, *mcp.HTTPHandler, func()) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	o := mcp.HTTPOptions{
		Options: mcp.Options{Registry: reg, Version: "1"},
		Tokens: []mcp.Token{
			{Name: "writer", SHA256: sha256.Sum256([]byte(tokenRW))},
			{Name: "reviewer", Scopes: []string{mcp.ScopeReadMemory}, SHA256: sha256.Sum256([]byte(tokenRO))},
		},
		AllowedHosts: mcp.LoopbackHosts(ln.Addr().String()),
	}
	if edit != nil {
		edit(&o)
	}
	h, err := mcp.NewHTTPHandler(o)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcp.ServeHTTP(ctx, ln, h, mcp.HTTPServeOptions{}) }()
	return "http://127.0.0.1:" + port + mcp.Endpoint, h, func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("ServeHTTP = %v", err)
		}
	}
}

// TestHTTPLoad runs 50 concurrent clients of 200 memory_search calls each
// against one daemon on loopback, bounded by a deadline. Every call must
// succeed except the rejections of the per-client rate limit, set so that
// some happen; afterwards no goroutine is left and the heap is back near
// where it started. The figures are logged (go test -v).
//
// Not parallel: it counts the process's goroutines.
func TestHTTPLoad(t *testing.T) { //nolint:paralleltest // counts goroutines
	if testing.Short() {
		t.Skip("load test: skipped with -short")
	}
	const clients, calls, facts = 50, 200, 1000
	reg := memoryRegistry(t, facts)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()

	// Each token may send 9,000 requests a minute (150 a second, bursts
	// of 2,000), so that its 25 clients meet the limit; the total has
	// none.
	url, h, stop := serveLoopback(t, reg, func(o *mcp.HTTPOptions) {
		o.RequestsPerMinute, o.Burst, o.MaxConcurrency = 9000, 2000, 64
		o.TotalConcurrency, o.TotalRequestsPerMinute = 256, -1
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	hc := &http.Client{Transport: tr}
	var ok, rejected, failed atomic.Int64
	var firstErr sync.Once
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := tokenRW
			if c%2 == 1 {
				tok = tokenRO
			}
			rc := &rawClient{hc: hc, url: url, token: tok}
			if err := rc.open(ctx); err != nil {
				failed.Add(1)
				firstErr.Do(func() { t.Errorf("client %d: %v", c, err) })
				return
			}
			defer rc.close(ctx)
			for i := range calls {
				b, err := rc.search(ctx, i+1, (c*calls+i)*7919%facts)
				switch {
				case err != nil:
					failed.Add(1)
					firstErr.Do(func() { t.Errorf("client %d call %d: %v", c, i, err) })
				case bytes.Contains(b, []byte(`"code":-31000`)) && bytes.Contains(b, []byte("Rate limit of client ")):
					rejected.Add(1)
				case bytes.Contains(b, []byte(`"result"`)) && bytes.Contains(b, []byte("fact-")) && !bytes.Contains(b, []byte(`"isError":true`)):
					ok.Add(1)
				default:
					failed.Add(1)
					firstErr.Do(func() { t.Errorf("client %d call %d: %.300s", c, i, b) })
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		t.Fatalf("load test did not finish within its bound: %v", err)
	}
	sessions := h.Sessions()
	stop()
	tr.CloseIdleConnections()

	total := ok.Load() + rejected.Load() + failed.Load()
	t.Logf("%d clients x %d calls in %v: %d ok, %d rejected by the rate limit, %d failed; %.0f calls/s",
		clients, calls, elapsed.Round(time.Millisecond), ok.Load(), rejected.Load(), failed.Load(), float64(total)/elapsed.Seconds())
	if failed.Load() != 0 || total != clients*calls {
		t.Errorf("%d of %d calls failed", failed.Load(), total)
	}
	if sessions != 0 {
		t.Errorf("%d sessions left open after every client's DELETE", sessions)
	}

	// Goroutines end a little after their connections close: wait for
	// them (bounded), then compare.
	var after int
	for range 100 {
		if after = runtime.NumGoroutine(); after <= goroutines {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	t.Logf("goroutines %d before, %d after; heap %d KiB before, %d KiB after", goroutines, after, before.HeapAlloc>>10, mem.HeapAlloc>>10)
	if after > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines grew from %d to %d:\n%s", goroutines, after, buf[:runtime.Stack(buf, true)])
	}
	if grown := int64(mem.HeapAlloc) - int64(before.HeapAlloc); grown > 32<<20 {
		t.Errorf("heap grew by %d MiB over the run", grown>>20)
	}
}

// BenchmarkHTTPMemorySearch measures memory_search through the HTTP daemon
// on loopback at 10,000 facts, with 1 and with 50 concurrent clients (each
// its own session; rate limits off): calls/s and p50/p99 latency per call.
// Compare its per-call time at 1 client with BenchmarkServeMemorySearch
// (stdio); scripts/bench-http prints both.
func BenchmarkHTTPMemorySearch(b *testing.B) {
	const facts = 10_000
	reg := memoryRegistry(b, facts)
	for _, clients := range []int{1, 50} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			url, _, stop := serveLoopback(b, reg, func(o *mcp.HTTPOptions) {
				o.RequestsPerMinute, o.MaxConcurrency = -1, -1
				o.TotalRequestsPerMinute, o.TotalConcurrency = -1, -1
			})
			defer stop()
			ctx := context.Background()
			tr := &http.Transport{MaxIdleConnsPerHost: clients}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			rcs := make([]*rawClient, clients)
			for i := range rcs {
				rcs[i] = &rawClient{hc: hc, url: url, token: tokenRW}
				if err := rcs[i].open(ctx); err != nil {
					b.Fatal(err)
				}
				if _, err := rcs[i].search(ctx, 0, i); err != nil { // warm-up
					b.Fatal(err)
				}
			}
			var next atomic.Int64
			lat := make([][]time.Duration, clients)
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for c, rc := range rcs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						t0 := time.Now()
						res, err := rc.search(ctx, int(i), int(i)*7919%facts)
						if err != nil || !bytes.Contains(res, []byte("fact-")) {
							b.Errorf("search %d: %v %.200s", i, err, res)
							return
						}
						lat[c] = append(lat[c], time.Since(t0))
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			all := slices.Concat(lat...)
			slices.Sort(all)
			if len(all) == 0 {
				return
			}
			pct := func(p float64) float64 {
				return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
			}
			b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
		})
	}
}

// TestHTTPSharedWarmState checks that the sessions of one daemon share one
// project state: a fact written through one session is found by the next
// search of another at once.
func TestHTTPSharedWarmState(t *testing.T) {
	t.Parallel()
	reg := memoryRegistry(t, 10)
	url, _, stop := serveLoopback(t, reg, nil)
	defer stop()
	ctx := context.Background()
	writer := &rawClient{hc: http.DefaultClient, url: url, token: tokenRW}
	reader := &rawClient{hc: http.DefaultClient, url: url, token: tokenRO}
	for _, c := range []*rawClient{writer, reader} {
		if err := c.open(ctx); err != nil {
			t.Fatal(err)
		}
		defer c.close(ctx)
	}
	if b, err := reader.search(ctx, 1, 3); err != nil || !bytes.Contains(b, []byte("kw00003")) {
		t.Fatalf("first search: %v %.300s", err, b)
	}
	st, b, err := writer.post(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_write","arguments":{"type":"convention","title":"Quokka ids are opaque strings","body":"Never parse them."}}}`)
	if err != nil || st != 200 || !bytes.Contains(b, []byte(`"action":"created"`)) {
		t.Fatalf("memory_write: %d %v %.300s", st, err, b)
	}
	st, b, err = reader.post(ctx, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"quokka"}}}`)
	if err != nil || st != 200 || !bytes.Contains(b, []byte("Quokka ids are opaque strings")) {
		t.Errorf("the other session's search: %d %v %.300s", st, err, b)
	}
}

// TestHTTPClientConcurrencyCap checks the per-client concurrency cap: a
// request over it is rejected, not queued, while another client's goes
// through; the total cap rejects what the clients together exceed.
func TestHTTPClientConcurrencyCap(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 4)
	release := make(chan struct{})
	reg := mcp.NewRegistry()
	if err := mcp.AddTool(reg, mcp.Tool{
		Name: "hold", Description: "Waits until released.", InputSchema: []byte(`{"type":"object"}`), Scope: scopeReadTest,
		Governance: mcp.Governance{AuditCategory: "test.read"},
	}, func(ctx context.Context, _ *mcp.Call, _ struct{}) (mcp.Output, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return mcp.Output{Text: "released"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	url, _, stop := serveLoopback(t, reg, func(o *mcp.HTTPOptions) {
		o.Tokens = testTokens()
		o.MaxConcurrency, o.TotalConcurrency = 1, 2
	})
	defer stop()
	ctx := context.Background()
	clients := map[string]*rawClient{}
	for name, tok := range map[string]string{"w1": tokenRW, "w2": tokenRW, "r": tokenRO} {
		clients[name] = &rawClient{hc: &http.Client{}, url: url, token: tok}
		if err := clients[name].open(ctx); err != nil {
			t.Fatal(err)
		}
	}
	hold := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hold"}}`
	done := make(chan string, 2)
	for _, name := range []string{"w1", "r"} {
		go func() {
			_, b, _ := clients[name].post(ctx, hold)
			done <- string(b)
		}()
		<-started
	}
	// The writer's token has its one request in flight: its second
	// session is refused. The total cap (2) is reached too.
	_, b, err := clients["w2"].post(ctx, hold)
	if err != nil || !strings.Contains(string(b), "Server overloaded: 1 requests of client writer already in flight") {
		t.Errorf("second request of the writer's token: %v %s", err, b)
	}
	close(release)
	for range 2 {
		if b := <-done; !strings.Contains(b, "released") {
			t.Errorf("held call: %s", b)
		}
	}
	if _, b, err := clients["w2"].post(ctx, hold); err != nil || !strings.Contains(string(b), "released") {
		t.Errorf("after the release: %v %s", err, b)
	}
}
