package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/mcp"
)

// benchSession serves the fake registry over pipes for benchmarks.
type benchSession struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	served chan error
}

func startBench(b *testing.B) *benchSession {
	b.Helper()
	reg, err := fakeRegistry()
	if err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &benchSession{in: inW, out: bufio.NewReaderSize(outR, 1<<20), served: make(chan error, 1)}
	go func() {
		s.served <- mcp.Serve(context.Background(), inR, outW, mcp.Options{Registry: reg, RequestsPerMinute: -1})
		outW.Close()
	}()
	return s
}

func (s *benchSession) roundTrip(b *testing.B, line string) string {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		b.Fatal(err)
	}
	resp, err := s.out.ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

func (s *benchSession) close(b *testing.B) {
	s.in.Close()
	if err := <-s.served; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkToolsCall measures one tools/call round trip through the whole
// wire (framing, dispatch, argument validation, structured output check,
// redaction) with a trivial tool, i.e. the server's own overhead per call,
// in each era: legacy, and 2026-07-28 (its _meta read and validated, the
// result given resultType and serverInfo).
func BenchmarkToolsCall(b *testing.B) {
	for _, era := range []struct{ name, meta, want string }{
		{"legacy", "", `"structuredContent"`},
		{"modern", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}`, `"resultType":"complete"`},
	} {
		b.Run(era.name, func(b *testing.B) {
			s := startBench(b)
			defer s.close(b)
			i := 0
			for b.Loop() {
				i++
				resp := s.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"persistence layer"}%s}}`, i, era.meta))
				if !strings.Contains(resp, era.want) || !strings.Contains(resp, `"structuredContent"`) {
					b.Fatalf("unexpected response %s", resp)
				}
			}
		})
	}
}

// BenchmarkInitialize measures a session from start to the initialize
// response, in process (no exec).
func BenchmarkInitialize(b *testing.B) {
	for b.Loop() {
		s := startBench(b)
		resp := s.roundTrip(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
		if !strings.Contains(resp, `"serverInfo"`) {
			b.Fatalf("unexpected response %s", resp)
		}
		s.close(b)
	}
}
