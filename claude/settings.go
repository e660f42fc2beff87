package claude

// This file defines `foundry init --claude`: merging the foundry MCP server
// into .mcp.json and the PostToolUse hook into .claude/settings.json.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/confined"
)

// ServerName is the MCP server's name, in .mcp.json and in tool names
// (mcp__foundry__<tool>, or mcp__plugin_foundry-core_foundry__<tool> from
// the plugin).
const ServerName = "foundry"

// HookCommand is the command of the PostToolUse hook entry, and HookMatcher
// the tools it runs after.
const (
	HookCommand = "foundry hook claude"
	HookMatcher = "Write|Edit|MultiEdit"
)

// MCPServer is one entry of .mcp.json's mcpServers.
type MCPServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// Server is the foundry entry: stdio, started in the project folder, where
// foundry finds .foundry/.
var Server = MCPServer{Command: "foundry", Args: []string{"mcp", "serve"}}

// MCPHTTPServer is an .mcp.json entry of an MCP server reached over
// Streamable HTTP.
type MCPHTTPServer struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// HTTPServer is the foundry entry of the shared daemon (foundry mcp serve
// --transport http) at its default address. Claude Code expands
// ${FOUNDRY_MCP_TOKEN} from the environment, so the token never lands in
// the file.
var HTTPServer = MCPHTTPServer{Type: "http", URL: "http://127.0.0.1:7391/mcp",
	Headers: map[string]string{"Authorization": "Bearer ${FOUNDRY_MCP_TOKEN}"}}

// hookGroup is one matcher group of a hooks event list.
type hookGroup struct {
	Matcher string        `json:"matcher"`
	Hooks   []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// foundryHookGroup is the PostToolUse entry Foundry adds.
var foundryHookGroup = hookGroup{Matcher: HookMatcher, Hooks: []hookCommand{{Type: "command", Command: HookCommand}}}

// Paths of the files Setup merges into, relative to the project root.
const (
	MCPFile      = ".mcp.json"
	SettingsFile = ".claude/settings.json"
)

// FileAction says what Setup did to one file.
type FileAction string

const (
	Created   FileAction = "created"   // the file did not exist
	Merged    FileAction = "merged"    // Foundry's entry was added beside the others
	Unchanged FileAction = "unchanged" // Foundry's entry was already there
	Kept      FileAction = "kept"      // an entry of the same name differs; it was left as it is
)

// FileResult reports one file of a Setup.
type FileResult struct {
	Path   string     `json:"path"` // slash path relative to the project root
	Action FileAction `json:"action"`
	Note   string     `json:"note,omitempty"` // why an entry was kept
}

// Setup writes what Claude Code needs to use Foundry in the project at root:
// the foundry server in .mcp.json and the PostToolUse hook in
// .claude/settings.json. Both files are merged: every other key and entry
// survives, an entry already present is not added again, and a foundry
// server entry that differs from Foundry's is kept as the user wrote it. A
// file that is not a JSON object is an error and is left untouched.
func Setup(root string) ([]FileResult, error) {
	plan, err := PlanSetup(root)
	if err != nil {
		return nil, err
	}
	return plan.Write(context.Background())
}

// Plan is a [Setup] checked and merged but not yet written, so a caller
// that changes other files too (foundry init --claude) can refuse before
// changing any of them.
type Plan struct {
	root  string
	entry any // the server entry of .mcp.json
}

// PlanSetup reads and merges both files of [Setup] and writes nothing: a
// file that is not a JSON object is an error here.
func PlanSetup(root string) (Plan, error) { return planSetup(root, Server) }

// PlanSetupHTTP is [PlanSetup] with the [HTTPServer] entry instead of the
// stdio one: the agents of the project share one daemon.
func PlanSetupHTTP(root string) (Plan, error) { return planSetup(root, HTTPServer) }

func planSetup(root string, entry any) (Plan, error) {
	files, err := confined.Open(root)
	if err != nil {
		return Plan{}, fmt.Errorf("set up %s: %w", MCPFile, err)
	}
	defer files.Close()
	if _, err := merge(files, entry); err != nil {
		return Plan{}, err
	}
	return Plan{root: root, entry: entry}, nil
}

// merge reads and merges both files. Both are checked and merged before
// either is written, so a file that cannot be merged leaves the other
// untouched too.
func merge(files *confined.Root, entry any) ([]pendingFile, error) {
	mcp, err := mergeFile(files, MCPFile, func(o *object) (FileResult, *insertion, error) { return mergeMCP(o, entry) })
	if err != nil {
		return nil, err
	}
	settings, err := mergeFile(files, SettingsFile, mergeSettings)
	if err != nil {
		return nil, err
	}
	return []pendingFile{mcp, settings}, nil
}

// Write writes the files of the plan that change, and returns what it did
// to each: all or nothing, as the plan promised, so a file that cannot be
// written (a full disk) has the files written before it put back as they
// were, and the error says so. It holds the project's settings lock
// (config.LockPath, its folder created when missing) and merges the files
// again from what they hold now, so a change another foundry made since
// the plan is kept; it gives up when ctx is done before the lock is free.
func (p Plan) Write(ctx context.Context) ([]FileResult, error) {
	if p.root == "" {
		return nil, nil
	}
	files, err := confined.Open(p.root)
	if err != nil {
		return nil, fmt.Errorf("set up %s: %w", MCPFile, err)
	}
	defer files.Close()
	if err := files.MkdirAll(path.Dir(config.LockPath)); err != nil {
		return nil, fmt.Errorf("set up %s: %w", MCPFile, err)
	}
	unlock, err := files.Lock(ctx, config.LockPath)
	if err != nil {
		return nil, fmt.Errorf("set up %s: %w", MCPFile, err)
	}
	defer func() { _ = unlock() }()
	pending, err := merge(files, p.entry)
	if err != nil {
		return nil, err
	}
	var done []FileResult
	for i, f := range pending {
		if err := f.write(files); err != nil {
			for _, w := range slices.Backward(pending[:i]) {
				if rerr := w.undo(files); rerr != nil {
					return done, fmt.Errorf("%w; %s was changed and could not be put back: %v", err, w.res.Path, rerr)
				}
			}
			return nil, fmt.Errorf("%w; nothing was changed", err)
		}
		done = append(done, f.res)
	}
	return done, nil
}

// pendingFile is a merged file not yet written: out is nil when it did not
// change; in is what it held, nil when there was none.
type pendingFile struct {
	res  FileResult
	mode fs.FileMode
	out  []byte
	in   []byte
}

// mergeFile reads the JSON object at rel (empty when absent) and lets merge
// change it; the result, when it changed, is written by pendingFile.write:
// the file with merge's insertion made in place, every other byte kept
// (a new or empty file is written whole).
// A file that would be written through a symbolic link (the file itself,
// or .claude/) is refused here, before anything is written: the link could
// lead out of the project.
func mergeFile(files *confined.Root, rel string, merge func(*object) (FileResult, *insertion, error)) (pendingFile, error) {
	fi, err := files.Lstat(rel)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return pendingFile{}, fmt.Errorf("set up %s: %w; nothing was changed", rel, err)
	}
	var data []byte
	if exists {
		// A link is read only while it stays inside the project.
		if data, err = confined.ReadFile(files.FS(), rel); err != nil {
			return pendingFile{}, fmt.Errorf("set up %s: %w; nothing was changed", rel, err)
		}
	}
	o := newObject()
	blank := len(bytes.TrimSpace(data)) == 0
	if !blank {
		if o, err = parseObject(data); err != nil {
			return pendingFile{}, fmt.Errorf("set up %s: %w; fix or move the file, nothing was changed", rel, err)
		}
	}
	res, ins, err := merge(o)
	if err != nil {
		return pendingFile{}, fmt.Errorf("set up %s: %w; nothing was changed", rel, err)
	}
	res.Path = rel
	if !exists {
		res.Action = Created
	}
	p := pendingFile{res: res, mode: 0o644}
	if exists {
		p.mode, p.in = fi.Mode().Perm(), data
	}
	if ins == nil {
		return p, nil
	}
	if err := files.NoFollow(rel); err != nil {
		return pendingFile{}, fmt.Errorf("set up %s: %w; nothing was changed", rel, err)
	}
	whole, err := render(o, data)
	if err != nil {
		return pendingFile{}, fmt.Errorf("set up %s: %w", rel, err)
	}
	p.out = whole
	if !blank {
		// The file written whole says the same: where the edit in place
		// would not (a defect), the file is written whole rather than
		// wrong.
		if out, err := ins.apply(data); err == nil && sameJSON(out, whole) {
			p.out = out
		}
	}
	return p, nil
}

// write writes the merged file when it changed, keeping its permissions.
func (p pendingFile) write(files *confined.Root) error {
	if p.out == nil {
		return nil
	}
	if err := files.MkdirAll(path.Dir(p.res.Path)); err != nil {
		return fmt.Errorf("set up %s: %w", p.res.Path, err)
	}
	if err := files.WriteFile(p.res.Path, p.out, p.mode); err != nil {
		return fmt.Errorf("set up %s: %w", p.res.Path, err)
	}
	return nil
}

// undo puts back the file write wrote: what it held, or nothing. A folder
// write created stays (.claude/, empty).
func (p pendingFile) undo(files *confined.Root) error {
	switch {
	case p.out == nil:
		return nil
	case p.in == nil:
		return files.Remove(p.res.Path)
	}
	return files.WriteFile(p.res.Path, p.in, p.mode)
}

// mergeMCP adds the foundry server to mcpServers, in o and as an
// insertion; none when it is there.
func mergeMCP(o *object, entry any) (FileResult, *insertion, error) {
	servers, err := o.child("mcpServers")
	if err != nil {
		return FileResult{}, nil, err
	}
	if cur, ok := servers.get(ServerName); ok {
		if sameJSON(cur, raw(entry)) {
			return FileResult{Action: Unchanged}, nil, nil
		}
		return FileResult{Action: Kept, Note: fmt.Sprintf("mcpServers.%s already exists and differs from %s; it was left as it is", ServerName, raw(entry))}, nil, nil
	}
	servers.set(ServerName, raw(entry))
	o.set("mcpServers", raw(servers))
	return FileResult{Action: Merged}, &insertion{path: []string{"mcpServers"}, key: ServerName, value: raw(entry)}, nil
}

// mergeSettings adds the PostToolUse hook group, in o and as an
// insertion, unless a group already runs HookCommand.
func mergeSettings(o *object) (FileResult, *insertion, error) {
	hooks, err := o.child("hooks")
	if err != nil {
		return FileResult{}, nil, err
	}
	var groups []json.RawMessage
	if cur, ok := hooks.get("PostToolUse"); ok {
		if err := json.Unmarshal(cur, &groups); err != nil {
			return FileResult{}, nil, errors.New(`"hooks"."PostToolUse": must be an array`)
		}
	}
	for _, g := range groups {
		var group struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &group) != nil {
			continue
		}
		for _, h := range group.Hooks {
			if runsHook(h.Command) {
				return FileResult{Action: Unchanged}, nil, nil
			}
		}
	}
	groups = append(groups, raw(foundryHookGroup))
	hooks.set("PostToolUse", raw(groups))
	o.set("hooks", raw(hooks))
	return FileResult{Action: Merged}, &insertion{path: []string{"hooks", "PostToolUse"}, value: raw(foundryHookGroup)}, nil
}

// runsHook reports whether command runs foundry's hook: HookCommand, or
// the same with foundry named by its path ("/usr/local/bin/foundry hook
// claude") or with global flags before the command ("foundry -C app hook
// claude").
func runsHook(command string) bool {
	command = strings.TrimSpace(command)
	prog, rest, _ := strings.Cut(command, " ")
	if q := command[:min(len(command), 1)]; q == `"` || q == "'" { // a quoted path
		var ok bool
		if prog, rest, ok = strings.Cut(command[1:], q); !ok {
			return false
		}
	}
	prog = strings.TrimSuffix(prog[strings.LastIndexAny(prog, `/\`)+1:], ".exe")
	args := strings.Fields(rest)
	i := slices.Index(args, "hook")
	return prog == "foundry" && i >= 0 && i+2 == len(args) && args[i+1] == "claude"
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
