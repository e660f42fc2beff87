package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/internal/testenv"
)

// rlo and lri are two of the bidirectional controls that make text display
// in another order than it is stored (U+202E RIGHT-TO-LEFT OVERRIDE, U+2066
// LEFT-TO-RIGHT ISOLATE), written as escapes so that this file reads as
// it is.
const (
	rlo = "\u202e"
	lri = "\u2066"
)

// TestBidiControls: bidirectional controls are kept out of what Foundry
// stores and prints, as control characters are (hostile_text.txtar): a
// fact or runbook written with one is refused; one a clone already stores
// prints escaped, and doctor names where it is in a fact; an artifact
// written through Foundry stores it escaped, meaning the same. (An artifact
// is JSON data, whose gates check its contract: doctor, like them, does
// not refuse one for the characters its strings hold.)
//
//nolint:paralleltest // urfave/cli v2 keeps its help flag in a package variable
func TestBidiControls(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, nil, "init")

	refused := []struct {
		name string
		args []string
		want string
	}{
		{"fact title", []string{"memory", "write", "--type", "decision", "--source", "code", "--body", "Why: measured.\nHow to apply: check it.",
			"--title", "Orders go to the " + rlo + "eueuq-yaled" + " queue"}, "title holds the bidirectional control character U+202E at byte 17"},
		{"fact body", []string{"memory", "write", "--type", "decision", "--source", "code", "--title", "Orders go to the delay queue",
			"--body", "Why: " + lri + "measured.\nHow to apply: check it."}, "body holds the bidirectional control character U+2066 at byte 5"},
		{"runbook title", []string{"runbook", "new", "rotate", "--title", "Rotate " + lri + "keys", "--trigger", "monthly"},
			"the title holds the bidirectional control character U+2066"},
	}
	for _, tt := range refused {
		code, stdout, stderr := runIn(t, dir, "", tt.args...)
		if code == 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want a refusal saying %q", tt.name, code, stderr, tt.want)
		}
		if strings.ContainsAny(stdout+stderr, rlo+lri) {
			t.Errorf("%s: printed a bidirectional control raw", tt.name)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".foundry", "memory", "fact-*.md")); len(m) > 0 {
		t.Fatalf("a refused write left %v", m)
	}

	// What a clone already stores prints escaped, and doctor names it.
	testenv.WriteFile(t, dir, ".foundry/memory/fact-0001-orders.md", "---\nid: fact-0001\ntype: decision\ntitle: Orders go to the "+rlo+"eueuq-yaled queue\nscope: project\ntags: []\nconfidence: high\nsource: code\ncreated: 2026-01-02\nstatus: active\n---\nWhy: measured.\nHow to apply: check it.\n")
	finding := func(title string) string {
		b, err := json.Marshal(map[string]string{"schema": "finding.v1", "producedBy": "a", "id": "F-001", "severity": "high",
			"title": title, "summary": title, "failureScenario": "f", "confidence": "high"})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	testenv.WriteFile(t, dir, ".foundry/blackboard/w/a.json", finding("Access "+rlo+"lortnoc is fine"))
	for _, args := range [][]string{{"memory", "list"}, {"memory", "show", "fact-0001"}, {"blackboard", "read", "--json", "w"}} {
		code, stdout, stderr := runIn(t, dir, "", args...)
		if code != 0 || !strings.Contains(stdout, `\u202e`) || strings.Contains(stdout+stderr, rlo) {
			t.Errorf("%v: exit %d, stdout %q: want the control printed as \\u202e", args, code, stdout)
		}
	}
	code, stdout, _ := runIn(t, dir, "", "doctor", "--no-history")
	want := ".foundry/memory/fact-0001-orders.md: 1\n    4:25 holds the bidirectional control character U+202E; it displays text in another order than it is read"
	if code != 3 || !strings.Contains(stdout, want) || strings.Contains(stdout, "w/a.json") {
		t.Errorf("doctor: exit %d, want 3 and %q, and no word of the artifact, in:\n%s", code, want, stdout)
	}
	if err := os.Remove(filepath.Join(dir, ".foundry", "memory", "fact-0001-orders.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, ".foundry", "blackboard", "w", "a.json")); err != nil {
		t.Fatal(err)
	}

	// An artifact written through Foundry stores the control escaped: the
	// same string when decoded, inert when displayed.
	title := "Access " + rlo + "lortnoc is fine"
	if code, _, stderr := runIn(t, dir, finding(title), "blackboard", "write", "--wave", "w", "--agent", "b", "--schema", "finding.v1"); code != 0 {
		t.Fatalf("blackboard write: exit %d: %s", code, stderr)
	}
	stored, err := os.ReadFile(filepath.Join(dir, ".foundry", "blackboard", "w", "b.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Title string }
	if err := json.Unmarshal(stored, &got); err != nil || got.Title != title {
		t.Errorf("stored artifact decodes to %q (%v), want %q", got.Title, err, title)
	}
	if bytes.Contains(stored, []byte(rlo)) || !bytes.Contains(stored, []byte(`\u202e`)) {
		t.Errorf("stored artifact holds the control raw, or not escaped:\n%s", stored)
	}
	if code, stdout, _ := runIn(t, dir, "", "doctor", "--no-history"); code != 0 {
		t.Errorf("doctor after the write: exit %d:\n%s", code, stdout)
	}
}
