package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/claude"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/testenv"
)

// This file holds the one table test of the validation core's promise: for
// one bad file, every surface that reports it agrees. validate (lines, json,
// sarif), doctor (lines, json, sarif), the pre-commit hook and
// contract_validate {path} report the same pointer, line and column;
// validate's text (the seed's blocks, which carry no position), blackboard
// write --data-file, contract_validate {data} and the Claude hook the same
// pointers, and for unparseable JSON the same line and column.

// loc is one reported problem: its pointer ("" when the surface gives
// none) and its position (0 when the surface gives none).
type loc struct {
	Pointer      string
	Line, Column int
}

// badFinding is finding.v1 with a bad severity after multi-byte text on its
// line, and no failureScenario.
const badFinding = `{"schema": "finding.v1", "producedBy": "agent", "id": "F-1", "title": "héllo wörld", "severity": "énorme",` + "\n" +
	`"summary": "s", "confidence": "low"}`

var consistencyCorpus = []struct {
	name string
	doc  string
	// want is the first problem: the violation of a parseable document, the
	// syntax error of an unparseable one (Pointer "").
	want  loc
	parse bool
}{
	{name: "multi-byte", doc: badFinding + "\n", want: loc{"#", 1, 1}},
	{name: "multi-byte enum", doc: strings.Replace(badFinding, `"confidence": "low"`, `"confidence": "low", "failureScenario": "f"`, 1) + "\n", want: loc{"#/severity", 1, 98}},
	{name: "crlf and tabs", doc: "{\r\n\t\"schema\": \"finding.v1\",\r\n\t\"producedBy\": \"agent\", \"id\": \"F-1\", \"title\": \"t\",\r\n\t\"summary\": \"s\", \"confidence\": \"low\", \"failureScenario\": \"f\",\r\n\t\"severity\":\t\"énorme\"\r\n}\r\n",
		want: loc{"#/severity", 5, 14}},
	{name: "bom", doc: "\uFEFF{\"schema\": \"finding.v1\", \"producedBy\": \"agent\", \"id\": \"F-1\", \"title\": \"t\", \"summary\": \"s\", \"confidence\": \"low\", \"failureScenario\": \"f\", \"severity\": 7}\n",
		want: loc{"#/severity", 1, 149}},
	{name: "unparseable multi-byte", doc: "{\"schema\": \"finding.v1\", \"title\": \"héllo\", \"x\": }\n", want: loc{"", 1, 49}, parse: true},
	{name: "unparseable crlf and tab", doc: "{\r\n\t\"schema\": \"finding.v1\",\r\n\t\"title\": \"é\",\t]\r\n}\r\n", want: loc{"", 3, 16}, parse: true},
	{name: "unparseable bom", doc: "\uFEFF{\"schema\": \"finding.v1\" \"x\": 1}\n", want: loc{"", 1, 25}, parse: true},
}

func TestOneBadFileEverywhere(t *testing.T) {
	git := testenv.Git(t)
	for _, tt := range consistencyCorpus {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mustRun(t, dir, nil, "init")
			const rel = ".foundry/blackboard/w/agent.json"
			testenv.WriteFile(t, dir, rel, tt.doc)
			file := filepath.Join(dir, filepath.FromSlash(rel))

			// The lines form is one for every command that writes it, so
			// an editor or a CI problem matcher reads them alike: the
			// same text, byte for byte.
			lines := map[string][]byte{
				"validate lines": onlyFile(runOut(t, dir, nil, "validate", "--format", "lines", "finding.v1", rel), rel),
				"doctor lines":   onlyFile(runOut(t, dir, nil, "doctor", "--no-history", "--format", "lines"), rel),
			}
			positional := map[string][]loc{
				"validate lines":           linesLocs(t, lines["validate lines"]),
				"validate json":            validateJSONLocs(t, runOut(t, dir, nil, "validate", "--format", "json", "finding.v1", rel)),
				"validate sarif":           sarifLocs(t, runOut(t, dir, nil, "validate", "--format", "sarif", "finding.v1", rel)),
				"doctor lines":             linesLocs(t, lines["doctor lines"]),
				"doctor json":              doctorJSONLocs(t, runOut(t, dir, nil, "doctor", "--no-history", "--json"), rel),
				"doctor sarif":             sarifLocs(t, runOut(t, dir, nil, "doctor", "--no-history", "--format", "sarif")),
				"contract_validate {path}": mcpLocs(t, dir, `{"schema":"finding.v1","path":"`+rel+`"}`),
			}
			gitInit(t, git, dir)
			lines["pre-commit hook"] = onlyFile(runOut(t, dir, nil, "hook", "pre-commit"), rel)
			positional["pre-commit hook"] = linesLocs(t, lines["pre-commit hook"])
			for name, got := range lines {
				if diff := cmp.Diff(string(lines["validate lines"]), string(got)); diff != "" {
					t.Errorf("%s writes other lines than validate --format lines (-validate +%s):\n%s", name, name, diff)
				}
			}

			for name, got := range positional {
				if len(got) == 0 {
					t.Errorf("%s reports nothing", name)
					continue
				}
				first := got[0]
				if tt.parse {
					first.Pointer = "" // a syntax error has no pointer
				}
				if first != tt.want {
					t.Errorf("%s: first problem %+v, want %+v", name, first, tt.want)
				}
				if !tt.parse {
					if diff := cmp.Diff(positional["validate json"], got); diff != "" {
						t.Errorf("%s disagrees with validate json (-validate +%s):\n%s", name, name, diff)
					}
				}
			}

			// The surfaces that report pointers only, or a position only for
			// unparseable JSON.
			pointers := map[string][]loc{
				"validate text":    validateTextLocs(runOut(t, dir, nil, "validate", "finding.v1", rel)),
				"blackboard write": blackboardLocs(t, dir, tt.doc),
				"Claude hook":      claudeLocs(t, file),
			}
			if !tt.parse {
				pointers["contract_validate {data}"] = mcpLocs(t, dir, `{"schema":"finding.v1","data":`+compact(t, tt.doc)+`}`)
			}
			var wantPtrs []loc
			for _, l := range positional["validate json"] {
				wantPtrs = append(wantPtrs, loc{Pointer: l.Pointer})
			}
			for name, got := range pointers {
				if tt.parse {
					if diff := cmp.Diff([]loc{tt.want}, got); diff != "" {
						t.Errorf("%s: syntax error position (-want +got):\n%s", name, diff)
					}
					continue
				}
				if diff := cmp.Diff(wantPtrs, got); diff != "" {
					t.Errorf("%s: pointers (-validate +%s):\n%s", name, name, diff)
				}
			}
		})
	}
}

// runOut runs foundry -C dir args and returns stdout, whatever the exit
// code (a bad file fails every command).
func runOut(t *testing.T, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	_, stdout, stderr := runIn(t, dir, string(stdin), args...)
	return []byte(stdout + stderr)
}

func mustRun(t *testing.T, dir string, stdin []byte, args ...string) {
	t.Helper()
	if code, stdout, stderr := runIn(t, dir, string(stdin), args...); code != 0 {
		t.Fatalf("foundry %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
}

// runIn runs foundry in dir with stdin and returns its exit status and
// streams.
func runIn(t *testing.T, dir, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"foundry", "-C", dir}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func gitInit(t *testing.T, git, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), gittest.Env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// onlyFile keeps the lines about rel (doctor also reports the project's
// other files).
func onlyFile(out []byte, rel string) []byte {
	var b bytes.Buffer
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, rel+":") {
			b.WriteString(line + "\n")
		}
	}
	return b.Bytes()
}

var lineRE = regexp.MustCompile(`^[^:]+:(\d+):(\d+): (#[^:]*)?`)

// linesLocs reads "path:line:col: <pointer>: <problem>" lines.
func linesLocs(t *testing.T, out []byte) []loc {
	t.Helper()
	var locs []loc
	for _, line := range strings.Split(string(out), "\n") {
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		l, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[2])
		locs = append(locs, loc{m[3], l, c})
	}
	return locs
}

func validateJSONLocs(t *testing.T, out []byte) []loc {
	t.Helper()
	var rep struct {
		Files []struct {
			Violations []struct {
				Pointer      string
				Line, Column int
			}
			Line, Column int
		}
	}
	decodeFirst(t, out, &rep)
	var locs []loc
	for _, f := range rep.Files {
		if f.Line > 0 {
			locs = append(locs, loc{"", f.Line, f.Column})
		}
		for _, v := range f.Violations {
			locs = append(locs, loc{v.Pointer, v.Line, v.Column})
		}
	}
	return locs
}

func doctorJSONLocs(t *testing.T, out []byte, rel string) []loc {
	t.Helper()
	var rep struct {
		Findings []struct {
			Check, File, Message string
			Line, Column         int
		}
	}
	decodeFirst(t, out, &rep)
	var locs []loc
	for _, f := range rep.Findings {
		if f.File != rel || !strings.HasPrefix(f.Check, "blackboard.") {
			continue
		}
		ptr, _, _ := strings.Cut(f.Message, ": ")
		if !strings.HasPrefix(ptr, "#") {
			ptr = ""
		}
		locs = append(locs, loc{ptr, f.Line, f.Column})
	}
	return locs
}

func sarifLocs(t *testing.T, out []byte) []loc {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID     string
				Properties struct{ Pointer string }
				Locations  []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	decodeFirst(t, out, &log)
	var locs []loc
	for _, r := range log.Runs[0].Results {
		if strings.HasPrefix(r.RuleID, "conflict") || len(r.Locations) == 0 || r.Locations[0].PhysicalLocation.Region.StartLine == 0 {
			continue
		}
		reg := r.Locations[0].PhysicalLocation.Region
		locs = append(locs, loc{r.Properties.Pointer, reg.StartLine, reg.StartColumn})
	}
	return locs
}

var atRE = regexp.MustCompile(`at (\d+):(\d+)|line (\d+), column (\d+)`)

// mcpLocs calls contract_validate through `foundry mcp serve` and returns
// the structured violations, or the position in a failure's text.
func mcpLocs(t *testing.T, dir, arguments string) []loc {
	t.Helper()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"contract_validate","arguments":` + arguments + `}}` + "\n"
	out := runOut(t, dir, []byte(in), "mcp", "serve")
	for _, line := range strings.Split(string(out), "\n") {
		var msg struct {
			ID     int
			Result struct {
				IsError    bool
				Content    []struct{ Text string }
				Structured struct {
					Violations []struct {
						Pointer      string
						Line, Column int
					}
				} `json:"structuredContent"`
			}
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.ID != 2 {
			continue
		}
		if msg.Result.IsError {
			return textLocs(msg.Result.Content[0].Text)
		}
		var locs []loc
		for _, v := range msg.Result.Structured.Violations {
			locs = append(locs, loc{v.Pointer, v.Line, v.Column})
		}
		return locs
	}
	t.Fatalf("no answer to contract_validate:\n%s", out)
	return nil
}

// textLocs reads a syntax error's position from a message.
func textLocs(text string) []loc {
	m := atRE.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	l, _ := strconv.Atoi(m[1] + m[3])
	c, _ := strconv.Atoi(m[2] + m[4])
	return []loc{{"", l, c}}
}

var bulletRE = regexp.MustCompile(`(?m)^- (#[^:]*):`)

func pointerLocs(text string) []loc {
	var locs []loc
	for _, m := range bulletRE.FindAllStringSubmatch(text, -1) {
		locs = append(locs, loc{Pointer: m[1]})
	}
	return locs
}

var textBulletRE = regexp.MustCompile(`(?m)^  - (#[^:]*):`)

// validateTextLocs reads validate's text report: the seed's "  - <pointer>:"
// lines, or the position of a syntax error in its message.
func validateTextLocs(out []byte) []loc {
	var locs []loc
	for _, m := range textBulletRE.FindAllStringSubmatch(string(out), -1) {
		locs = append(locs, loc{Pointer: m[1]})
	}
	if locs != nil {
		return locs
	}
	return textLocs(string(out))
}

// blackboardLocs writes doc with blackboard write --data-file.
func blackboardLocs(t *testing.T, dir, doc string) []loc {
	t.Helper()
	out := string(runOut(t, dir, []byte(doc), "blackboard", "write", "--wave", "w2", "--agent", "agent", "--schema", "finding.v1", "--data-file", "-"))
	if locs := pointerLocs(out); locs != nil {
		return locs
	}
	return textLocs(out)
}

// claudeLocs runs the Claude Code hook on file.
func claudeLocs(t *testing.T, file string) []loc {
	t.Helper()
	in, err := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": map[string]string{"file_path": file}})
	if err != nil {
		t.Fatal(err)
	}
	out := claude.PostToolUse(bytes.NewReader(in), claude.HookOptions{})
	if locs := pointerLocs(out.Message); locs != nil {
		return locs
	}
	return textLocs(out.Message)
}

func compact(t *testing.T, doc string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, bytes.TrimPrefix([]byte(doc), []byte("\uFEFF"))); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// decodeFirst decodes the first JSON value of out (stderr may follow).
func decodeFirst(t *testing.T, out []byte, v any) {
	t.Helper()
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(v); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}
}
