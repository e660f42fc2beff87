package jsonrpc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"testing"
)

// BenchmarkPing measures one request/response round trip through the
// stream and the router: the wire's fixed cost per call.
func BenchmarkPing(b *testing.B) {
	s := NewServer(Options{})
	s.Handle("ping", func(context.Context, *Conn, *Request) (any, error) { return nil, nil })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	i := 0
	for b.Loop() {
		i++
		if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i); err != nil {
			b.Fatal(err)
		}
		if _, err := out.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
