package claude

// This file defines the PostToolUse hook: Claude Code's hook input in, an
// exit code and the text for the model out.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/tokens"
)

// Exit codes of the hook, as Claude Code reads them: on 2 it hands stderr to
// the model; every other non-zero code is shown only to the user, so the
// hook never ends with one.
const (
	ExitOK    = 0
	ExitBlock = 2
)

// MaxInputBytes bounds the hook input (a Write's input carries the whole
// file content); the artifact itself is read within artifacts.MaxBytes,
// the limit every Foundry entry point applies. [PostToolUse] reads one
// byte more to tell a larger input.
const MaxInputBytes = 64 << 20

// toolsChecked are the tools whose tool_input.file_path the hook checks.
var toolsChecked = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true}

// HookInput is the part of Claude Code's PostToolUse input the hook reads.
type HookInput struct {
	HookEventName string `json:"hook_event_name"`
	Cwd           string `json:"cwd"`
	ToolName      string `json:"tool_name"`
	ToolInput     struct {
		FilePath string `json:"file_path"`
	} `json:"tool_input"`
}

// HookOptions tunes [PostToolUse].
type HookOptions struct {
	// Dir resolves a relative file_path when the input carries no cwd.
	Dir string
	// Logger receives problems recording the gate_blocked event; nil
	// discards them (stderr belongs to the model).
	Logger *slog.Logger
}

// Outcome is the hook's answer: the exit code and, for ExitBlock, the text
// for stderr (newline-terminated). Blocked is set when a contract rejected
// the file, which is what a gate_blocked event counts.
type Outcome struct {
	Code    int
	Message string
	Blocked bool
}

// PostToolUse reads the hook input from in and checks the file it names.
// Valid, unrelated or not-a-blackboard-file: ExitOK with no message. Not
// parseable, no "schema" field, an unknown contract or violations: ExitBlock
// with the seed's text, and a gate_blocked event in the project's event log.
// Every internal failure (bad input, an unreadable file, a panic) is
// ExitBlock too, saying the write was not checked: Claude Code ignores any
// other exit code, and a check that silently did not run is worse than one
// that says so.
func PostToolUse(in io.Reader, opts HookOptions) (out Outcome) {
	name := ""
	defer func() {
		if p := recover(); p != nil {
			out = notChecked(name, fmt.Errorf("internal error: %v", p))
		}
	}()
	var input HookInput
	data, err := io.ReadAll(io.LimitReader(in, MaxInputBytes+1))
	if err == nil && len(data) > MaxInputBytes {
		// The Edit of a large file carries all of it: where the fields
		// that come first name no blackboard file, there is nothing to check.
		if lead, ok := leadingInput(data[:MaxInputBytes]); ok {
			if _, _, ours := lead.target(opts); !ours {
				return Outcome{Code: ExitOK}
			}
		}
		err = fmt.Errorf("larger than %d MiB", MaxInputBytes>>20)
	}
	if err == nil {
		err = json.Unmarshal(data, &input)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && otherTool(data) {
		return Outcome{Code: ExitOK} // an odd field of a tool the hook does not check
	}
	if err != nil {
		return notChecked(name, fmt.Errorf("read hook input: %w", err))
	}
	if input.HookEventName != "" && input.HookEventName != "PostToolUse" {
		return Outcome{Code: ExitOK}
	}
	root, path, ok := input.target(opts)
	if !ok {
		return Outcome{Code: ExitOK}
	}
	name = filepath.Base(path)
	out = check(root, path, name)
	if out.Blocked {
		tokens.NewLog(root, opts.Logger).Record(tokens.KindGateBlocked)
	}
	return out
}

// target returns the blackboard file the input's tool wrote, absolute, and
// its project's root; ok is false for any other tool or file.
func (input HookInput) target(opts HookOptions) (root, path string, ok bool) {
	if !toolsChecked[input.ToolName] || input.ToolInput.FilePath == "" {
		return "", "", false
	}
	path = input.ToolInput.FilePath
	if !filepath.IsAbs(path) {
		base := input.Cwd
		if base == "" {
			base = opts.Dir
		}
		path = filepath.Join(base, path)
	}
	root, ok = BlackboardRoot(path)
	if !ok && strings.EqualFold(filepath.Ext(path), ".json") {
		// Written through a link to a blackboard folder (bb/w/a.json,
		// bb a link to .foundry/blackboard), it is a blackboard file. The
		// file itself is left as it is: check reads it through the
		// project's root, which refuses a link out of the project.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
			path = filepath.Join(dir, filepath.Base(path))
			root, ok = BlackboardRoot(path)
		}
	}
	return root, path, ok
}

// leadingInput reads the fields the hook needs from the first bytes of an
// input too large to read whole, as Claude Code sends them: "cwd",
// "hook_event_name" and "tool_name" before "tool_input", whose "file_path"
// comes before the content. ok is false where they do not come so, or the
// input is no PostToolUse of a tool the hook knows.
func leadingInput(prefix []byte) (in HookInput, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return in, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return in, false
		}
		switch t {
		case "cwd":
			err = dec.Decode(&in.Cwd)
		case "hook_event_name":
			err = dec.Decode(&in.HookEventName)
		case "tool_name":
			err = dec.Decode(&in.ToolName)
		case "tool_input":
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return in, false
			}
			if t, err := dec.Token(); err != nil || t != "file_path" {
				return in, false
			}
			known := in.HookEventName == "PostToolUse" && toolsChecked[in.ToolName]
			return in, dec.Decode(&in.ToolInput.FilePath) == nil && known
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return in, false
		}
	}
	return in, false
}

// otherTool reports whether data, read leniently (any field may have any
// type), is a hook input object whose tool_name is not a tool the hook
// checks.
func otherTool(data []byte) bool {
	var probe struct {
		ToolName json.RawMessage `json:"tool_name"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false // not an object: the input is unusable
	}
	var tool string
	return json.Unmarshal(probe.ToolName, &tool) != nil || !toolsChecked[tool]
}

// BlackboardRoot reports whether path (absolute) names a .json file under
// some project's .foundry/blackboard/, and returns that project's root. The
// nearest .foundry/blackboard/ above the file wins.
func BlackboardRoot(path string) (root string, ok bool) {
	path = filepath.Clean(path)
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return "", false
	}
	for dir := filepath.Dir(path); ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		if filepath.Base(dir) == "blackboard" && filepath.Base(parent) == ".foundry" {
			return filepath.Dir(parent), true
		}
		dir = parent
	}
}

// check validates the file at path of the project at root.
func check(root, path, name string) Outcome {
	// The file is read through the project's root: a symbolic link whose
	// target leaves the project is refused, not followed.
	fsys := confined.OpenFS(root)
	rel, err := confined.Rel(root, path)
	if err != nil {
		return notChecked(name, err)
	}
	doc, err := artifacts.ReadFile(fsys, rel)
	var tooLarge *artifacts.TooLargeError
	switch {
	case errors.Is(err, artifacts.ErrNotFound):
		return notChecked(name, errors.New("the file does not exist"))
	case errors.Is(err, artifacts.ErrFolder):
		return notChecked(name, errors.New("it is a folder"))
	case errors.Is(err, artifacts.ErrNotRegular):
		// A device or a pipe could block the read or never end it.
		return notChecked(name, errors.New("it is not a regular file"))
	case errors.As(err, &tooLarge) && tooLarge.Size >= 0:
		return reject(fmt.Sprintf("Foundry: %s is larger than %d MiB, the limit for an artifact. Fix it before continuing:", name, artifacts.MaxBytes>>20),
			[]string{fmt.Sprintf("#: %d bytes", tooLarge.Size)}, "")
	case errors.Is(err, artifacts.ErrEmpty):
		// Validation reports it as not parseable JSON, at 1:1.
	case err != nil:
		return notChecked(name, err)
	}
	reg, err := contracts.Load(fsys)
	if err != nil {
		return notChecked(name, err)
	}
	available := "Available contracts: " + strings.Join(reg.IDs(), ", ") + "."
	id, violations, err := reg.ValidateAuto(doc)
	var (
		perr *contracts.ParseError
		serr *contracts.SchemaFieldError
	)
	switch {
	case errors.As(err, &perr):
		return reject(fmt.Sprintf("Foundry: %s is not parseable JSON. Fix it before continuing:", name),
			[]string{fmt.Sprintf("line %d, column %d: %v", perr.Line, perr.Column, perr.Err)}, "")
	case errors.As(err, &serr):
		return reject(fmt.Sprintf(`Foundry: %s has no "schema" field. Fix it before continuing:`, name),
			[]string{serr.Problem}, available)
	case errors.Is(err, contracts.ErrUnknownContract):
		return reject(fmt.Sprintf("Foundry: %s names an unknown contract %q. Fix it before continuing:", name, id),
			[]string{fmt.Sprintf("#/schema: unknown contract %q", id)}, available)
	case err != nil:
		return notChecked(name, err)
	case len(violations) == 0:
		return Outcome{Code: ExitOK}
	}
	lines := make([]string, len(violations))
	for i, v := range violations {
		lines[i] = v.String()
	}
	return reject(fmt.Sprintf("Foundry: %s violates %s. Fix it before continuing:", name, id), lines, "")
}

// reject renders a rejection: the header, one "- " line per problem, and an
// optional trailer.
func reject(header string, problems []string, trailer string) Outcome {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, p := range problems {
		b.WriteString("- " + p + "\n")
	}
	if trailer != "" {
		b.WriteString(trailer + "\n")
	}
	return Outcome{Code: ExitBlock, Message: b.String(), Blocked: true}
}

// notChecked reports a check that could not run; name is "" when the hook
// input did not say which file was written.
func notChecked(name string, err error) Outcome {
	if name == "" {
		return Outcome{Code: ExitBlock, Message: fmt.Sprintf(
			"Foundry: could not check the file just written against its contract: %v. If it is a .foundry/blackboard/ artifact, validate it with contract_validate before continuing.\n", err)}
	}
	return Outcome{Code: ExitBlock, Message: fmt.Sprintf(
		"Foundry: could not check %s against its contract: %v. Validate it with contract_validate before continuing.\n", name, err)}
}
