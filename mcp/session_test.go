package mcp_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/testenv"
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
	return serveOpened(t, p, tweak, requests...)
}

// serveOpened is serveProject of a project already opened.
func serveOpened(t *testing.T, p *project.Project, tweak func(*mcp.Options), requests ...string) map[int]response {
	t.Helper()
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

// TestRunbookListPaged: runbook_list pages like blackboard_read (default
// 20, at most 100, a cursor and a More: line).
func TestRunbookListPaged(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	for i := range 45 {
		testenv.WriteFile(t, root, fmt.Sprintf(".foundry/runbooks/task-%02d.md", i), fmt.Sprintf("---\ntitle: Task %d\ntrigger: t%d\n---\nSteps.\n", i, i))
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

// runbookOpens is a project's file system that counts the runbook files
// opened through it.
type runbookOpens struct {
	fs.FS
	n atomic.Int64
}

func (r *runbookOpens) Open(name string) (fs.File, error) {
	if path.Dir(name) == ".foundry/runbooks" && strings.HasSuffix(name, ".md") {
		r.n.Add(1)
	}
	return r.FS.Open(name)
}

// TestRunbookPagesReadTheirRunbooks: runbook_list and resources/list read
// the runbooks of the page they answer with and no other, so that walking
// every page reads each runbook once, however many there are; the pages
// name and describe every runbook as before.
func TestRunbookPagesReadTheirRunbooks(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	for i := range 45 {
		testenv.WriteFile(t, root, fmt.Sprintf(".foundry/runbooks/task-%02d.md", i), fmt.Sprintf("---\ntitle: Task %d\ntrigger: t%d\n---\nSteps.\n", i, i))
	}
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	runbooks, err := fs.Glob(p.FS, ".foundry/runbooks/*.md")
	if err != nil || len(runbooks) < 45 {
		t.Fatalf("runbooks %v: %v", runbooks, err)
	}
	counted := &runbookOpens{FS: p.FS}
	p.FS = counted

	// runbook_list, page by page.
	seen, cursor := 0, ""
	for page := 0; ; page++ {
		args := map[string]any{}
		if cursor != "" {
			args["cursor"] = cursor
		}
		r := serveOpened(t, p, nil, call("runbook_list", args))[1]
		var sc struct {
			Runbooks   []json.RawMessage `json:"runbooks"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Result.StructuredContent, &sc); r.Result.IsError || err != nil {
			t.Fatalf("runbook_list page %d: %v %s", page, err, r.raw)
		}
		seen += len(sc.Runbooks)
		if n := counted.n.Swap(0); n != int64(len(sc.Runbooks)) {
			t.Fatalf("runbook_list page %d read %d runbooks for %d listed", page, n, len(sc.Runbooks))
		}
		if cursor = sc.NextCursor; cursor == "" {
			break
		}
	}
	if seen != len(runbooks) {
		t.Errorf("runbook_list listed %d runbooks of %d", seen, len(runbooks))
	}

	// resources/list, page by page.
	described := map[string]string{}
	cursor = ""
	for page := 0; ; page++ {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		r := serveOpened(t, p, nil, `"method":"resources/list","params":`+params)[1]
		var res struct {
			Result struct {
				Resources []struct {
					URI, Name, Description string
				} `json:"resources"`
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.raw), &res); err != nil || r.Error != nil {
			t.Fatalf("resources/list page %d: %v %s", page, err, r.raw)
		}
		n := int64(0)
		for _, rs := range res.Result.Resources {
			if slug, ok := strings.CutPrefix(rs.URI, "foundry://runbooks/"); ok {
				described[slug] = rs.Name + " / " + rs.Description
				n++
			}
		}
		if got := counted.n.Swap(0); got != n {
			t.Fatalf("resources/list page %d read %d runbooks for %d listed", page, got, n)
		}
		if cursor = res.Result.NextCursor; cursor == "" {
			break
		}
	}
	if len(described) != len(runbooks) {
		t.Errorf("resources/list listed %d runbooks of %d", len(described), len(runbooks))
	}
	for i := range 45 {
		slug := fmt.Sprintf("task-%02d", i)
		if want := fmt.Sprintf("Runbook: Task %d / t%d", i, i); described[slug] != want {
			t.Errorf("%s: %q, want %q", slug, described[slug], want)
		}
	}
}

// TestLargeRunbook: a 200 KiB runbook is within the 256 KiB limit, which
// applies to the larger of the text and structuredContent, not their sum.
func TestLargeRunbook(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	body := strings.Repeat("1. Run the migration for the next shard and check its row count.\n", 200<<10/66)
	testenv.WriteFile(t, root, ".foundry/runbooks/big.md", "---\ntitle: Big\ntrigger: big\n---\n"+body)
	got := serveProject(t, root, nil, call("runbook_get", map[string]any{"slug": "big"}), read("foundry://runbooks/big"))
	if r := got[1]; r.Result.IsError || !strings.Contains(r.text(), body) || len(r.Result.StructuredContent) < 200<<10 {
		t.Errorf("runbook_get of a 200 KiB runbook: isError %v, %.200s", r.Result.IsError, r.text())
	}
	if r := got[2]; r.Error != nil || !strings.Contains(r.text(), body) {
		t.Errorf("resources/read of a 200 KiB runbook: %.300s", r.raw)
	}
}

// TestAuditBounded: names and URIs from the client are cut to a bound and
// redacted before they reach the audit log or an error that echoes them,
// whatever the request holds.
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
	got := serveProject(t, root, func(o *mcp.Options) { o.Audit = &audit }, requests...)
	for id, r := range got {
		// An error echoes a bounded name; a tool result is bounded by the
		// tool's result limit.
		limit := 4096
		if r.Error == nil {
			limit = mcp.DefaultMaxResultBytes + 1024
		}
		if len(r.raw) > limit || strings.Contains(r.raw, token) {
			t.Errorf("response %d: %d bytes, %.200s", id, len(r.raw), r.raw)
		}
	}
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

// TestCapabilitySwitches: mcp.capabilities turns one capability off (not
// listed, not callable, not readable) or on, but on never grants beyond
// read-only mode and the scopes; an unknown name refuses to start.
func TestCapabilitySwitches(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	off := func(o *mcp.Options) {
		o.Capabilities = map[string]bool{"token_report": false, mcp.ContractsURI: false, mcp.RunbookTemplate: false, "memory_write": true}
		o.ReadOnly = true
	}
	got := serveProject(t, root, off,
		`"method":"tools/list"`,
		call("token_report", map[string]any{}),
		read(mcp.ContractsURI),
		read("foundry://runbooks/deploy-production"),
		`"method":"resources/templates/list"`,
		call("memory_write", map[string]any{"title": "t", "body": "b", "type": "glossary"}),
		call("doctor", map[string]any{}))
	if strings.Contains(got[1].raw, `"name":"token_report"`) || strings.Contains(got[1].raw, `"name":"memory_write"`) || !strings.Contains(got[1].raw, `"name":"doctor"`) {
		t.Errorf("tools/list: %.500s", got[1].raw)
	}
	if got[2].Error == nil || got[2].Error.Message != "Tool not available: token_report (capability token_report is disabled in mcp.capabilities)" {
		t.Errorf("token_report: %s", got[2].raw)
	}
	for _, id := range []int{3, 4} {
		if got[id].Error == nil || !strings.HasPrefix(got[id].Error.Message, "Unknown resource: ") {
			t.Errorf("disabled resource %d: %s", id, got[id].raw)
		}
	}
	if strings.Contains(got[5].raw, mcp.RunbookTemplate) {
		t.Errorf("templates/list shows a disabled template: %s", got[5].raw)
	}
	if got[6].Error == nil || got[6].Error.Message != "Tool not available: memory_write (the server is read-only)" {
		t.Errorf("memory_write switched on in a read-only server: %s", got[6].raw)
	}
	if got[7].Result.IsError || got[7].Error != nil {
		t.Errorf("doctor: %.300s", got[7].raw)
	}

	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = mcp.Serve(context.Background(), strings.NewReader(""), &bytes.Buffer{}, mcp.Options{Registry: reg, Capabilities: map[string]bool{"memory_delete": false}})
	if err == nil || !strings.HasPrefix(err.Error(), `serve mcp: unknown capability "memory_delete" in mcp.capabilities (known: memory_search, memory_write,`) {
		t.Errorf("unknown capability: %v", err)
	}
}

// TestAuditMutatingChanges: the audit line of a mutating call names its
// audit category and the files it changed with their digests before and
// after, never an argument value.
func TestAuditMutatingChanges(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	var audit bytes.Buffer
	serveProject(t, root, func(o *mcp.Options) { o.Audit = &audit },
		call("memory_write", map[string]any{"title": "Builds use Bazel", "body": "ARGVALUE-body of the fact.", "type": "convention"}),
		call("blackboard_write", map[string]any{"wave": "audit", "agent": "perf-auditor", "schema": "finding.v1", "data": map[string]any{
			"id": "F-2", "severity": "low", "title": "ARGVALUE-title", "summary": "s", "failureScenario": "f", "confidence": "low"}}),
		call("memory_search", map[string]any{"query": "ARGVALUE-query"}))
	type change struct{ Path, Before, After string }
	var recs []struct {
		Name, Category string
		Changes        []change
	}
	for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		if strings.Contains(line, "ARGVALUE") {
			t.Errorf("audit line holds an argument value: %s", line)
		}
		var r struct {
			Name, Category string
			Changes        []change
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 3 {
		t.Fatalf("%d audit lines", len(recs))
	}
	byName := map[string]int{}
	for i, r := range recs {
		byName[r.Name] = i
	}
	w := recs[byName["memory_write"]]
	if w.Category != "memory.write" || len(w.Changes) != 2 || w.Changes[0].Path != ".foundry/memory/INDEX.md" ||
		!strings.HasPrefix(w.Changes[1].Path, ".foundry/memory/fact-") || w.Changes[1].Before != "" || !strings.HasPrefix(w.Changes[1].After, "sha256:") {
		t.Errorf("memory_write audit: %+v", w)
	}
	b := recs[byName["blackboard_write"]]
	if b.Category != "blackboard.write" || len(b.Changes) == 0 || b.Changes[0].Path != ".foundry/blackboard/audit/perf-auditor.json" ||
		b.Changes[0].Before != "" || b.Changes[0].After != fileSum(t, root, b.Changes[0].Path) {
		t.Errorf("blackboard_write audit: %+v", b)
	}
	if s := recs[byName["memory_search"]]; s.Category != "memory.search" || s.Changes != nil {
		t.Errorf("memory_search audit: %+v", s)
	}
}

func fileSum(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(b))
}

// TestAuditSupersedeChanges: a memory_write that supersedes a fact records
// the superseded file too, with its digest before and after.
func TestAuditSupersedeChanges(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	var audit bytes.Buffer
	first := call("memory_write", map[string]any{"title": "Builds use Bazel", "body": "All builds go through Bazel.", "type": "convention"})
	serveProject(t, root, nil, first)
	var oldPath string
	matches, _ := filepath.Glob(filepath.Join(root, ".foundry", "memory", "fact-*-builds-use-bazel.md"))
	if len(matches) != 1 {
		t.Fatalf("first fact: %v", matches)
	}
	oldPath = ".foundry/memory/" + filepath.Base(matches[0])
	before := fileSum(t, root, oldPath)
	serveProject(t, root, func(o *mcp.Options) { o.Audit = &audit },
		call("memory_write", map[string]any{"title": "Builds use Bazel", "body": "All builds go through Bazel 8, remote cache on.", "type": "convention"}))
	var rec struct {
		Changes []struct{ Path, Before, After string }
	}
	if err := json.Unmarshal(bytes.TrimSpace(audit.Bytes()), &rec); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range rec.Changes {
		if c.Path == oldPath {
			found = c.Before == before && c.After == fileSum(t, root, oldPath) && c.After != before
		}
	}
	if !found || len(rec.Changes) != 3 {
		t.Errorf("changes %+v, want the new fact, INDEX.md and %s (%s → now)", rec.Changes, oldPath, before)
	}
}

// TestMemoryWriteSupersedes: memory_write takes supersedes, so an agent
// can follow the similar-title warning's advice: the same write again with
// supersedes links the fact just written to the one it replaces.
func TestMemoryWriteSupersedes(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	write := map[string]any{"title": "API responses must stay under 200 ms at p99", "body": "Tightened for the checkout flow.", "type": "constraint"}
	with := func(extra map[string]any) map[string]any {
		m := maps.Clone(write)
		maps.Copy(m, extra)
		return m
	}
	// One session a call: a session serves the calls it is sent side by side.
	got := map[int]response{}
	for i, req := range []string{
		call("memory_write", write),
		call("memory_write", with(map[string]any{"supersedes": "fact-0002"})),
		call("memory_write", with(map[string]any{"title": "Checkout answers within one second", "supersedes": "fact-0999"})),
		call("memory_write", with(map[string]any{"supersedes": "0002"})),
		call("memory_search", map[string]any{"query": "api responses 200 ms"}),
	} {
		got[i+1] = serveProject(t, root, nil, req)[1]
	}
	if !strings.Contains(got[1].Result.Content[0].Text, `warning: similar to fact-0002 "API responses must stay under 200 ms at p95"; if the new fact replaces it, write it again with supersedes fact-0002`) {
		t.Errorf("first write: %.500s", got[1].raw)
	}
	var linked struct{ Action, ID, Supersedes string }
	if err := json.Unmarshal(got[2].Result.StructuredContent, &linked); err != nil || got[2].Result.IsError {
		t.Fatalf("the write again with supersedes: %v %.500s", err, got[2].raw)
	}
	if linked.Supersedes != "fact-0002" {
		t.Errorf("the write again with supersedes: %+v, want it to supersede fact-0002", linked)
	}
	if !got[3].Result.IsError || !strings.Contains(got[3].Result.Content[0].Text, "fact-0999: no such fact") {
		t.Errorf("supersedes of a missing fact: %.500s", got[3].raw)
	}
	if got[4].Error == nil && !got[4].Result.IsError {
		t.Errorf("supersedes not of the form fact-NNNN was accepted: %.500s", got[4].raw)
	}
	if strings.Contains(got[5].Result.Content[0].Text, "fact-0002") {
		t.Errorf("the superseded fact is still found: %.800s", got[5].raw)
	}
}

// TestBlackboardWriteReplaced: blackboard_write says in its structured
// result when the artifact replaced one at its path, the agent's own
// earlier one or another agent's whose name sanitises the same, whose
// hand-off is gone.
func TestBlackboardWriteReplaced(t *testing.T) {
	t.Parallel()
	root := copyFixture(t)
	finding := json.RawMessage(`{"id":"F-1","severity":"low","title":"t","summary":"s","failureScenario":"f","confidence":"low"}`)
	write := func(agent string) string {
		return call("blackboard_write", map[string]any{"wave": "w", "agent": agent, "schema": "finding.v1", "data": finding})
	}
	// One session a write: a session serves its requests concurrently.
	for i, w := range []struct {
		agent string
		want  bool
	}{{"alice/reviewer", false}, {"alice-reviewer", true}, {"bob", false}} {
		r := serveProject(t, root, nil, write(w.agent))[1]
		var sc struct {
			Path     string `json:"path"`
			Replaced *bool  `json:"replaced"`
		}
		if err := json.Unmarshal(r.Result.StructuredContent, &sc); err != nil || r.Result.IsError {
			t.Fatalf("write %d: %v: %s", i, err, r.raw)
		}
		if sc.Replaced == nil || *sc.Replaced != w.want {
			t.Errorf("write %d (%s as %s): replaced %s, want %v", i, sc.Path, w.agent, r.Result.StructuredContent, w.want)
		}
	}
}
