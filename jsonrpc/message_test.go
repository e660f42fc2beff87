package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		wantReq   *Request
		wantReply string
		wantErr   bool
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"a":1}}`,
			wantReq: &Request{Method: "echo", ID: IntID(7), Params: []byte(`{"a":1}`)}},
		{name: "string id, null params", in: ` {"jsonrpc":"2.0","id":"x","method":"ping","params":null} `,
			wantReq: &Request{Method: "ping", ID: StringID("x")}},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			wantReq: &Request{Method: "notifications/initialized", Notification: true}},
		{name: "response is dropped", in: `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{name: "not json", in: `{"jsonrpc":`, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`},
		{name: "empty body", in: ``, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`},
		{name: "batch", in: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: batch arrays are not supported; send one message per line"}}`},
		{name: "negative id", in: `{"jsonrpc":"2.0","id":-1,"method":"ping"}`,
			wantReq: &Request{Method: "ping", ID: IntID(-1)}},
		{name: "smallest id", in: `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`,
			wantReq: &Request{Method: "ping", ID: IntID(math.MinInt64)}},
		{name: "minus zero id", in: `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: id must be a string of Unicode text or an integer from -2^63 to 2^63-1 in plain decimal"}}`},
		{name: "id below int64", in: `{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}`, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: id must be a string of Unicode text or an integer from -2^63 to 2^63-1 in plain decimal"}}`},
		{name: "fractional id", in: `{"jsonrpc":"2.0","id":-1.0,"method":"ping"}`, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: id must be a string of Unicode text or an integer from -2^63 to 2^63-1 in plain decimal"}}`},
		{name: "bad version keeps a negative id", in: `{"jsonrpc":"1.0","id":-3,"method":"ping"}`, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","id":-3,"error":{"code":-32600,"message":"Invalid request: jsonrpc must be \"2.0\""}}`},
		{name: "bad version keeps the id", in: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, wantErr: true,
			wantReply: `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid request: jsonrpc must be \"2.0\""}}`},
		{name: "malformed notification is not answered", in: `{"jsonrpc":"1.0","method":"x"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, reply, err := Parse([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse error = %v, want error %v", err, tt.wantErr)
			}
			if string(reply) != tt.wantReply {
				t.Errorf("reply = %s, want %s", reply, tt.wantReply)
			}
			if diff := cmp.Diff(tt.wantReq, req, cmp.AllowUnexported(ID{})); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func mustParse(t *testing.T, s string) *Request {
	t.Helper()
	req, _, err := Parse([]byte(s))
	if err != nil || req == nil {
		t.Fatalf("Parse(%s) = %v, %v", s, req, err)
	}
	return req
}

func TestConnDeliver(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var unsolicited, related []string
	s := testServer(Options{})
	s.Handle("work", func(ctx context.Context, c *Conn, r *Request) (any, error) {
		if err := c.Notify(ctx, "progress", map[string]int{"step": 1}); err != nil {
			return nil, err
		}
		if err := c.Notify(context.Background(), "message", "aside"); err != nil {
			return nil, err
		}
		return map[string]bool{"ok": true}, nil
	})
	c := s.Open(func(_ context.Context, msg []byte) error {
		mu.Lock()
		defer mu.Unlock()
		unsolicited = append(unsolicited, string(msg))
		return nil
	})
	sink := func(_ context.Context, msg []byte) error {
		mu.Lock()
		defer mu.Unlock()
		related = append(related, string(msg))
		return nil
	}
	ctx := context.Background()
	tests := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"id":1,"result":{},"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":"w","method":"work"}`, `{"id":"w","result":{"ok":true},"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":2,"method":"nope"}`, `{"id":2,"error":{"code":-32601,"message":"Method not found: nope"},"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":3,"method":"plainerr"}`, `{"id":3,"error":{"code":-32603,"message":"disk on fire"},"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":-1,"method":"ping"}`, `{"id":-1,"result":{},"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"nope"}`, `{"id":-9223372036854775808,"error":{"code":-32601,"message":"Method not found: nope"},"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0","method":"ping"}`, ``},
	}
	for _, tt := range tests {
		if got := string(c.Deliver(ctx, mustParse(t, tt.in), sink)); got != tt.want {
			t.Errorf("Deliver(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if diff := cmp.Diff([]string{`{"jsonrpc":"2.0","method":"progress","params":{"step":1}}`}, related); diff != "" {
		t.Errorf("messages to the request's sink (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`{"jsonrpc":"2.0","method":"message","params":"aside"}`}, unsolicited); diff != "" {
		t.Errorf("messages to the connection's sink (-want +got):\n%s", diff)
	}
	c.Close()
	if got, want := string(c.Deliver(ctx, mustParse(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`), nil)),
		`{"id":9,"error":{"code":-32600,"message":"Invalid request: the connection is closed"},"jsonrpc":"2.0"}`; got != want {
		t.Errorf("Deliver after Close = %s, want %s", got, want)
	}
}

// deliverSlow opens a connection whose method "slow" waits on the gate
// it returns, and delivers to it, on a goroutine, a request with the JSON
// id; the answer comes on got.
func deliverSlow(t *testing.T, id string) (g *gate, c *Conn, got <-chan []byte) {
	t.Helper()
	g = newGate()
	s := NewServer(Options{})
	s.Handle("slow", g.handle)
	c = s.Open(nil)
	answer := make(chan []byte, 1)
	req := mustParse(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"slow"}`)
	go func() { answer <- c.Deliver(context.Background(), req, nil) }()
	return g, c, answer
}

// TestConnCloseCancels checks that Close cancels the requests in flight,
// suppresses their responses and waits for their handlers.
func TestConnCloseCancels(t *testing.T) {
	t.Parallel()
	g, c, got := deliverSlow(t, `1`)
	<-g.started
	c.Close()
	if err := <-g.ctxErr; !errors.Is(err, context.Canceled) {
		t.Errorf("handler context error = %v, want context.Canceled", err)
	}
	if b := <-got; b != nil {
		t.Errorf("cancelled request answered %s", b)
	}
}

// TestConnCancelAcrossMessages checks a cancellation delivered while the
// request runs in another goroutine, as HTTP delivers it. The id to cancel
// is decoded from JSON, as notifications/cancelled's requestId is.
func TestConnCancelAcrossMessages(t *testing.T) {
	t.Parallel()
	for _, id := range []string{`1`, `0`, `-1`, `-9223372036854775808`, `9223372036854775807`, `"s"`, `"-1"`} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			g, c, got := deliverSlow(t, id)
			await(t, g.started)
			if dup := string(c.Deliver(context.Background(), mustParse(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"slow"}`), nil)); !strings.Contains(dup, "already in flight") {
				t.Errorf("second request with id %s = %s, want already in flight", id, dup)
			}
			var cid ID
			if err := json.Unmarshal([]byte(id), &cid); err != nil {
				t.Fatal(err)
			}
			if !c.Cancel(cid) {
				t.Fatal("Cancel found nothing in flight")
			}
			if err := await(t, g.ctxErr); !errors.Is(err, context.Canceled) {
				t.Errorf("handler context error = %v, want context.Canceled", err)
			}
			if b := await(t, got); b != nil {
				t.Errorf("cancelled request answered %s", b)
			}
			if c.Cancel(cid) {
				t.Error("Cancel of a finished request reported success")
			}
		})
	}
}

func TestServerAdmit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	admitted, released, rejected := 0, 0, 0
	s := testServer(Options{
		Admit: func(req *Request) (func(), *Error) {
			mu.Lock()
			defer mu.Unlock()
			if admitted == 1 {
				return nil, Errorf(CodeOverloaded, "Rate limit exceeded for token a; retry later")
			}
			admitted++
			return func() { mu.Lock(); released++; mu.Unlock() }, nil
		},
		Rejected: func(*Request, *Error) { mu.Lock(); rejected++; mu.Unlock() },
	})
	c := s.Open(nil)
	ctx := context.Background()
	first := string(c.Deliver(ctx, mustParse(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil))
	second := string(c.Deliver(ctx, mustParse(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil))
	if first != `{"id":1,"result":{},"jsonrpc":"2.0"}` {
		t.Errorf("first = %s", first)
	}
	if second != `{"id":1,"error":{"code":-31000,"message":"Rate limit exceeded for token a; retry later"},"jsonrpc":"2.0"}` {
		t.Errorf("second = %s", second)
	}
	if released != 1 || rejected != 1 {
		t.Errorf("released %d, rejected %d; want 1 and 1", released, rejected)
	}
	c.Close() // returns: the rejected request left no reservation behind
}
