package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/confined/confinedtest"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
)

// FuzzClientPaths sends a client path, as an agent would, to every tool
// argument and resource URI that names a file of the project, served over
// a project whose .foundry/ links out of it in every way, .foundry/metrics
// (where the server logs) among them: contract_validate's path, the
// runbook, fact, contract and artifact resources, runbook_get,
// blackboard_read and blackboard_write's wave and agent. Every request
// gets one well-formed answer; no answer holds the file outside the
// project; nothing outside the project is created or changed; and a
// contract_validate refused for leaving the project names the path.
func FuzzClientPaths(f *testing.F) {
	for _, s := range confinedtest.HostileNames {
		f.Add(s)
	}
	root, _ := confinedtest.HostileProject(f)
	outside := confinedtest.WatchOutside(f, root)
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		f.Fatal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { reg.Close() })
	const finding = `{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`
	f.Fuzz(func(t *testing.T, name string) {
		str := func(s string) string {
			b, _ := json.Marshal(s)
			return string(b)
		}
		esc := url.PathEscape(name)
		calls := []string{
			`"method":"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":` + str(name) + `}}`,
			`"method":"tools/call","params":{"name":"runbook_get","arguments":{"slug":` + str(name) + `}}`,
			`"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":` + str(name) + `,"full":true}}`,
			`"method":"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"w","agent":` + str(name) + `,"full":true}}`,
			`"method":"tools/call","params":{"name":"blackboard_write","arguments":{"wave":` + str(name) + `,"agent":` + str(name) + `,"schema":"finding.v1","data":` + finding + `}}`,
			`"method":"resources/read","params":{"uri":` + str("foundry://runbooks/"+esc) + `}`,
			`"method":"resources/read","params":{"uri":` + str("foundry://runbooks/"+name) + `}`,
			`"method":"resources/read","params":{"uri":` + str("foundry://memory/facts/"+esc) + `}`,
			`"method":"resources/read","params":{"uri":` + str("foundry://contracts/"+esc) + `}`,
			`"method":"resources/read","params":{"uri":` + str("foundry://blackboard/"+esc+"/"+esc) + `}`,
			`"method":"resources/read","params":{"uri":` + str("foundry://blackboard/w/"+esc) + `}`,
			`"method":"resources/read","params":{"uri":` + str("foundry://blackboard/"+esc+"/a") + `}`,
		}
		var in strings.Builder
		in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for i, c := range calls {
			in.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,` + c + "}\n")
		}
		var out bytes.Buffer
		if err := mcp.Serve(context.Background(), strings.NewReader(in.String()), &out, mcp.Options{Registry: reg, RequestsPerMinute: -1}); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if strings.Contains(out.String(), confinedtest.Sentinel) {
			t.Fatalf("an answer holds the file outside the project:\n%s", out.String())
		}
		answers := map[string]string{}
		for _, l := range splitLines(out.Bytes()) {
			checkMessage(t, l)
			if key, ok := responseKey(l); ok {
				answers[key] = l
			}
		}
		if len(answers) != len(calls)+1 {
			t.Fatalf("%d answers to %d requests:\n%s", len(answers), len(calls)+1, out.String())
		}
		outside.Check(t, "serving "+strings.Join(calls, "\n"))
		var validate struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		line := answers["1"]
		if err := json.Unmarshal([]byte(line), &validate); err != nil || len(validate.Result.Content) == 0 {
			t.Fatalf("contract_validate answered %s", line)
		}
		text := validate.Result.Content[0].Text
		refused := strings.Contains(text, "leads outside the project") || strings.Contains(text, "symbolic link")
		if refused && plain(name) && !confinedtest.NamesPath(text, name) {
			t.Fatalf("contract_validate refused %q without naming it: %s", name, text)
		}
	})
}

// plain reports whether name reaches a message unchanged: short, valid
// UTF-8, nothing a message escapes.
func plain(name string) bool {
	if len(name) > 200 || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
