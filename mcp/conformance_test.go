package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"

	"github.com/foundryhq/foundry/contracts"

	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
	"golang.org/x/time/rate"

	"github.com/foundryhq/foundry/mcp"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/conformance/*.txtar")

// TestConformance replays the transcripts in testdata/conformance. Each is
// a txtar archive: a prose header, an optional "options" section of
// key=value lines, a "client" section sent to the server line by line, a
// "server" section holding every line the server must write, in order, and
// an optional "audit" section (its presence turns auditing on).
//
// Client lines are sent as they are, except directives:
//
//	@async <line>      send without waiting for the response
//	@await <id>        wait for the next response with that JSON id
//	@wait <point>      wait until a test pause point is reached
//	@release <point>   release a pause point
//	@close             close the server's input (EOF)
//
// After a plain line the harness waits for the response it is owed (by id,
// or the next id-less error for a line without a usable id); after a
// notification it waits for nothing. Pause points (option pause=a,b) make
// concurrency deterministic: nothing here depends on timing.
func TestConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/conformance")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			// Not parallel: pause points are configured through the environment.
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]*txtar.File{}
			for i := range ar.Files {
				sections[ar.Files[i].Name] = &ar.Files[i]
			}
			if len(bytes.TrimSpace(ar.Comment)) == 0 {
				t.Error("transcript has no prose header")
			}
			client, server := sections["client"], sections["server"]
			if client == nil || server == nil {
				t.Fatal("transcript needs client and server sections")
			}
			var opts []byte
			if o := sections["options"]; o != nil {
				opts = o.Data
			}
			audit := sections["audit"]
			got, gotAudit := runTranscript(t, opts, client.Data, audit != nil)
			if *update {
				server.Data = got
				if audit != nil {
					audit.Data = gotAudit
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(splitLines(server.Data), splitLines(got)); diff != "" {
				t.Errorf("server lines (-want +got):\n%s", diff)
			}
			if audit != nil {
				if diff := cmp.Diff(splitLines(audit.Data), splitLines(gotAudit)); diff != "" {
					t.Errorf("audit lines (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// transcript drives one server session.
type transcript struct {
	t        *testing.T
	in       *io.PipeWriter
	inClosed bool
	pauseDir string
	served   chan error

	// outputs are the compiled output schemas by tool name; every
	// structuredContent of a successful tools/call is checked against its
	// tool's, which is what lets the server skip the check for tools whose
	// output is proven here (Tool.OutputProven).
	outputs map[string]*contracts.Schema

	mu       sync.Mutex
	calls    map[string]string // canonical id of a tools/call → tool name
	out      []string
	outDone  bool
	changed  chan struct{} // closed and replaced whenever out grows
	consumed map[string]int
}

// hangGuard bounds every wait so that a broken server fails the test
// instead of hanging it; no result depends on it.
const hangGuard = 20 * time.Second

func parseOptions(t *testing.T, data []byte) (mcp.Options, string) {
	t.Helper()
	opts := mcp.Options{Version: "0.0.0-test"}
	var pause string
	for _, line := range splitLines(data) {
		key, val, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			t.Fatalf("bad option line %q", line)
		}
		num := func() int {
			n, err := strconv.Atoi(val)
			if err != nil {
				t.Fatalf("option %s: %v", key, err)
			}
			return n
		}
		switch key {
		case "read-only":
			opts.ReadOnly = val == "true"
		case "scopes":
			opts.Scopes = strings.Split(val, ",")
		case "page-size":
			opts.PageSize = num()
		case "max-concurrency":
			opts.MaxConcurrency = num()
		case "rate-burst": // a limiter that never refills: deterministic
			opts.Limiter = rate.NewLimiter(0, num())
		case "max-message-bytes":
			opts.MaxMessageBytes = num()
		case "pause":
			pause = val
		default:
			t.Fatalf("unknown option %q", key)
		}
	}
	return opts, pause
}

func runTranscript(t *testing.T, optData, client []byte, withAudit bool) (server, audit []byte) {
	t.Helper()
	opts, pause := parseOptions(t, optData)
	reg, err := fakeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	opts.Registry = reg
	var auditBuf bytes.Buffer
	if withAudit {
		opts.Audit = &auditBuf
		clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		opts.Now = func() time.Time { return clock }
	}
	return playSession(t, opts, pause, client), auditBuf.Bytes()
}

// playSession serves opts over pipes, plays the client lines (with their
// @-directives) and returns the server's lines once Serve has returned at
// the end of input. pause names the test pause points to arm.
func playSession(t *testing.T, opts mcp.Options, pause string, client []byte) []byte {
	t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tr := &transcript{t: t, pauseDir: t.TempDir(), served: make(chan error, 1), changed: make(chan struct{}), consumed: map[string]int{},
		outputs: outputSchemas(t, opts.Registry), calls: map[string]string{}}
	t.Setenv("FOUNDRY_TEST_PAUSE", pause)
	t.Setenv("FOUNDRY_TEST_PAUSE_DIR", tr.pauseDir)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.in = inW
	go func() {
		err := mcp.Serve(context.Background(), inR, outW, opts)
		outW.Close()
		tr.served <- err
	}()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		tr.collect(outR)
	}()

	for _, line := range splitLines(client) {
		tr.step(line)
	}
	if !tr.inClosed {
		inW.Close()
	}
	select {
	case err := <-tr.served:
		if err != nil {
			t.Errorf("Serve = %v, want nil at end of input", err)
		}
	case <-time.After(hangGuard):
		t.Fatalf("Serve did not return after end of input; output so far:\n%s", strings.Join(tr.lines(), "\n"))
	}
	<-readerDone
	var b bytes.Buffer
	for _, l := range tr.lines() {
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// outputSchemas compiles the output schema of every tool of reg.
func outputSchemas(t *testing.T, reg *mcp.Registry) map[string]*contracts.Schema {
	t.Helper()
	out := map[string]*contracts.Schema{}
	if reg == nil {
		return out
	}
	for _, name := range reg.ToolNames() {
		raw := reg.OutputSchema(name)
		if raw == nil {
			continue
		}
		s, err := contracts.Compile(raw)
		if err != nil {
			t.Fatalf("output schema of %s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

// checkOutput checks the structuredContent of a successful tools/call
// response against the tool's output schema.
func (tr *transcript) checkOutput(line string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.ID == nil || m.Result == nil || m.Result.IsError {
		return
	}
	tr.mu.Lock()
	name := tr.calls[canonicalID(m.ID)]
	tr.mu.Unlock()
	schema := tr.outputs[name]
	if schema == nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(m.Result.StructuredContent))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		tr.t.Errorf("%s: structuredContent %s: %v", name, m.Result.StructuredContent, err)
		return
	}
	for _, v := range schema.Validate(doc) {
		tr.t.Errorf("%s: structuredContent breaks the output schema: %s", name, v)
	}
}

func (tr *transcript) collect(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if !strings.HasSuffix(line, "\n") {
				tr.t.Errorf("server output does not end with a newline: %q", line)
			}
			checkMessage(tr.t, strings.TrimSuffix(line, "\n"))
			tr.checkOutput(line)
			tr.mu.Lock()
			tr.out = append(tr.out, strings.TrimSuffix(line, "\n"))
			close(tr.changed)
			tr.changed = make(chan struct{})
			tr.mu.Unlock()
		}
		if err != nil {
			tr.mu.Lock()
			tr.outDone = true
			close(tr.changed)
			tr.changed = make(chan struct{})
			tr.mu.Unlock()
			return
		}
	}
}

func (tr *transcript) lines() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.out...)
}

func (tr *transcript) send(line string) {
	tr.t.Helper()
	var call struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(line), &call) == nil && call.Method == "tools/call" && call.ID != nil {
		tr.mu.Lock()
		tr.calls[canonicalID(call.ID)] = call.Params.Name
		tr.mu.Unlock()
	}
	if _, err := io.WriteString(tr.in, line+"\n"); err != nil {
		tr.t.Fatalf("send %s: %v", line, err)
	}
}

func (tr *transcript) step(line string) {
	tr.t.Helper()
	directive, arg, _ := strings.Cut(line, " ")
	switch directive {
	case "@async":
		tr.send(arg)
	case "@await":
		tr.awaitResponse(canonicalID(json.RawMessage(arg)))
	case "@wait":
		tr.waitFile(arg + ".reached")
	case "@release":
		if err := os.WriteFile(filepath.Join(tr.pauseDir, arg+".release"), nil, 0o644); err != nil {
			tr.t.Fatal(err)
		}
	case "@close":
		tr.in.Close()
		tr.inClosed = true
	default:
		if strings.HasPrefix(line, "@") {
			tr.t.Fatalf("unknown directive %q", line)
		}
		tr.send(line)
		if key, owed := responseOwed(line); owed {
			tr.awaitResponse(key)
		}
	}
}

// responseOwed tells whether the server owes line a response, and the
// canonical id it will carry ("" when it carries none).
func responseOwed(line string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil || m == nil {
		return "", true
	}
	id, hasID := m["id"]
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	switch {
	case !hasMethod && (hasResult || hasError):
		return "", false // a response from the client
	case hasMethod && !hasID:
		return "", false // a notification
	case !hasID:
		return "", true
	}
	return validID(id), true
}

// validID returns the canonical form of a string id or of an integer id
// in int64's range written in plain decimal (no leading zero, fraction,
// exponent or -0), or "" for any other id (answered without one).
func validID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		return canonicalID(raw)
	case len(raw) > 0:
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && strconv.FormatInt(n, 10) == string(raw) {
			return canonicalID(raw)
		}
	}
	return ""
}

func canonicalID(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // an integer id past 2^53 keeps every digit
	var v any
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// responseKey returns the canonical id of a response line ("" for none)
// and whether the line is a response at all.
func responseKey(line string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return "", false
	}
	if _, isReq := m["method"]; isReq {
		return "", false
	}
	id, ok := m["id"]
	if !ok {
		return "", true
	}
	return canonicalID(id), true
}

func (tr *transcript) awaitResponse(key string) {
	tr.t.Helper()
	tr.consumed[key]++
	want := tr.consumed[key]
	deadline := time.After(hangGuard)
	for {
		tr.mu.Lock()
		n := 0
		for _, l := range tr.out {
			if k, ok := responseKey(l); ok && k == key {
				n++
			}
		}
		done, changed := tr.outDone, tr.changed
		tr.mu.Unlock()
		if n >= want {
			return
		}
		if done {
			tr.t.Fatalf("output ended before response #%d with id %q; output:\n%s", want, key, strings.Join(tr.lines(), "\n"))
		}
		select {
		case <-changed:
		case <-deadline:
			tr.t.Fatalf("no response #%d with id %q; output:\n%s", want, key, strings.Join(tr.lines(), "\n"))
		}
	}
}

// waitFile polls for a pause point's marker file, as package testpause
// itself does.
func (tr *transcript) waitFile(name string) {
	tr.t.Helper()
	path := filepath.Join(tr.pauseDir, name)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(hangGuard)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			tr.t.Fatalf("pause point %s never reached; output:\n%s", name, strings.Join(tr.lines(), "\n"))
		}
	}
}

// checkMessage fails the test unless line is one compact JSON-RPC 2.0
// response or notification: stdout carries nothing else.
func checkMessage(t *testing.T, line string) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(line)); err != nil || compact.String() != line {
		t.Errorf("stdout line is not compact JSON: %s", line)
		return
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
		t.Errorf("stdout line is not a JSON-RPC 2.0 message: %s", line)
		return
	}
	switch {
	case m.Method != nil:
		if m.ID != nil || m.Result != nil || m.Error != nil {
			t.Errorf("server sent something other than a notification: %s", line)
		}
	case m.Error != nil:
		if m.Result != nil || m.Error.Code == nil || m.Error.Message == nil {
			t.Errorf("malformed error response: %s", line)
		}
	case m.Result == nil || m.Result[0] != '{':
		t.Errorf("response result is not an object: %s", line)
	case m.ID == nil || string(m.ID) == "null":
		t.Errorf("result without an id: %s", line)
	}
}
