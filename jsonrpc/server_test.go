package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testServer returns a server with the methods the table tests call.
func testServer(opts Options) *Server {
	s := NewServer(opts)
	s.Handle("ping", func(context.Context, *Conn, *Request) (any, error) { return nil, nil })
	s.Handle("echo", func(_ context.Context, _ *Conn, r *Request) (any, error) {
		if r.Params == nil {
			return map[string]any{"params": "absent"}, nil
		}
		return map[string]any{"params": r.Params}, nil
	})
	s.Handle("nilmap", func(context.Context, *Conn, *Request) (any, error) {
		var m map[string]int
		return m, nil
	})
	s.Handle("rpcerr", func(context.Context, *Conn, *Request) (any, error) {
		return nil, &Error{Code: CodeInvalidParams, Message: "bad thing", Data: map[string]string{"uri": "x://y"}}
	})
	s.Handle("wrapped", func(context.Context, *Conn, *Request) (any, error) {
		return nil, fmt.Errorf("outer: %w", Errorf(CodeInvalidParams, "inner %d", 7))
	})
	s.Handle("plainerr", func(context.Context, *Conn, *Request) (any, error) {
		return nil, errors.New("disk on fire")
	})
	s.Handle("panic", func(context.Context, *Conn, *Request) (any, error) {
		panic("boom")
	})
	s.Handle("badresult", func(context.Context, *Conn, *Request) (any, error) {
		return func() {}, nil
	})
	return s
}

func serveString(t *testing.T, s *Server, in string) []string {
	t.Helper()
	var out bytes.Buffer
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return lines(out.String())
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func TestServe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string // compared as a set: concurrent requests answer in any order
	}{
		{
			name: "ping answers an empty object",
			in:   `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
			want: []string{`{"id":1,"result":{},"jsonrpc":"2.0"}`},
		},
		{
			name: "ids 0, strings and the integers at both ends of int64 are echoed",
			in: `{"jsonrpc":"2.0","id":0,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":"a","method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":"","method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":"-1","method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}` + "\n",
			want: []string{
				`{"id":0,"result":{},"jsonrpc":"2.0"}`,
				`{"id":"a","result":{},"jsonrpc":"2.0"}`,
				`{"id":"","result":{},"jsonrpc":"2.0"}`,
				`{"id":"-1","result":{},"jsonrpc":"2.0"}`,
				`{"id":9223372036854775807,"result":{},"jsonrpc":"2.0"}`,
				`{"id":-9223372036854775808,"result":{},"jsonrpc":"2.0"}`,
			},
		},
		{
			name: "negative ids are served and echoed",
			in: `{"jsonrpc":"2.0","id":-5,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":-1,"method":"echo","params":[1]}` + "\n" +
				`{"jsonrpc":"2.0","id":-2,"method":"rpcerr"}` + "\n" +
				`{"jsonrpc":"2.0","id":-3,"method":"nope"}` + "\n" +
				`{"jsonrpc":"2.0","id":-4,"method":"ping","params":3}` + "\n",
			want: []string{
				`{"id":-5,"result":{},"jsonrpc":"2.0"}`,
				`{"id":-1,"result":{"params":[1]},"jsonrpc":"2.0"}`,
				`{"id":-2,"error":{"code":-32602,"message":"bad thing","data":{"uri":"x://y"}},"jsonrpc":"2.0"}`,
				`{"id":-3,"error":{"code":-32601,"message":"Method not found: nope"},"jsonrpc":"2.0"}`,
				`{"jsonrpc":"2.0","id":-4,"error":{"code":-32600,"message":"Invalid request: params must be an object or an array"}}`,
			},
		},
		{
			name: "invalid ids are rejected without an id",
			in: `{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":-0,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":1.0,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":-1.0,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":1e2,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":-1E2,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":{},"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}` + "\n",
			want: slices.Repeat([]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: id must be a string of Unicode text or an integer from -2^63 to 2^63-1 in plain decimal"}}`}, 11),
		},
		{
			name: "a line that is not JSON is answered and the session goes on",
			in:   "this is not json\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n",
			want: []string{
				`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: invalid character 'h' in literal true (expecting 'r')"}}`,
				`{"id":2,"result":{},"jsonrpc":"2.0"}`,
			},
		},
		{
			name: "truncated JSON is a parse error",
			in:   `{"jsonrpc":"2.0","id":3,"method":` + "\n",
			want: []string{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`},
		},
		{
			name: "a batch is rejected",
			in:   `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n",
			want: []string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: batch arrays are not supported; send one message per line"}}`},
		},
		{
			name: "a scalar is not a message",
			in:   "42\n\"ping\"\nnull\n",
			want: slices.Repeat([]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: a message must be a JSON object"}}`}, 3),
		},
		{
			name: "envelope errors echo a valid id",
			in: `{"id":4,"method":"ping"}` + "\n" +
				`{"jsonrpc":"1.0","id":5,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":6}` + "\n" +
				`{"jsonrpc":"2.0","id":7,"method":7}` + "\n" +
				`{"jsonrpc":"2.0","id":8,"method":"ping","params":3}` + "\n" +
				`{"jsonrpc":"2.0","id":9,"method":"ping","result":{}}` + "\n",
			want: []string{
				`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid request: jsonrpc must be \"2.0\""}}`,
				`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid request: jsonrpc must be \"2.0\""}}`,
				`{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"Invalid request: a message needs a method"}}`,
				`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid request: method must be a string"}}`,
				`{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"Invalid request: params must be an object or an array"}}`,
				`{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid request: a message cannot have both method and result or error"}}`,
			},
		},
		{
			name: "malformed notifications are dropped unanswered",
			in: `{"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","method":"ping","params":0}` + "\n" +
				`{"jsonrpc":"2.0","method":7}` + "\n" +
				`{"jsonrpc":"2.0","method":"ping","result":{}}` + "\n" +
				`{"jsonrpc":"2.0","method":"ping","Error":1}` + "\n" + // jsonrpc2 matches member names case-insensitively
				`{"jsonrpc":"2.0","method":"ping","METHOD":7}` + "\n" +
				`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
			want: []string{`{"id":1,"result":{},"jsonrpc":"2.0"}`},
		},
		{
			name: "params absent, null, object and array",
			in: `{"jsonrpc":"2.0","id":1,"method":"echo"}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"echo","params":null}` + "\n" +
				`{"jsonrpc":"2.0","id":3,"method":"echo","params":{"a":[1,2]}}` + "\n" +
				`{"jsonrpc":"2.0","id":4,"method":"echo","params":["x"]}` + "\n",
			want: []string{
				`{"id":1,"result":{"params":"absent"},"jsonrpc":"2.0"}`,
				`{"id":2,"result":{"params":"absent"},"jsonrpc":"2.0"}`,
				`{"id":3,"result":{"params":{"a":[1,2]}},"jsonrpc":"2.0"}`,
				`{"id":4,"result":{"params":["x"]},"jsonrpc":"2.0"}`,
			},
		},
		{
			name: "unknown method",
			in:   `{"jsonrpc":"2.0","id":"u","method":"server/discover"}` + "\n",
			want: []string{`{"id":"u","error":{"code":-32601,"message":"Method not found: server/discover"},"jsonrpc":"2.0"}`},
		},
		{
			name: "a long unknown method is named cut",
			in: `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("a", MaxEchoBytes+1) + `"}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"` + strings.Repeat("a", MaxEchoBytes-4) + `ééx"}` + "\n" +
				`{"jsonrpc":"2.0","id":3,"method":"` + strings.Repeat("<", 1<<20) + `"}` + "\n",
			want: []string{
				`{"id":1,"error":{"code":-32601,"message":"Method not found: ` + strings.Repeat("a", MaxEchoBytes-3) + `…"},"jsonrpc":"2.0"}`,
				`{"id":2,"error":{"code":-32601,"message":"Method not found: ` + strings.Repeat("a", MaxEchoBytes-4) + `…"},"jsonrpc":"2.0"}`,
				`{"id":3,"error":{"code":-32601,"message":"Method not found: ` + strings.Repeat(`\u003c`, MaxEchoBytes-3) + `…"},"jsonrpc":"2.0"}`,
			},
		},
		{
			name: "notifications get no response, known or not",
			in: `{"jsonrpc":"2.0","method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}` + "\n" +
				`{"jsonrpc":"2.0","method":"panic"}` + "\n",
			want: nil,
		},
		{
			name: "handler errors become error objects",
			in: `{"jsonrpc":"2.0","id":1,"method":"rpcerr"}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"wrapped"}` + "\n" +
				`{"jsonrpc":"2.0","id":3,"method":"plainerr"}` + "\n" +
				`{"jsonrpc":"2.0","id":4,"method":"panic"}` + "\n" +
				`{"jsonrpc":"2.0","id":5,"method":"badresult"}` + "\n",
			want: []string{
				`{"id":1,"error":{"code":-32602,"message":"bad thing","data":{"uri":"x://y"}},"jsonrpc":"2.0"}`,
				`{"id":2,"error":{"code":-32602,"message":"inner 7"},"jsonrpc":"2.0"}`,
				`{"id":3,"error":{"code":-32603,"message":"disk on fire"},"jsonrpc":"2.0"}`,
				`{"id":4,"error":{"code":-32603,"message":"Internal error: handler for panic panicked"},"jsonrpc":"2.0"}`,
				`{"id":5,"error":{"code":-32603,"message":"Internal error: encode result of badresult: json: unsupported type: func()"},"jsonrpc":"2.0"}`,
			},
		},
		{
			name: "a nil map result is an empty object",
			in:   `{"jsonrpc":"2.0","id":1,"method":"nilmap"}` + "\n",
			want: []string{`{"id":1,"result":{},"jsonrpc":"2.0"}`},
		},
		{
			name: "blank lines, CRLF and a last line without newline",
			in:   "\n  \r\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			want: []string{`{"id":1,"result":{},"jsonrpc":"2.0"}`, `{"id":2,"result":{},"jsonrpc":"2.0"}`},
		},
		{
			name: "responses from the peer are never answered",
			in: `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}` + "\n" +
				`{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}` + "\n" +
				`{"jsonrpc":"2.0","id":3,"error":null}` + "\n" +
				`{"id":2,"result":{}}` + "\n",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := serveString(t, testServer(Options{}), tt.in)
			want := slices.Clone(tt.want)
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			for _, l := range got {
				if !json.Valid([]byte(l)) {
					t.Errorf("output line is not JSON: %s", l)
				}
			}
		})
	}
}

func TestServeMessageLimit(t *testing.T) {
	t.Parallel()
	pad := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"p":"` + strings.Repeat("x", n) + `"}}`
	}
	tests := []struct {
		name string
		in   string
		want string
	}{
		{
			name: "at the limit",
			in:   pad(64 - len(pad(0))),
			want: `{"id":1,"result":{"params":{"p":"` + strings.Repeat("x", 64-len(pad(0))) + `"}},"jsonrpc":"2.0"}`,
		},
		{
			name: "over the limit, id echoed",
			in:   pad(65 - len(pad(0))),
			want: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid request: message of 65 bytes exceeds the 64-byte limit"}}`,
		},
		{
			name: "over the limit, notification dropped unanswered",
			in:   `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"p":"` + strings.Repeat("x", 64) + `"}}`,
		},
		{
			name: "over the limit, client response dropped unanswered",
			in:   `{"jsonrpc":"2.0","id":7,"result":{"p":"` + strings.Repeat("x", 64) + `"}}`,
		},
		{
			name: "far over the limit, id lost",
			in:   pad(64 + idSlack + 1),
			want: fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: message of %d bytes exceeds the 64-byte limit"}}`, len(pad(64+idSlack+1))),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testServer(Options{MaxMessageBytes: 64})
			got := serveString(t, s, tt.in+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
			want := []string{`{"id":2,"result":{},"jsonrpc":"2.0"}`}
			if tt.want != "" {
				want = append(want, tt.want)
			}
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// gate is a handler that reports its start and blocks until released or
// cancelled.
type gate struct {
	started chan ID
	release chan struct{}
	ctxErr  chan error
}

func newGate() *gate {
	return &gate{started: make(chan ID, 16), release: make(chan struct{}), ctxErr: make(chan error, 16)}
}

func (g *gate) handle(ctx context.Context, _ *Conn, r *Request) (any, error) {
	g.started <- r.ID
	select {
	case <-g.release:
		return map[string]string{"slow": "done"}, nil
	case <-ctx.Done():
		g.ctxErr <- ctx.Err()
		return nil, ctx.Err()
	}
}

// await receives from ch, failing the test when nothing comes within 10s:
// a hang guard, not a timing assumption.
func await[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received within 10s")
	}
	var zero T
	return zero
}

// session drives Serve over pipes, one line at a time.
type session struct {
	t    *testing.T
	in   *io.PipeWriter
	out  chan string
	done chan error
	eof  chan struct{}
}

// eofReader reports when its reader has returned io.EOF.
type eofReader struct {
	r    io.Reader
	once sync.Once
	eof  chan struct{}
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

func startSession(t *testing.T, ctx context.Context, s *Server) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss := &session{t: t, in: inW, out: make(chan string, 64), done: make(chan error, 1), eof: make(chan struct{})}
	go func() {
		err := s.Serve(ctx, &eofReader{r: inR, eof: ss.eof}, outW)
		outW.Close()
		ss.done <- err
	}()
	go func() {
		buf := make([]byte, 0, 4096)
		tmp := make([]byte, 4096)
		for {
			n, err := outR.Read(tmp)
			buf = append(buf, tmp[:n]...)
			for {
				i := bytes.IndexByte(buf, '\n')
				if i < 0 {
					break
				}
				ss.out <- string(buf[:i])
				buf = buf[i+1:]
			}
			if err != nil {
				close(ss.out)
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return ss
}

func (ss *session) send(line string) {
	ss.t.Helper()
	if _, err := io.WriteString(ss.in, line+"\n"); err != nil {
		ss.t.Fatalf("write %s: %v", line, err)
	}
}

func (ss *session) next() string {
	ss.t.Helper()
	select {
	case l, ok := <-ss.out:
		if !ok {
			ss.t.Fatal("output closed")
		}
		return l
	case <-time.After(10 * time.Second): // a hang guard, not a timing assumption
		ss.t.Fatal("no output line within 10s")
	}
	return ""
}

func (ss *session) expect(want string) {
	ss.t.Helper()
	if got := ss.next(); got != want {
		ss.t.Errorf("line:\n got %s\nwant %s", got, want)
	}
}

func (ss *session) close() (rest []string, err error) {
	ss.t.Helper()
	ss.in.Close()
	for l := range ss.out {
		rest = append(rest, l)
	}
	return rest, <-ss.done
}

func TestServeConcurrentAndCancel(t *testing.T) {
	t.Parallel()
	g := newGate()
	s := NewServer(Options{})
	s.Handle("slow", g.handle)
	s.Handle("ping", func(context.Context, *Conn, *Request) (any, error) { return nil, nil })
	s.Handle("cancel", func(_ context.Context, c *Conn, r *Request) (any, error) {
		var p struct{ ID ID }
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, err
		}
		c.Cancel(p.ID)
		return nil, nil
	})
	ss := startSession(t, context.Background(), s)

	ss.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	ss.send(`{"jsonrpc":"2.0","id":"two","method":"slow"}`)
	<-g.started
	<-g.started
	ss.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	ss.expect(`{"id":3,"result":{},"jsonrpc":"2.0"}`)
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	ss.expect(`{"id":1,"error":{"code":-32600,"message":"Invalid request: id 1 is already in flight"},"jsonrpc":"2.0"}`)
	ss.send(`{"jsonrpc":"2.0","method":"cancel","params":{"id":1}}`)
	if err := <-g.ctxErr; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled handler saw %v, want context.Canceled", err)
	}
	ss.send(`{"jsonrpc":"2.0","method":"cancel","params":{"id":99}}`) // unknown id: ignored
	close(g.release)
	ss.expect(`{"id":"two","result":{"slow":"done"},"jsonrpc":"2.0"}`)
	rest, err := ss.close()
	if err != nil {
		t.Errorf("Serve: %v", err)
	}
	if len(rest) != 0 {
		t.Errorf("cancelled request answered: %q", rest)
	}
}

// TestServeCancelByID cancels, over the stream, a request of each kind of
// id: the cancelling notification carries the id as JSON, and the
// cancelled request gets no response.
func TestServeCancelByID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		id   string
	}{
		{name: "zero", id: `0`},
		{name: "positive", id: `7`},
		{name: "minus one", id: `-1`},
		{name: "negative", id: `-5`},
		{name: "int64 min", id: `-9223372036854775808`},
		{name: "int64 max", id: `9223372036854775807`},
		{name: "string", id: `"slow"`},
		{name: "string of a negative number", id: `"-5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGate()
			s := NewServer(Options{})
			s.Handle("slow", g.handle)
			s.Handle("ping", func(context.Context, *Conn, *Request) (any, error) { return nil, nil })
			cancelled := make(chan bool, 1)
			s.Handle("cancel", func(_ context.Context, c *Conn, r *Request) (any, error) {
				var p struct{ ID ID }
				if err := json.Unmarshal(r.Params, &p); err != nil {
					return nil, err
				}
				cancelled <- c.Cancel(p.ID)
				return nil, nil
			})
			ss := startSession(t, context.Background(), s)
			ss.send(`{"jsonrpc":"2.0","id":` + tt.id + `,"method":"slow"}`)
			await(t, g.started)
			ss.send(`{"jsonrpc":"2.0","id":` + tt.id + `,"method":"slow"}`)
			ss.expect(`{"id":` + tt.id + `,"error":{"code":-32600,"message":"Invalid request: id ` + strings.ReplaceAll(tt.id, `"`, `\"`) + ` is already in flight"},"jsonrpc":"2.0"}`)
			ss.send(`{"jsonrpc":"2.0","method":"cancel","params":{"id":` + tt.id + `}}`)
			if !await(t, cancelled) {
				t.Fatalf("Cancel(%s) found nothing in flight", tt.id)
			}
			if err := await(t, g.ctxErr); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled handler saw %v, want context.Canceled", err)
			}
			ss.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			ss.expect(`{"id":"after","result":{},"jsonrpc":"2.0"}`)
			rest, err := ss.close()
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
			if len(rest) != 0 {
				t.Errorf("cancelled request answered: %q", rest)
			}
		})
	}
}

// TestServeRefusesLossyStringIDs sends, while a request is in flight,
// requests whose string ids Go would decode with a replacement: a lone
// surrogate escape (valid JSON grammar, and a distinct string for a
// JavaScript client) or a byte that is not UTF-8 becomes U+FFFD. Such an id
// could not be echoed as sent, and two of them would collide as one in
// flight: each is refused as an invalid request, and the session goes on.
// A surrogate pair escaped, a literal U+FFFD and its escape are text, and
// echoed as the same JSON value.
func TestServeRefusesLossyStringIDs(t *testing.T) {
	t.Parallel()
	refused := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: id must be a string of Unicode text or an integer from -2^63 to 2^63-1 in plain decimal"}}`
	tests := []struct {
		name string
		id   string
		echo string // "": refused
	}{
		{name: "a lone high surrogate", id: `"\ud800"`},
		{name: "a lone low surrogate", id: `"\udc00"`},
		{name: "a lone surrogate in text", id: `"a\udbffb"`},
		{name: "a high surrogate then a letter escape", id: `"\ud800\u0041"`},
		{name: "two high surrogates", id: `"\ud800\udbff"`},
		{name: "a low surrogate before a high one", id: `"\udc00\ud800"`},
		{name: "a high surrogate at the end", id: `"ab\uD800"`},
		{name: "a byte that is not UTF-8", id: "\"a\xffb\""},
		{name: "a surrogate pair", id: `"\ud83d\ude00"`, echo: `"😀"`},
		{name: "a surrogate pair in capitals", id: `"x\uD83D\uDE00y"`, echo: `"x😀y"`},
		{name: "U+FFFD escaped", id: `"\ufffd"`, echo: "\"\ufffd\""},
		{name: "U+FFFD itself", id: "\"\ufffd\"", echo: "\"\ufffd\""},
		{name: "an escaped backslash before u", id: `"\\ud800"`, echo: `"\\ud800"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGate()
			s := NewServer(Options{})
			s.Handle("slow", g.handle)
			s.Handle("ping", func(context.Context, *Conn, *Request) (any, error) { return nil, nil })
			ss := startSession(t, context.Background(), s)
			ss.send(`{"jsonrpc":"2.0","id":"slow","method":"slow"}`)
			await(t, g.started)
			ss.send(`{"jsonrpc":"2.0","id":` + tt.id + `,"method":"ping"}`)
			if tt.echo != "" {
				ss.expect(`{"id":` + tt.echo + `,"result":{},"jsonrpc":"2.0"}`)
			} else {
				ss.expect(refused)
			}
			close(g.release)
			ss.expect(`{"id":"slow","result":{"slow":"done"},"jsonrpc":"2.0"}`)
			if rest, err := ss.close(); err != nil || len(rest) != 0 {
				t.Errorf("Serve: %v; more lines: %q", err, rest)
			}
		})
	}
}

func TestServeEOFDrainsInFlight(t *testing.T) {
	t.Parallel()
	g := newGate()
	s := NewServer(Options{})
	s.Handle("slow", g.handle)
	ss := startSession(t, context.Background(), s)
	for i := range 3 {
		ss.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"slow"}`, i))
	}
	for range 3 {
		<-g.started
	}
	ss.in.Close()
	<-ss.eof // the stream has seen EOF while three requests are in flight
	close(g.release)
	rest, err := ss.close()
	if err != nil {
		t.Errorf("Serve: %v", err)
	}
	slices.Sort(rest)
	want := []string{
		`{"id":0,"result":{"slow":"done"},"jsonrpc":"2.0"}`,
		`{"id":1,"result":{"slow":"done"},"jsonrpc":"2.0"}`,
		`{"id":2,"result":{"slow":"done"},"jsonrpc":"2.0"}`,
	}
	if diff := cmp.Diff(want, rest); diff != "" {
		t.Errorf("responses after EOF (-want +got):\n%s", diff)
	}
}

func TestServeMaxConcurrency(t *testing.T) {
	t.Parallel()
	g := newGate()
	s := NewServer(Options{MaxConcurrency: 1})
	s.Handle("slow", g.handle)
	s.Handle("ping", func(context.Context, *Conn, *Request) (any, error) { return nil, nil })
	ss := startSession(t, context.Background(), s)
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	<-g.started
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	ss.expect(`{"id":2,"error":{"code":-31000,"message":"Server overloaded: 1 requests already in flight; retry later"},"jsonrpc":"2.0"}`)
	close(g.release)
	ss.expect(`{"id":1,"result":{"slow":"done"},"jsonrpc":"2.0"}`)
	ss.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	ss.expect(`{"id":3,"result":{},"jsonrpc":"2.0"}`)
	if _, err := ss.close(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

type countLimiter struct {
	mu   sync.Mutex
	left int
}

func (l *countLimiter) Allow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.left == 0 {
		return false
	}
	l.left--
	return true
}

func TestServeLimiter(t *testing.T) {
	t.Parallel()
	var rejected []string // only touched on the read loop
	s := testServer(Options{Limiter: &countLimiter{left: 2}, Rejected: func(r *Request, e *Error) {
		rejected = append(rejected, fmt.Sprintf("%s %s %d", r.ID, r.Method, e.Code))
	}})
	got := serveString(t, s,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+
			`{"jsonrpc":"2.0","method":"ping"}`+"\n"+ // notifications are not limited
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n"+
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
	slices.Sort(got)
	want := []string{
		`{"id":1,"result":{},"jsonrpc":"2.0"}`,
		`{"id":2,"result":{},"jsonrpc":"2.0"}`,
		`{"id":3,"error":{"code":-31000,"message":"Rate limit exceeded; retry later"},"jsonrpc":"2.0"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"3 ping -31000"}, rejected); diff != "" {
		t.Errorf("rejected (-want +got):\n%s", diff)
	}
}

func TestConnNotify(t *testing.T) {
	t.Parallel()
	s := NewServer(Options{})
	s.Handle("work", func(ctx context.Context, c *Conn, r *Request) (any, error) {
		for i := 1; i <= 2; i++ {
			if err := c.Notify(ctx, "progress", map[string]int{"step": i}); err != nil {
				return nil, err
			}
		}
		return map[string]bool{"ok": true}, nil
	})
	got := serveString(t, s, `{"jsonrpc":"2.0","id":"w","method":"work"}`+"\n")
	want := []string{
		`{"jsonrpc":"2.0","method":"progress","params":{"step":1}}`,
		`{"jsonrpc":"2.0","method":"progress","params":{"step":2}}`,
		`{"id":"w","result":{"ok":true},"jsonrpc":"2.0"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestServeNotificationsInOrder(t *testing.T) {
	t.Parallel()
	var seen []string // only touched on the read loop
	s := NewServer(Options{})
	s.Handle("note", func(_ context.Context, _ *Conn, r *Request) (any, error) {
		seen = append(seen, string(r.Params))
		return nil, nil
	})
	var in strings.Builder
	var want []string
	for i := range 50 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"note","params":[%d]}`+"\n", i)
		want = append(want, fmt.Sprintf("[%d]", i))
	}
	if got := serveString(t, s, in.String()); len(got) != 0 {
		t.Errorf("notifications answered: %q", got)
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("notification order (-want +got):\n%s", diff)
	}
}

func TestServeTrace(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	trace := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	s := testServer(Options{Trace: trace})
	serveString(t, s, "nope\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	want := []string{
		`level=INFO msg="rpc recv" message=nope`,
		`level=INFO msg="rpc send" message="{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error: invalid character 'o' in literal null (expecting 'u')\"}}"`,
		`level=INFO msg="rpc recv" message="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"`,
		`level=INFO msg="rpc send" message="{\"id\":1,\"result\":{},\"jsonrpc\":\"2.0\"}"`,
	}
	if diff := cmp.Diff(want, lines(log.String())); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// TestServeRedacts checks that Options.Redact rewrites the peer's text
// the server echoes (an unknown method's name) and every line it traces,
// both ways.
func TestServeRedacts(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	trace := slog.New(slog.NewTextHandler(&log, nil))
	redact := func(s string) string { return strings.ReplaceAll(s, "s3kr1t", "[R]") }
	s := testServer(Options{Trace: trace, Redact: redact})
	out := serveString(t, s, `{"jsonrpc":"2.0","id":1,"method":"s3kr1t"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"echo","params":{"q":"s3kr1t"}}`+"\n")
	want := []string{
		`{"id":1,"error":{"code":-32601,"message":"Method not found: [R]"},"jsonrpc":"2.0"}`,
		`{"id":2,"result":{"params":{"q":"s3kr1t"}},"jsonrpc":"2.0"}`, // results are the handler's to redact
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if strings.Contains(log.String(), "s3kr1t") || strings.Count(log.String(), "[R]") != 4 {
		t.Errorf("trace, want every s3kr1t redacted, in both lines of both calls:\n%s", log.String())
	}

	// A long line is redacted whole before it is cut: a secret across the
	// cut leaves no part of itself behind. The answer is cut too.
	log.Reset()
	pad := strings.Repeat("x", 4096-len(`{"jsonrpc":"2.0","id":3,"method":"echo","params":{"q":"`)-9) // s3kr1t across byte 4093
	serveString(t, s, `{"jsonrpc":"2.0","id":3,"method":"echo","params":{"q":"`+pad+` s3kr1t and more"}}`+"\n")
	if strings.Contains(log.String(), "s3kr") || !strings.Contains(log.String(), "bytes)") {
		t.Errorf("trace of a long line, want it cut and no part of s3kr1t:\n%.300s", log.String()[max(0, log.Len()-300):])
	}
}

func TestServeContextCancelled(t *testing.T) {
	t.Parallel()
	g := newGate()
	s := NewServer(Options{})
	s.Handle("slow", g.handle)
	ctx, cancel := context.WithCancel(context.Background())
	ss := startSession(t, ctx, s)
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	<-g.started
	cancel()
	if err := <-ss.done; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve = %v, want context.Canceled", err)
	}
	if err := <-g.ctxErr; !errors.Is(err, context.Canceled) {
		t.Errorf("handler saw %v, want context.Canceled", err)
	}
}

type failingReader struct{ data *strings.Reader }

func (f failingReader) Read(p []byte) (int, error) {
	if f.data.Len() > 0 {
		return f.data.Read(p)
	}
	return 0, errors.New("device gone")
}

func TestServeReadError(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s := testServer(Options{})
	err := s.Serve(context.Background(), failingReader{strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")}, &out)
	if err == nil || err.Error() != "read messages: device gone" {
		t.Errorf("Serve = %v, want read messages: device gone", err)
	}
	if got := out.String(); got != `{"id":1,"result":{},"jsonrpc":"2.0"}`+"\n" {
		t.Errorf("output = %q", got)
	}
}

func TestIDJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    ID
		wantOut string // the id's JSON text when it differs from in
		wantErr bool
	}{
		{name: "zero", in: `0`, want: IntID(0)},
		{name: "positive", in: `42`, want: IntID(42)},
		{name: "minus one", in: `-1`, want: IntID(-1)},
		{name: "negative", in: `-42`, want: IntID(-42)},
		{name: "int64 max", in: `9223372036854775807`, want: IntID(math.MaxInt64)},
		{name: "int64 min", in: `-9223372036854775808`, want: IntID(math.MinInt64)},
		{name: "string", in: `"a"`, want: StringID("a")},
		{name: "escaped string", in: `"\u0041"`, want: StringID("A"), wantOut: `"A"`},
		{name: "empty string", in: `""`, want: StringID("")},
		{name: "string of a negative number", in: `"-1"`, want: StringID("-1")},
		{name: "string minus", in: `"-"`, want: StringID("-")},
		{name: "string null", in: `"null"`, want: StringID("null")},
		{name: "null", in: `null`, wantErr: true},
		{name: "fraction", in: `1.0`, wantErr: true},
		{name: "negative fraction", in: `-1.5`, wantErr: true},
		{name: "exponent", in: `1e3`, wantErr: true},
		{name: "negative exponent", in: `-1E3`, wantErr: true},
		{name: "leading zero", in: `01`, wantErr: true},
		{name: "leading zeros", in: `007`, wantErr: true},
		{name: "negative leading zero", in: `-01`, wantErr: true},
		{name: "minus zero", in: `-0`, wantErr: true},
		{name: "minus", in: `-`, wantErr: true},
		{name: "plus", in: `+1`, wantErr: true},
		{name: "int64 max plus one", in: `9223372036854775808`, wantErr: true},
		{name: "int64 min minus one", in: `-9223372036854775809`, wantErr: true},
		{name: "uint64 max", in: `18446744073709551615`, wantErr: true},
		{name: "array", in: `[1]`, wantErr: true},
		{name: "bool", in: `true`, wantErr: true},
		{name: "object", in: `{}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// parseID sees the raw member text of a line that is valid
			// JSON; Unmarshal also rejects what is not JSON at all.
			if got, ok := parseID([]byte(tt.in)); ok == tt.wantErr || got != tt.want {
				t.Errorf("parseID(%s) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, !tt.wantErr)
			}
			var got ID
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal(%s) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got != tt.want {
				t.Errorf("Unmarshal(%s) = %v, want %v", tt.in, got, tt.want)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			wantOut := tt.in
			if tt.wantOut != "" {
				wantOut = tt.wantOut
			}
			if string(b) != wantOut {
				t.Errorf("Marshal(%v) = %s, want %s", got, b, wantOut)
			}
			if got.String() != wantOut {
				t.Errorf("String() = %s, want %s", got.String(), wantOut)
			}
			var back ID
			if err := json.Unmarshal(b, &back); err != nil || back != got {
				t.Errorf("round trip of %s: %s → %v, %v", tt.in, b, back, err)
			}
		})
	}
}
