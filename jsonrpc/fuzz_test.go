package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// FuzzReadLine feeds arbitrary bytes to a served connection: Serve must
// return nil at the end of input, every byte it writes must be a compact
// JSON-RPC response on its own line, and no line may get two answers.
func FuzzReadLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":"a","method":"echo","params":{"x":[1,{"y":null}]}}` + "\n",
		`{"jsonrpc":"2.0","id":0,"method":"ping"}` + "\r\n\n\n",
		`{"jsonrpc":"2.0","method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
		`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":-1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"echo","params":[]}` + "\n" + `{"jsonrpc":"2.0","id":-0,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":-07,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":-3,"method":"nope"}` + "\n" + `{"jsonrpc":"2.0","id":-4,"method":"ping","params":1}` + "\n",
		"not json\n{\n}\n",
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":"x"}` + "\n",
		`{"jsonrpc":"2.0","id":3,"method":"ping","Method":"echo"}` + "\n",
		`{"jsonrpc":"2.0","id":"\u00e9\n","method":"nope"}` + "\n",
		"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"echo\",\"params\":[\"\xff\xfe\"]}\n",
		`{"jsonrpc":"2.0","id":5,"method":"echo","params":{"p":"` + string(bytes.Repeat([]byte("x"), 300)) + `"}}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := testServer(Options{MaxMessageBytes: 256})
		var out bytes.Buffer
		if err := s.Serve(context.Background(), bytes.NewReader(data), &out); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		got := out.Bytes()
		if len(got) > 0 && got[len(got)-1] != '\n' {
			t.Fatalf("output does not end with a newline: %q", got)
		}
		inLines := bytes.Count(data, []byte("\n")) + 1
		outLines := bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n"))
		if len(got) > 0 && len(outLines) > inLines {
			t.Fatalf("%d output lines for %d input lines", len(outLines), inLines)
		}
		for _, l := range outLines {
			if len(l) == 0 {
				if len(got) > 0 {
					t.Fatalf("empty output line in %q", got)
				}
				continue
			}
			var msg struct {
				JSONRPC string           `json:"jsonrpc"`
				ID      *json.RawMessage `json:"id"`
				Result  *json.RawMessage `json:"result"`
				Error   *wireError       `json:"error"`
			}
			if err := json.Unmarshal(l, &msg); err != nil {
				t.Fatalf("output line is not JSON: %q: %v", l, err)
			}
			if msg.JSONRPC != "2.0" || (msg.Result == nil) == (msg.Error == nil) {
				t.Fatalf("output line is not a response: %q", l)
			}
			if msg.Result != nil && (msg.ID == nil || string(*msg.Result) == "null") {
				t.Fatalf("bad result line: %q", l)
			}
			if msg.ID != nil {
				if _, ok := parseID(*msg.ID); !ok {
					t.Fatalf("invalid id in output: %q", l)
				}
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, l); err != nil || !bytes.Equal(compact.Bytes(), l) {
				t.Fatalf("output line is not compact JSON: %q", l)
			}
		}
	})
}

// plainInt is the form of an integer id: JSON's integer grammar, which
// already has no leading zeros; -0 and the range are checked apart.
var plainInt = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// fffdEscape matches an escape of U+FFFD in a JSON string.
var fffdEscape = regexp.MustCompile(`(?i)\\ufffd`)

// FuzzID checks the id parser against the rule it implements: a JSON
// string, or an integer in int64's range in plain decimal other than -0.
// A parsed id must survive a round trip, and an integer id must encode to
// exactly the text it came from, since ids are echoed verbatim.
func FuzzID(f *testing.F) {
	for _, seed := range []string{
		`0`, `1`, `-1`, `-0`, `007`, `-01`, `+1`, `-`, `1.0`, `1e3`, `-1E3`, `null`, `true`, `[1]`,
		`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
		`""`, `"-"`, `"-1"`, `"\u0041"`, `"\ud800"`, ` 5 `, `"a\"b"`, `"\ud83d\ude00"`, `"\udc00\ud800"`, "\"\xff\"", `"\\ud800"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, ok := parseID(data)
		var viaJSON ID
		err := json.Unmarshal(data, &viaJSON)
		if json.Valid(data) && ok != (err == nil) {
			t.Fatalf("parseID(%q) ok = %v but Unmarshal error = %v", data, ok, err)
		}
		if err == nil && viaJSON != id {
			t.Fatalf("parseID(%q) = %v, Unmarshal gives %v", data, id, viaJSON)
		}
		text := bytes.TrimSpace(data)
		if !ok {
			if plainInt.Match(text) && string(text) != "-0" {
				if _, perr := strconv.ParseInt(string(text), 10, 64); perr == nil {
					t.Fatalf("parseID(%q) refused an int64 in plain decimal", data)
				}
			}
			return
		}
		b, err := id.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON(%v): %v", id, err)
		}
		if back, ok := parseID(b); !ok || back != id {
			t.Fatalf("round trip of %q: %s gives %v, %v", data, b, back, ok)
		}
		if s, isString := id.Text(); isString {
			// Accepted text decodes without replacement: every U+FFFD in
			// it was sent, as itself or escaped (an escaped backslash
			// before "ufffd" overcounts, which only weakens the check).
			sent := bytes.Count(text, []byte("\uFFFD")) + len(fffdEscape.FindAll(text, -1))
			if strings.Count(s, "\uFFFD") > sent {
				t.Fatalf("parseID(%q) accepted an id whose text %q holds a replacement", data, s)
			}
			return
		}
		if !plainInt.Match(text) || string(text) == "-0" {
			t.Fatalf("parseID(%q) accepted an integer not in plain decimal", data)
		}
		if !bytes.Equal(b, text) {
			t.Fatalf("integer id %q encodes as %s", text, b)
		}
	})
}
