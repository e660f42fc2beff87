// Package config loads .foundry/config.yaml into one Config value with the
// documented defaults. The file is optional; an unknown key, a value of the
// wrong type or one out of range is an error naming the file, the line and
// the key path, never silently ignored.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/textdist"
	"github.com/foundryhq/foundry/internal/yamlerr"
)

// Path is where the config lives, relative to the project root.
const Path = ".foundry/config.yaml"

// LockPath is the lock, relative to the project root, that serialises the
// read-modify-writes of the project's settings: config.yaml (foundry mcp
// token, init's opt-in) and the Claude Code files foundry init --claude
// merges (.mcp.json, .claude/settings.json). Without it two of them at
// once could each write back what it read, losing the other's change.
const LockPath = ".foundry/.lock"

// MaxBytes bounds the config file a command rewrites.
const MaxBytes = 1 << 20

// Config is the whole configuration of a project.
type Config struct {
	MemoryRetrieval MemoryRetrieval
	Memory          Memory
	MCP             MCP
}

// MemoryRetrieval tunes memory_search.
type MemoryRetrieval struct {
	MaxFacts int // default limit of memory_search, 1–25
}

// Memory tunes the memory index.
type Memory struct {
	IndexBudgetTokens int // token budget of INDEX.md
}

// MCP governs `foundry mcp serve`. Its defaults are seed 003's: the server
// is off unless the block says enabled: true, read-only unless read_only is
// false, and a mutating capability is exposed only when its scope is also
// listed in scopes.
type MCP struct {
	// Declared is true when the file has an mcp block; without one the
	// server refuses to start and `foundry init` adds the opt-in.
	Declared          bool
	Enabled           bool
	ReadOnly          bool
	Audit             bool
	MaxConcurrency    int
	RequestsPerMinute int
	Burst             int
	// Scopes enabled; nil (the key omitted) means every read scope and no
	// mutating scope.
	Scopes []string
	// Capabilities switches single capabilities on or off by name; nil
	// when the key is omitted. The names are held to MCPCapabilities by
	// ParseChecked and when the server starts.
	Capabilities map[string]bool
	// HTTP configures the optional daemon (foundry mcp serve --transport
	// http).
	HTTP MCPHTTP
}

// Default returns the configuration used when the file is absent.
func Default() Config {
	return Config{
		MemoryRetrieval: MemoryRetrieval{MaxFacts: 8},
		Memory:          Memory{IndexBudgetTokens: 4000},
		MCP: MCP{
			ReadOnly:          true,
			MaxConcurrency:    16,
			RequestsPerMinute: 600,
			Burst:             120,
		},
	}
}

// Error is a problem in the config file, located by line and key path.
type Error struct {
	File string // as given to Load, e.g. ".foundry/config.yaml"
	Line int
	Key  string // dotted path, e.g. "memoryRetrieval.maxFacts"
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

// ErrInvalid is wrapped by every *Error, for errors.Is.
var ErrInvalid = errors.New("invalid config")

func (e *Error) Unwrap() error { return ErrInvalid }

// Load reads the config from fsys (rooted at the project root) with
// [Parse]. A missing file gives the defaults.
func Load(fsys fs.FS) (Config, error) { return load(fsys, false) }

// LoadChecked is Load with [ParseChecked].
func LoadChecked(fsys fs.FS) (Config, error) { return load(fsys, true) }

func load(fsys fs.FS, checked bool) (Config, error) {
	data, err := fs.ReadFile(fsys, Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if errors.Is(err, confined.ErrTooLarge) || errors.Is(err, confined.ErrOutside) || errors.Is(err, syscall.ELOOP) {
		// The file is there but is not a config: an invalid one, which
		// doctor reports and lenient readers replace by the defaults.
		msg := "not read: it is a link that " + confined.ErrOutside.Error()
		var tl *confined.TooLargeError
		switch {
		case errors.Is(err, confined.ErrFoundryIsProject):
			msg = "not read: " + confined.ErrFoundryIsProject.Error() // no link of its own
		case errors.Is(err, confined.ErrOutsideFoundry):
			msg = "not read: it is a link that " + confined.ErrOutsideFoundry.Error()
		case errors.As(err, &tl):
			msg = fmt.Sprintf("not read: it is %s, over the %s limit for a config", confined.FormatSize(tl.Size), tl.Limit)
		case errors.Is(err, syscall.ELOOP):
			msg = "not read: it is a link in a loop of links"
		}
		return Config{}, &Error{File: Path, Msg: msg}
	}
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	return parse(Path, data, checked)
}

// validScope reports whether s names a scope: lower-case letters, a
// colon, lower-case letters (read:memory). A loop, not a regular
// expression: the config of every MCP server lists its scopes, and
// compiling one cost each start-up more than parsing the rest of the file.
func validScope(s string) bool {
	kind, what, ok := strings.Cut(s, ":")
	return ok && lowerWord(kind) && lowerWord(what)
}

// lowerWord reports whether s is one or more of a-z.
func lowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// MCPScopes are the scopes of the MCP server's capabilities, and
// MCPCapabilities the names mcp.capabilities switches: the server's tools,
// resources and resource templates (a runbook's resource is switched by
// its template). Package mcp's tests hold its registry to both lists, so
// that a name the server would refuse at start is refused here, where
// `foundry config`, doctor and the pre-commit hook report it.
var (
	MCPScopes       = []string{"read:memory", "write:memory", "read:runbooks", "read:contracts", "read:blackboard", "write:blackboard", "read:ops"}
	MCPCapabilities = []string{
		"memory_search", "memory_write", "memory_index", "runbook_list", "runbook_get", "contract_validate",
		"blackboard_write", "blackboard_read", "token_report", "doctor",
		"foundry://memory/index", "foundry://contracts", "foundry://runbooks/{slug}", "foundry://contracts/{id}",
		"foundry://memory/facts/{id}", "foundry://blackboard/{wave}/{agent}",
	}
)

// UnknownNames reports whether m names a scope or capability this build
// does not serve: a check on the parsed values, which [ParseChecked]
// then locates in the file.
func (m MCP) UnknownNames() bool {
	scopes := slices.Clone(m.Scopes)
	for _, t := range m.HTTP.Tokens {
		scopes = append(scopes, t.Scopes...)
	}
	for _, sc := range scopes {
		if !slices.Contains(MCPScopes, sc) {
			return true
		}
	}
	for name := range m.Capabilities {
		if !slices.Contains(MCPCapabilities, name) {
			return true
		}
	}
	return false
}

// known refuses, when d is checked (ParseChecked), a name of kind (scope,
// capability) at n that is not among known, with the nearest known names
// first, then all of them.
func (d decoder) known(n *yaml.Node, key, kind, name string, known []string) error {
	if !d.checked || slices.Contains(known, name) {
		return nil
	}
	msg := fmt.Sprintf("unknown %s %q", kind, name)
	if near := textdist.Closest(name, known, 2); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return d.errorf(n, key, "%s (known: %s)", msg, strings.Join(slices.Sorted(slices.Values(known)), ", "))
}

// validCapability reports whether s may name a capability in
// mcp.capabilities: 1 to 256 of A-Z a-z 0-9 _ . - : / { } (a tool name,
// a resource URI or a URI template). A loop for the reason of validScope;
// the counted repetition alone compiles into hundreds of instructions.
func validCapability(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("_.-:/{}", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// Parse parses config file content; name is used in error messages. It
// takes any well-formed MCP scope and capability name: [ParseChecked]
// holds them to the ones this build serves.
func Parse(name string, data []byte) (Config, error) { return parse(name, data, false) }

// ParseChecked is Parse that also refuses an MCP scope or capability name
// this build does not serve (a typo, or a name of another version of
// Foundry), naming its line: what `foundry config`, doctor (so the
// pre-commit hook) and `mcp serve` check. Every other command reads the
// config with Parse, so that a name a newer version committed does not
// stop an older one.
func ParseChecked(name string, data []byte) (Config, error) { return parse(name, data, true) }

func parse(name string, data []byte, checked bool) (Config, error) {
	c := Default()
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Config{}, yamlError(name, data)
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	d := decoder{file: name, checked: checked}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	err := d.object(root, "", map[string]func(*yaml.Node, string) error{
		"memoryRetrieval": func(n *yaml.Node, k string) error {
			return d.object(n, k, map[string]func(*yaml.Node, string) error{
				"maxFacts": func(n *yaml.Node, k string) error { return d.intIn(n, k, &c.MemoryRetrieval.MaxFacts, 1, 25) },
			})
		},
		"memory": func(n *yaml.Node, k string) error {
			return d.object(n, k, map[string]func(*yaml.Node, string) error{
				"indexBudgetTokens": func(n *yaml.Node, k string) error {
					return d.intIn(n, k, &c.Memory.IndexBudgetTokens, 100, 1_000_000)
				},
			})
		},
		"mcp": func(n *yaml.Node, k string) error {
			c.MCP.Declared = true
			return d.object(n, k, map[string]func(*yaml.Node, string) error{
				"enabled":         func(n *yaml.Node, k string) error { return d.boolean(n, k, &c.MCP.Enabled) },
				"read_only":       func(n *yaml.Node, k string) error { return d.boolean(n, k, &c.MCP.ReadOnly) },
				"http":            func(n *yaml.Node, k string) error { return d.mcpHTTP(n, k, &c.MCP.HTTP) },
				"audit":           func(n *yaml.Node, k string) error { return d.boolean(n, k, &c.MCP.Audit) },
				"max_concurrency": func(n *yaml.Node, k string) error { return d.intIn(n, k, &c.MCP.MaxConcurrency, 1, 1024) },
				"rate_limit": func(n *yaml.Node, k string) error {
					return d.object(n, k, map[string]func(*yaml.Node, string) error{
						"requests_per_minute": func(n *yaml.Node, k string) error {
							return d.intIn(n, k, &c.MCP.RequestsPerMinute, 1, 1_000_000)
						},
						"burst": func(n *yaml.Node, k string) error { return d.intIn(n, k, &c.MCP.Burst, 1, 1_000_000) },
					})
				},
				"scopes": func(n *yaml.Node, k string) error {
					if n.Kind != yaml.SequenceNode {
						return d.errorf(n, k, "want a list of scopes like read:memory, got %s", describe(n))
					}
					c.MCP.Scopes = []string{}
					for i, item := range n.Content {
						if item.Kind != yaml.ScalarNode || item.Tag != "!!str" || !validScope(item.Value) {
							return d.errorf(item, fmt.Sprintf("%s[%d]", k, i), "want a scope like read:memory, got %s", describe(item))
						}
						if err := d.known(item, fmt.Sprintf("%s[%d]", k, i), "scope", item.Value, MCPScopes); err != nil {
							return err
						}
						c.MCP.Scopes = append(c.MCP.Scopes, item.Value)
					}
					return nil
				},
				"capabilities": func(n *yaml.Node, k string) error {
					if n.Kind != yaml.MappingNode {
						return d.errorf(n, k, "want a mapping of capability names, got %s", describe(n))
					}
					c.MCP.Capabilities = map[string]bool{}
					for i := 0; i+1 < len(n.Content); i += 2 {
						kn, vn := n.Content[i], n.Content[i+1]
						ck := k + "." + kn.Value
						if kn.Kind != yaml.ScalarNode || !validCapability(kn.Value) {
							return d.errorf(kn, ck, "want a capability name like memory_search, got %s", describe(kn))
						}
						if err := d.known(kn, ck, "capability", kn.Value, MCPCapabilities); err != nil {
							return err
						}
						if _, dup := c.MCP.Capabilities[kn.Value]; dup {
							return d.errorf(kn, ck, "duplicate key")
						}
						var on bool
						if err := d.object(vn, ck, map[string]func(*yaml.Node, string) error{
							"enabled": func(n *yaml.Node, k string) error { return d.boolean(n, k, &on) },
						}); err != nil {
							return err
						}
						if len(vn.Content) == 0 {
							return d.errorf(vn, ck, "want {enabled: true} or {enabled: false}")
						}
						c.MCP.Capabilities[kn.Value] = on
					}
					return nil
				},
			})
		},
	})
	if err != nil {
		return Config{}, err
	}
	return c, nil
}

type decoder struct {
	file    string
	checked bool // names held to MCPScopes and MCPCapabilities (ParseChecked)
}

func (d decoder) errorf(n *yaml.Node, key, format string, args ...any) error {
	return &Error{File: d.file, Line: n.Line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

func (d decoder) object(n *yaml.Node, key string, fields map[string]func(*yaml.Node, string) error) error {
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, key, "want a mapping, got %s", describe(n))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		path := kn.Value
		if key != "" {
			path = key + "." + kn.Value
		}
		f, ok := fields[kn.Value]
		if !ok {
			return &Error{File: d.file, Line: kn.Line, Key: path, Msg: "unknown key" + knownKeys(fields)}
		}
		if seen[kn.Value] {
			return &Error{File: d.file, Line: kn.Line, Key: path, Msg: "duplicate key"}
		}
		seen[kn.Value] = true
		if err := f(vn, path); err != nil {
			return err
		}
	}
	return nil
}

func knownKeys(fields map[string]func(*yaml.Node, string) error) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s := " (known keys:"
	for _, k := range keys {
		s += " " + k
	}
	return s + ")"
}

func (d decoder) intIn(n *yaml.Node, key string, dst *int, lo, hi int) error {
	var v int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		return d.errorf(n, key, "want an integer, got %s", describe(n))
	}
	if v < lo || v > hi {
		return d.errorf(n, key, "%d is out of range %d–%d", v, lo, hi)
	}
	*dst = v
	return nil
}

func (d decoder) boolean(n *yaml.Node, key string, dst *bool) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(dst) != nil {
		return d.errorf(n, key, "want true or false, got %s", describe(n))
	}
	return nil
}

// maxEcho is the most of an offending value an error message repeats: the
// message names the key and line; the value may be a whole file.
const maxEcho = 40

// short cuts s to maxEcho characters, saying how long it was.
func short(s string) string {
	if r := []rune(s); len(r) > maxEcho {
		return fmt.Sprintf("%s… (%d characters)", string(r[:maxEcho]), len(r))
	}
	return s
}

// quoteShort is short for a string shown quoted.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > maxEcho {
		return fmt.Sprintf("%q… (%d characters)", string(r[:maxEcho]), len(r))
	}
	return fmt.Sprintf("%q", s)
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!str":
		return "string " + quoteShort(n.Value)
	case "!!null":
		return "nothing"
	case "!!int":
		return "integer " + short(n.Value)
	case "!!float":
		return "number " + short(n.Value)
	case "!!bool":
		return "boolean " + short(n.Value)
	}
	return fmt.Sprintf("%q", n.Value)
}

// yamlError reports data that does not parse as YAML, at the line package
// yamlerr finds, in its words: the parser's own message is not read.
func yamlError(name string, data []byte) *Error {
	line, problem := yamlerr.Locate(string(data))
	return &Error{File: name, Line: line, Msg: "not valid YAML" + problem}
}
