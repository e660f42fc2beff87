package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
)

// response is one decoded JSON-RPC response.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Contents          []struct {
			Text string `json:"text"`
		} `json:"contents"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// text is the first text block of a tool result or resource.
func (r response) text() string {
	switch {
	case len(r.Result.Content) > 0:
		return r.Result.Content[0].Text
	case len(r.Result.Contents) > 0:
		return r.Result.Contents[0].Text
	}
	return ""
}

// serveProject serves the project at root with every scope enabled and
// writes allowed (tweak adjusts the options), sends the requests (ids 1…n)
// and returns the responses by id.
func serveProject(t *testing.T, root string, tweak func(*mcp.Options), requests ...string) map[int]response {
	t.Helper()
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: log, Now: func() time.Time { return fixtureNow }})
	if err != nil {
		t.Fatal(err)
	}
	opts := mcp.Options{Registry: reg, RequestsPerMinute: -1, MaxConcurrency: -1, Logger: log}
	if tweak != nil {
		tweak(&opts)
	}
	var in strings.Builder
	for i, r := range requests {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,%s}`+"\n", i+1, r)
	}
	var out bytes.Buffer
	if err := mcp.Serve(context.Background(), strings.NewReader(in.String()), &out, opts); err != nil {
		t.Fatal(err)
	}
	got := map[int]response{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r response
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		r.raw = line
		var id int
		if err := json.Unmarshal(r.ID, &id); err != nil {
			t.Fatalf("id of %s: %v", line, err)
		}
		got[id] = r
	}
	if len(got) != len(requests) {
		t.Fatalf("%d responses to %d requests:\n%s", len(got), len(requests), out.String())
	}
	return got
}

// call is the params of a tools/call.
func call(tool string, args any) string {
	b, _ := json.Marshal(args)
	return fmt.Sprintf(`"method":"tools/call","params":{"name":%q,"arguments":%s}`, tool, b)
}

// read is the params of a resources/read.
func read(uri string) string {
	return fmt.Sprintf(`"method":"resources/read","params":{"uri":%q}`, uri)
}

func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunbookListPaged: runbook_list pages like blackboard_read (default
// 20, at most 100, a cursor and a More: line).
func TestRunbookListPaged(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	for i := range 45 {
		writeFile(t, root, fmt.Sprintf(".foundry/runbooks/task-%02d.md", i), fmt.Sprintf("---\ntitle: Task %d\ntrigger: t%d\n---\nSteps.\n", i, i))
	}
	var slugs []string
	cursor := ""
	for page := 0; ; page++ {
		args := map[string]any{}
		if cursor != "" {
			args["cursor"] = cursor
		}
		r := serveProject(t, root, nil, call("runbook_list", args))[1]
		if r.Result.IsError {
			t.Fatalf("page %d: %s", page, r.text())
		}
		var sc struct {
			Runbooks []struct {
				Slug string `json:"slug"`
			} `json:"runbooks"`
			Total      int    `json:"total"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Result.StructuredContent, &sc); err != nil {
			t.Fatal(err)
		}
		if sc.Total < 45 || len(sc.Runbooks) > 20 {
			t.Fatalf("page %d: total %d, %d runbooks", page, sc.Total, len(sc.Runbooks))
		}
		for _, rb := range sc.Runbooks {
			slugs = append(slugs, rb.Slug)
		}
		if more := fmt.Sprintf("\nMore: call again with cursor %q.\n", sc.NextCursor); (sc.NextCursor != "") != strings.HasSuffix(r.text(), more) {
			t.Fatalf("page %d: text %q, nextCursor %q", page, r.text(), sc.NextCursor)
		}
		if sc.NextCursor == "" {
			if len(slugs) != sc.Total {
				t.Fatalf("walked %d runbooks of %d", len(slugs), sc.Total)
			}
			break
		}
		cursor = sc.NextCursor
	}
	got := serveProject(t, root, nil,
		call("runbook_list", map[string]any{"limit": 100}),
		call("runbook_list", map[string]any{"limit": 101}),
		call("runbook_list", map[string]any{"cursor": "bogus"}))
	if strings.Contains(got[1].text(), "More:") || got[1].Result.IsError {
		t.Errorf("limit 100: %s", got[1].text())
	}
	if !got[2].Result.IsError || !strings.Contains(got[2].text(), "#/limit") {
		t.Errorf("limit 101: %s", got[2].raw)
	}
	if !got[3].Result.IsError || !strings.Contains(got[3].text(), `invalid cursor "bogus"`) {
		t.Errorf("bad cursor: %s", got[3].raw)
	}
}

// TestLargeRunbook: a 200 KiB runbook is within the 256 KiB limit, which
// applies to the larger of the text and structuredContent, not their sum.
func TestLargeRunbook(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	body := strings.Repeat("1. Run the migration for the next shard and check its row count.\n", 200<<10/66)
	writeFile(t, root, ".foundry/runbooks/big.md", "---\ntitle: Big\ntrigger: big\n---\n"+body)
	got := serveProject(t, root, nil, call("runbook_get", map[string]any{"slug": "big"}), read("foundry://runbooks/big"))
	if r := got[1]; r.Result.IsError || !strings.Contains(r.text(), body) || len(r.Result.StructuredContent) < 200<<10 {
		t.Errorf("runbook_get of a 200 KiB runbook: isError %v, %.200s", r.Result.IsError, r.text())
	}
	if r := got[2]; r.Error != nil || !strings.Contains(r.text(), body) {
		t.Errorf("resources/read of a 200 KiB runbook: %.300s", r.raw)
	}
}

// TestAuditBounded: names and URIs from the client are cut to a bound and
// redacted before they reach the audit log, whatever the request holds.
func TestAuditBounded(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	var audit bytes.Buffer
	token := "ghp_" + strings.Repeat("a1B2", 9)
	huge := strings.Repeat("x", 1<<20)
	requests := []string{
		read("foundry://runbooks/" + huge),
		read("foundry://runbooks/" + token),
		read("foundry://blackboard/w/" + token + huge),
		read("nowhere://" + huge + token),
		fmt.Sprintf(`"method":"tools/call","params":{"name":%q,"arguments":{}}`, "memory_"+huge),
		fmt.Sprintf(`"method":"tools/call","params":{"name":%q,"arguments":{}}`, token),
		call("runbook_get", map[string]any{"slug": token + huge}),
	}
	serveProject(t, root, func(o *mcp.Options) { o.Audit = &audit }, requests...)
	lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
	if len(lines) != len(requests) {
		t.Fatalf("%d audit lines for %d requests:\n%.2000s", len(lines), len(requests), audit.String())
	}
	for _, line := range lines {
		if len(line) > 2048 {
			t.Errorf("audit line of %d bytes: %.300s…", len(line), line)
		}
		if strings.Contains(line, token) || strings.Contains(line, token[4:]) {
			t.Errorf("audit line holds the token: %.300s", line)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("audit line is not JSON: %v", err)
		}
	}
}
