package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foundryhq/foundry/git/gittest"
)

// secret marks every file outside the project: no command may print it.
const secret = "SECRET-OUTSIDE"

// secretInside marks the project's files outside .foundry that Foundry has
// no business reading (.git/config with a remote's token, an untracked
// .env): no command may print them either.
const secretInside = "SECRET-INSIDE"

// TestHostileRepository runs doctor, doctor --rev (a good and a corrupt
// tree), validate --auto, the pre-commit hook's check and every MCP tool
// and resource over a repository that commits symbolic links out of the
// project of every kind (and out of .foundry to the project's .git/config
// and .env), huge compressible blobs of every kind, a hostile
// number, terminal escapes and a corrupt tree: nothing panics, nothing
// outside the project is printed or changed. (Peak memory on the same
// repository with 400 MiB blobs is measured by scripts/hostile-repo.)
func TestHostileRepository(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	proj := filepath.Join(base, "proj")
	for _, d := range []string{filepath.Join(outside, "metrics"), filepath.Join(outside, "hooks"), proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"secret.txt": secret + "\n", "creds.json": `{"` + secret + `": 1}`, "lock": secret} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := gittest.Init(t, proj)
	r.Git("remote", "add", "origin", "https://u:"+secretInside+"@example.com/r.git")
	if err := os.WriteFile(filepath.Join(proj, ".env"), []byte("API_KEY="+secretInside+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	foundry(t, proj, nil, "init")
	abs := filepath.Join(outside, "secret.txt")
	links := map[string]string{
		".foundry/runbooks/leak.md":             abs,
		".foundry/runbooks/leak-rel.md":         "../../../outside/secret.txt",
		".foundry/blackboard/w/leak.json":       filepath.Join(outside, "creds.json"),
		".foundry/memory/fact-0002-leak.md":     abs,
		".foundry/schemas/leak.v1.schema.json":  filepath.Join(outside, "creds.json"),
		".foundry/memory/INDEX.md":              abs,
		".foundry/metrics":                      "../../outside/metrics",
		".foundry/memory/.lock":                 "../../../outside/lock",
		".foundry/blackboard/w/leak-rel.json":   "../../../../outside/creds.json",
		".foundry/runbooks/leak-dir/x.md":       "",
		".foundry/blackboard/outside-wave-link": "../../../outside",
		// Out of .foundry, into the project.
		".foundry/runbooks/env.md":            "../../.env",
		".foundry/blackboard/w/git.json":      "../../../.git/config",
		".foundry/memory/fact-0004-env.md":    "../../.env",
		".foundry/schemas/env.v1.schema.json": "../../.env",
	}
	for link, target := range links {
		p := filepath.Join(proj, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target == "" {
			continue
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	r.Write(".foundry/memory/fact-0003-evil.md", "---\nid: fact-0003\ntype: risk\nscope: project\ntitle: Evil title\nconfidence: high\nsource: code\ncreated: 2026-01-01\nstatus: active\n---\nBody \x1b]52;c;ZXZpbA==\x07 here.\n")
	r.Write(".foundry/blackboard/w/number.json", `{"schema":"risk.v1","probability":1e1000000000}`)
	r.Git("add", "-A")
	const huge = 72 << 20 // over every limit, and over the 64 MiB cap on any git object
	for _, p := range []string{".foundry/memory/fact-0001-huge.md", ".foundry/runbooks/huge.md", ".foundry/blackboard/w/huge.json", ".foundry/schemas/huge.v1.schema.json"} {
		r.StageZeros(p, huge)
		f, err := os.Create(filepath.Join(proj, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(huge); err != nil { // sparse: costs no disk
			t.Fatal(err)
		}
		f.Close()
	}
	r.Git("commit", "-q", "-m", "hostile")
	corrupt := corruptCommit(t, r)
	before := snapshot(t, outside)

	cases := [][]string{
		{"doctor"}, {"doctor", "--rev", "HEAD"}, {"doctor", "--rev", corrupt},
		{"validate", "--auto"}, {"validate", "--auto", "--staged", "--format", "lines"},
		{"memory", "list"}, {"memory", "search", "secret"}, {"memory", "show", "fact-0003"},
		{"runbook", "list"}, {"runbook", "list", "--rev", "HEAD"}, {"runbook", "get", "leak"},
		{"blackboard", "read", "w"}, {"blackboard", "read", "--full", "w"}, {"blackboard", "read", "--full", "--staged", "w"},
		{"runbook", "get", "env"}, {"validate", "finding.v1", ".foundry/blackboard/w/git.json"}, {"tokens"},
	}
	for _, args := range cases {
		out := foundry(t, proj, nil, args...)
		check(t, strings.Join(args, " "), out)
	}
	// tokens names the linked INDEX.md and still measures the rest.
	if out := foundry(t, proj, nil, "tokens"); !strings.Contains(out, "- Not measured: .foundry/memory/INDEX.md (leads outside .foundry)\n") || !strings.Contains(out, "- Facts stored: ") {
		t.Errorf("tokens over a linked INDEX.md:\n%s", out)
	}
	// The corrupt tree is named as such, not taken for a missing .foundry.
	const corruptMsg = "foundry: read config: open .foundry/config.yaml: read tree .foundry: malformed tree: malformed mode\n"
	if out := foundry(t, proj, nil, "doctor", "--rev", corrupt); out != corruptMsg {
		t.Errorf("doctor --rev %s printed %q, want %q", corrupt, out, corruptMsg)
	}
	var session []string
	for i, call := range []string{
		`"tools/call","params":{"name":"memory_search","arguments":{"query":"secret"}}`,
		`"tools/call","params":{"name":"runbook_list","arguments":{}}`,
		`"tools/call","params":{"name":"runbook_get","arguments":{"slug":"leak"}}`,
		`"tools/call","params":{"name":"runbook_get","arguments":{"slug":"huge"}}`,
		`"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"` + filepath.Join(outside, "creds.json") + `"}}`,
		`"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":"../outside/creds.json"}}`,
		`"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":".foundry/blackboard/w/leak.json"}}`,
		`"tools/call","params":{"name":"contract_validate","arguments":{"schema":"risk.v1","path":".foundry/blackboard/w/number.json"}}`,
		`"tools/call","params":{"name":"contract_validate","arguments":{"schema":"finding.v1","path":".foundry/blackboard/w/git.json"}}`,
		`"tools/call","params":{"name":"runbook_get","arguments":{"slug":"env"}}`,
		`"tools/call","params":{"name":"blackboard_read","arguments":{"wave":"w","full":true,"limit":1.0}}`,
		`"tools/call","params":{"name":"token_report","arguments":{}}`,
		`"tools/call","params":{"name":"doctor","arguments":{}}`,
		`"resources/read","params":{"uri":"foundry://memory/index"}`,
		`"resources/read","params":{"uri":"foundry://contracts"}`,
		`"resources/read","params":{"uri":"foundry://runbooks/leak"}`,
		`"resources/read","params":{"uri":"foundry://runbooks/huge"}`,
		`"resources/read","params":{"uri":"foundry://contracts/leak.v1"}`,
		`"resources/read","params":{"uri":"foundry://memory/facts/fact-0002"}`,
		`"resources/read","params":{"uri":"foundry://blackboard/w/leak"}`,
		`"resources/read","params":{"uri":"foundry://blackboard/w/huge"}`,
		`"resources/read","params":{"uri":"foundry://blackboard/w/git"}`,
		`"resources/read","params":{"uri":"foundry://runbooks/env"}`,
		`"tools/call","params":{"name":"memory_write","arguments":{"type":"risk","title":"Evil \u001b]52;c;x\u0007","body":"b","scope":"project","confidence":"high","source":"code"}}`,
		`"tools/call","params":{"name":"blackboard_write","arguments":{"wave":".GIT","agent":"a","schema":"finding.v1","data":{}}}`,
	} {
		session = append(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%s}`, i+1, call))
	}
	// A server that writes audits its writes: with the metrics folder linked
	// out of the project it refuses to start, naming the link.
	if out := foundry(t, proj, strings.NewReader(""), "mcp", "serve"); !strings.Contains(out, "refuse to write through .foundry/metrics: is a symbolic link") {
		t.Errorf("writable mcp serve over a linked metrics folder: %s", out)
	}
	cfgPath := filepath.Join(proj, ".foundry", "config.yaml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, bytes.Replace(cfg, []byte("read_only: false"), []byte("read_only: true "), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	// A few requests per session stay under the concurrency limit.
	for i := 0; i < len(session); i += 5 {
		chunk := session[i:min(i+5, len(session))]
		out := foundry(t, proj, strings.NewReader(init+"\n"+strings.Join(chunk, "\n")+"\n"), "mcp", "serve")
		check(t, "mcp serve", out)
		if n := strings.Count(out, `"jsonrpc":"2.0"`); n < len(chunk)+1 {
			t.Errorf("mcp serve answered %d of %d requests:\n%s", n, len(chunk)+1, out)
		}
	}
	// Commands that install files outside .foundry/ write through no link
	// either, and name the one they refuse.
	for _, link := range []struct{ path, target string }{
		{".claude", outside},
		{".git/hooks", filepath.Join(outside, "hooks")},
	} {
		p := filepath.Join(proj, filepath.FromSlash(link.path))
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(link.target, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--claude"}, "refuse to write through .claude: is a symbolic link"},
		{[]string{"hook", "install", "pre-commit"}, "refuse to write through .git/hooks: is a symbolic link"},
		{[]string{"hook", "uninstall", "pre-commit"}, "refuse to write through .git/hooks: is a symbolic link"},
		{[]string{"blackboard", "archive", "outside-wave-link"}, "refuse to write through .foundry/blackboard/outside-wave-link: is a symbolic link"},
	} {
		out := foundry(t, proj, nil, tc.args...)
		check(t, strings.Join(tc.args, " "), out)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: want %q in:\n%s", strings.Join(tc.args, " "), tc.want, out)
		}
	}
	if after := snapshot(t, outside); after != before {
		t.Errorf("files outside the project changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// foundry runs the CLI in-process in dir and returns stdout and stderr.
func foundry(t *testing.T, dir string, stdin *strings.Reader, args ...string) string {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// One buffer takes both streams, which the MCP server writes from
	// different goroutines (responses, logs): writes are serialised.
	var out lockedBuffer
	run(ctx, append([]string{"foundry", "-C", dir}, args...), stdin, &out, &out)
	return out.String()
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func check(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{secret, secretInside, "panic", "goroutine "} {
		if strings.Contains(out, bad) {
			t.Errorf("%s printed %q:\n%.3000s", what, bad, out)
		}
	}
}

// corruptCommit commits a tree whose .foundry entry is a tree object that
// does not parse, on branch corrupt, and returns the branch name.
func corruptCommit(t *testing.T, r *gittest.Repo) string {
	t.Helper()
	bad := strings.TrimSpace(gitStdin(t, r, "not a tree at all", "hash-object", "-t", "tree", "--literally", "-w", "--stdin"))
	top := strings.TrimSpace(gitStdin(t, r, "040000 tree "+bad+"\t.foundry\n", "mktree", "--missing"))
	c := strings.TrimSpace(gitStdin(t, r, "corrupt", "commit-tree", top))
	r.Git("update-ref", "refs/heads/corrupt", c)
	return "corrupt"
}

// snapshot lists every file under dir with its size, mode and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data := ""
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			data = string(c)
		}
		fmt.Fprintf(&b, "%s %v %d %q\n", p, fi.Mode(), fi.Size(), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// gitStdin runs git in r with stdin and returns its stdout.
func gitStdin(t *testing.T, r *gittest.Repo, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(append(os.Environ(), gittest.Env...), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
