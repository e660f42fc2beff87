// This file defines the capability registry: tools, resources and resource
// templates with their governance data.

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/lazyre"
)

// Scopes of Foundry's capabilities. A tool or resource belongs to exactly
// one; [Options.Scopes] enables a subset.
const (
	ScopeReadMemory      = "read:memory"
	ScopeWriteMemory     = "write:memory"
	ScopeReadRunbooks    = "read:runbooks"
	ScopeReadContracts   = "read:contracts"
	ScopeReadBlackboard  = "read:blackboard"
	ScopeWriteBlackboard = "write:blackboard"
	ScopeReadOps         = "read:ops"
)

// Defaults of the per-capability limits.
const (
	DefaultTimeout        = 10 * time.Second
	DefaultMaxResultBytes = 256 << 10
)

// Governance is what seed 003 registers with every capability beside its
// name, schemas and scope. It is embedded in [Tool], [Resource] and
// [ResourceTemplate].
type Governance struct {
	// Version of the capability's public contract (its name and schemas);
	// 0 means 1. Renaming a capability or removing a field is a breaking
	// change: register a new version instead.
	Version int
	// AuditCategory names the kind of operation in the audit log, e.g.
	// "memory.write". Required.
	AuditCategory string
	// DefaultOff says the capability is off unless mcp.capabilities
	// enables it; core capabilities are on by default.
	DefaultOff bool
	// Plugin is the owning plugin, "" for Foundry's own capabilities. A
	// plugin's tool is named "<plugin>_<name>" and its resources use the
	// foundry-plugin://<plugin>/ scheme.
	Plugin string
	// Timeout bounds one call or read; 0 means [DefaultTimeout].
	Timeout time.Duration
	// MaxResultBytes bounds one result; 0 means [DefaultMaxResultBytes].
	MaxResultBytes int
}

// PluginScheme is the URI scheme of plugin resources.
const PluginScheme = "foundry-plugin://"

var pluginName = lazyre.New(`^[a-z][a-z0-9-]{0,62}$`)

// check applies the registration rules of governance to a capability named
// name (a tool's name, or a resource's URI or URI template) and fills in
// the defaults.
func (g *Governance) check(name string, tool bool) error {
	switch {
	case g.Version < 0:
		return errors.New("version must not be negative")
	case strings.TrimSpace(g.AuditCategory) == "":
		return errors.New("audit category is required")
	case g.Timeout < 0 || g.MaxResultBytes < 0:
		return errors.New("timeout and result-size limit must not be negative")
	case g.Plugin != "" && !pluginName().MatchString(g.Plugin):
		return fmt.Errorf("plugin name %q must be [a-z][a-z0-9-]*", g.Plugin)
	case g.Plugin != "" && tool && !strings.HasPrefix(name, g.Plugin+"_"):
		return fmt.Errorf("a tool of plugin %s must be named %s_<name>", g.Plugin, g.Plugin)
	case g.Plugin != "" && !tool && !strings.HasPrefix(name, PluginScheme+g.Plugin+"/"):
		return fmt.Errorf("a resource of plugin %s must use %s%s/", g.Plugin, PluginScheme, g.Plugin)
	case g.Plugin == "" && strings.HasPrefix(name, PluginScheme):
		return fmt.Errorf("%s is reserved for plugin resources", PluginScheme)
	}
	if g.Version == 0 {
		g.Version = 1
	}
	if g.Timeout == 0 {
		g.Timeout = DefaultTimeout
	}
	if g.MaxResultBytes == 0 {
		g.MaxResultBytes = DefaultMaxResultBytes
	}
	return nil
}

// Tool is the registration of one tool. Name, Description, InputSchema,
// Scope and AuditCategory are required.
type Tool struct {
	// Name is stable and unique: 1–128 characters of [A-Za-z0-9_.-].
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description tells a model what the tool does and when to call it.
	Description string
	// InputSchema is a JSON Schema (2020-12 by default) whose top level is
	// {"type":"object",…}; arguments are validated against it before the
	// handler runs.
	InputSchema json.RawMessage
	// OutputSchema, when set, describes structuredContent (top level
	// "type":"object"); every successful result is checked against it,
	// unless OutputProven.
	OutputSchema json.RawMessage
	// OutputProven says the handler's results are proven to match
	// OutputSchema by tests that check every result they see, so the server
	// skips the check (a decode and a validation) on every call. Set it
	// only for handlers whose output is built from typed values.
	OutputProven bool
	// Scope is the scope the tool belongs to, e.g. [ScopeReadMemory].
	Scope string
	// Mutating classifies the tool as one that changes state; read-only mode
	// hides it. It sets the readOnlyHint annotation to its negation.
	Mutating bool
	// Destructive and Idempotent set the destructiveHint and idempotentHint
	// annotations.
	Destructive bool
	Idempotent  bool
	// Governance holds the version, audit category, default state,
	// owning plugin, timeout and result-size limit. The timeout is
	// enforced through the handler's context: a handler must return soon
	// after ctx is done, and the call is then answered "<tool> failed:
	// timed out after <timeout>". The server waits for the handler rather
	// than abandon it, so a mutating tool never reports a failure it did
	// not have. A result larger than the limit is replaced by an error.
	Governance
}

// Output is what a tool handler returns on success.
type Output struct {
	// Text is the payload the model reads, sent as a text content block.
	Text string
	// Structured is sent as structuredContent. It must encode to a JSON
	// object valid against the tool's OutputSchema, and is required when
	// the tool has one.
	Structured any
	// Changes lists the files a mutating call changed, for the audit log.
	Changes []Change
	// Redacted says the handler already passed every string of Text and
	// Structured through the secret redaction the server applies (for
	// example from a cache of redacted facts), so the server does not scan
	// them again.
	Redacted bool
}

// ToolHandler handles one call of a tool with its decoded arguments, which
// have already passed the input schema.
type ToolHandler[In any] func(ctx context.Context, call *Call, in In) (Output, error)

// rawHandler is a ToolHandler after argument decoding is folded in.
type rawHandler func(ctx context.Context, call *Call, args json.RawMessage) (Output, error)

// tool is a registered tool with its schemas, compacted (for a deferred
// registration) and compiled on first use, and its tools/list entry.
type tool struct {
	Tool
	handle rawHandler
	// listing is the tool's tools/list entry, encoded by the first
	// tools/list.
	listing func() (json.RawMessage, error)

	// rawSchemas returns the schemas as written, for a registration by
	// addDeferred; nil for one by AddTool.
	rawSchemas func() (in, out json.RawMessage)
	// defined guards inJSON and outJSON, the compacted schemas: set at
	// registration by AddTool, or on first use for a registration by
	// addDeferred (then defineErr says why they are not valid).
	defined         sync.Once
	inJSON, outJSON json.RawMessage
	defineErr       error

	once       sync.Once
	in         *contracts.Schema
	compileErr error
	// The output schema is compiled apart, on the first result it checks:
	// never in a server whose tools are all OutputProven.
	outOnce sync.Once
	out     *contracts.Schema
	outErr  error
}

// define returns the tool's compacted input and output schemas (out nil
// when it has none). A deferred registration writes, checks and compacts
// them here, the first time a tools/list, a tools/call or the catalog
// needs them: a server answers initialize without touching any schema.
func (t *tool) define() (in, out json.RawMessage, err error) {
	t.defined.Do(func() {
		if t.rawSchemas != nil {
			t.inJSON, t.outJSON, t.defineErr = objectSchemas(t.rawSchemas())
			if t.defineErr != nil {
				t.defineErr = fmt.Errorf("tool %q: %w: %v", t.Name, ErrInvalidTool, t.defineErr)
			}
		}
	})
	return t.inJSON, t.outJSON, t.defineErr
}

// schemas defines the tool's schemas and compiles its input schema the
// first time they are needed: a server answers initialize and tools/list
// without compiling any.
func (t *tool) schemas() error {
	t.once.Do(func() {
		if _, _, t.compileErr = t.define(); t.compileErr != nil {
			return
		}
		var err error
		if t.in, err = contracts.Compile(t.inJSON); err != nil {
			t.compileErr = fmt.Errorf("tool %q: %w: input schema: %v", t.Name, ErrInvalidTool, err)
		}
	})
	return t.compileErr
}

// outSchema compiles the tool's output schema the first time a result is
// checked against it; nil without one, or when the schemas are not valid
// at all (schemas says why).
func (t *tool) outSchema() (*contracts.Schema, error) {
	t.outOnce.Do(func() {
		if _, out, err := t.define(); err != nil || out == nil {
			return
		}
		var err error
		if t.out, err = contracts.Compile(t.outJSON); err != nil {
			t.outErr = fmt.Errorf("tool %q: %w: output schema: %v", t.Name, ErrInvalidTool, err)
		}
	})
	return t.out, t.outErr
}

// ToolNames returns the names of the registered tools in registration
// order.
func (r *Registry) ToolNames() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name
	}
	return names
}

// OutputSchema returns the compacted output schema of the named tool, nil
// when it has none or there is no such tool.
func (r *Registry) OutputSchema(name string) json.RawMessage {
	if t := r.byName[name]; t != nil {
		_, out, _ := t.define()
		return out
	}
	return nil
}

// Compile compiles the schemas of every tool now instead of on first use,
// and reports those that do not compile (errors matching
// [ErrInvalidTool]).
func (r *Registry) Compile() error {
	var errs []error
	for _, t := range r.tools {
		_, outErr := t.outSchema()
		errs = append(errs, t.schemas(), outErr)
	}
	return errors.Join(errs...)
}

// Resource describes one concrete resource.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Scope is the scope the resource belongs to. For a resource listed by
	// a template's lister it is ignored: the template's scope applies.
	Scope string
	// Governance is required of a registered resource and ignored for one
	// listed by a template's lister (the template's applies).
	Governance

	// describe, when a template's lister sets it, fills in the resource's
	// Name, Title and Description. resources/list calls it for the
	// resources of the page it answers with, and for no other: a lister
	// of one resource per file (per runbook) names them all from the
	// folder's listing and reads the files of one page alone. An error
	// fails the list as the lister's own would.
	describe func(ctx context.Context, r *Resource) error
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template of the simple form "scheme://path/{var}/…", where each {var}
// matches one non-empty path segment.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Scope       string
	Governance
}

// ResourceReader returns the text of the resource at uri. vars holds the
// template variables, percent-decoded (nil for a fixed resource). It returns an error
// wrapping [ErrUnknownResource] when uri names nothing.
type ResourceReader func(ctx context.Context, uri string, vars map[string]string) (string, error)

// ResourceLister returns the concrete resources of a template that
// resources/list should show, e.g. one per runbook.
type ResourceLister func(ctx context.Context) ([]Resource, error)

type resource struct {
	Resource
	read ResourceReader
}

type template struct {
	ResourceTemplate
	pattern string // the regular expression of its URIs, see templatePattern
	vars    []string
	list    ResourceLister
	read    ResourceReader

	compiled sync.Once
	re       *regexp.Regexp
	reErr    error
}

// match returns the template's compiled pattern, compiled the first time
// a resources/read needs it, not before a server's first answer.
func (t *template) match() (*regexp.Regexp, error) {
	t.compiled.Do(func() { t.re, t.reErr = regexp.Compile(t.pattern) })
	return t.re, t.reErr
}

// Registry holds the capabilities a server exposes, in registration order.
// Register everything before serving; a Registry is not safe for
// concurrent registration.
type Registry struct {
	tools     []*tool
	byName    map[string]*tool
	resources []*resource
	templates []*template
	closers   []func() error
}

// Close releases what the registry's capabilities hold open, such as the
// fact store's file-system watch. Call it once the server is done.
func (r *Registry) Close() error {
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*tool{}}
}

// validToolName reports whether name is 1-128 characters of
// [A-Za-z0-9_.-]. A loop, not a regular expression: every server checks
// each of its tools' names before it answers anything, and the counted
// repetition alone compiles into hundreds of instructions.
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// AddTool registers a tool whose handler takes its arguments decoded into
// In (use struct{} for a tool without arguments). It fails when the tool
// breaks a registration rule (see [Tool]) or its schemas do not compile.
func AddTool[In any](r *Registry, t Tool, h ToolHandler[In]) error {
	return r.add(t, nil, decoding(h))
}

// addDeferred registers a tool as AddTool does, except that its schemas
// (t's InputSchema and OutputSchema, left nil) are written by schemas and
// checked on first use (see [tool.define]) instead of at registration.
// ProjectRegistry registers Foundry's own tools so, whose schemas
// TestFoundrySchemasCompile checks: registering them costs a server next
// to nothing before its first answer. A broken schema is reported by
// Compile, tools/list, tools/call and Catalog instead of here.
func addDeferred[In any](r *Registry, t Tool, schemas func() (in, out json.RawMessage), h ToolHandler[In]) error {
	return r.add(t, schemas, decoding(h))
}

// decoding folds the decoding of arguments into In into h.
func decoding[In any](h ToolHandler[In]) rawHandler {
	return func(ctx context.Context, call *Call, args json.RawMessage) (Output, error) {
		var in In
		if err := json.Unmarshal(integral(args), &in); err != nil {
			return Output{}, fmt.Errorf("decode arguments: %w", err)
		}
		return h(ctx, call, in)
	}
}

// integral rewrites each top-level argument that JSON Schema counts as an
// integer ("limit": 1.0, 1e1) in integer form, so that a value the input
// schema accepted for an "integer" also decodes into a Go int. Nested
// values (an artifact's data) are left byte for byte, and args that do
// not parse are returned unchanged.
func integral(args json.RawMessage) json.RawMessage {
	var top map[string]json.RawMessage
	if json.Unmarshal(args, &top) != nil {
		return args
	}
	changed := false
	for k, raw := range top {
		s := string(bytes.TrimSpace(raw))
		if s == "" || !strings.ContainsAny(s, ".eE") || strings.ContainsAny(s, `"{[tfn`) {
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			continue
		}
		top[k], changed = json.RawMessage(strconv.FormatInt(int64(f), 10)), true
	}
	if !changed {
		return args
	}
	out, err := json.Marshal(top)
	if err != nil {
		return args
	}
	return out
}

func (r *Registry) add(t Tool, rawSchemas func() (in, out json.RawMessage), h rawHandler) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("add tool %q: %w: %s", t.Name, ErrInvalidTool, fmt.Sprintf(format, args...))
	}
	switch {
	case !validToolName(t.Name):
		return bad("name must be 1-128 characters of [A-Za-z0-9_.-]")
	case r.byName[t.Name] != nil:
		return bad("name already registered")
	case strings.TrimSpace(t.Description) == "":
		return bad("description is required")
	case t.Scope == "":
		return bad("scope is required")
	case rawSchemas != nil && (t.InputSchema != nil || t.OutputSchema != nil):
		return bad("schemas are given twice")
	}
	if err := t.check(t.Name, true); err != nil {
		return bad("%v", err)
	}
	tt := &tool{Tool: t, handle: h, rawSchemas: rawSchemas}
	if rawSchemas == nil {
		var err error
		if tt.inJSON, tt.outJSON, err = objectSchemas(t.InputSchema, t.OutputSchema); err != nil {
			return bad("%v", err)
		}
	}
	// Encoded by the first tools/list, not before a server's first answer.
	// Only define can fail: the schemas are then valid JSON (objectSchema
	// compacted them) and the rest are strings and booleans.
	tt.listing = sync.OnceValues(func() (json.RawMessage, error) {
		in, out, err := tt.define()
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			Name         string          `json:"name"`
			Title        string          `json:"title,omitempty"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
			Annotations  annotations     `json:"annotations"`
		}{t.Name, t.Title, t.Description, in, out, annotations{
			ReadOnly: !t.Mutating, Destructive: t.Mutating && t.Destructive, Idempotent: t.Idempotent,
		}})
	})
	r.tools = append(r.tools, tt)
	r.byName[t.Name] = tt
	return nil
}

// objectSchemas checks and compacts a tool's input schema and, when it
// has one, its output schema (see objectSchema).
func objectSchemas(inRaw, outRaw json.RawMessage) (in, out json.RawMessage, err error) {
	if in, err = objectSchema(inRaw); err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	if outRaw != nil {
		if out, err = objectSchema(outRaw); err != nil {
			return nil, nil, fmt.Errorf("output schema: %w", err)
		}
	}
	return in, out, nil
}

// annotations are the behaviour hints of a tools/list entry. Foundry's
// tools touch only the project, hence openWorldHint false.
type annotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	Idempotent  bool `json:"idempotentHint"`
	OpenWorld   bool `json:"openWorldHint"`
}

// objectSchema checks that a schema's top level is {"type":"object"} and
// returns it compacted. It is compiled on first use ([tool.schemas]).
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	// Compacted first, which checks the syntax: the decoder then reads
	// the schema without the source's indentation.
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var top struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if top.Type != "object" {
		return nil, fmt.Errorf(`top level must have "type": "object"`)
	}
	return buf.Bytes(), nil
}

// AddResource registers a fixed resource.
func (r *Registry) AddResource(res Resource, read ResourceReader) error {
	if res.URI == "" || res.Name == "" || res.Scope == "" || read == nil {
		return fmt.Errorf("add resource %q: %w: uri, name, scope and reader are required", res.URI, ErrInvalidResource)
	}
	if err := res.check(res.URI, false); err != nil {
		return fmt.Errorf("add resource %q: %w: %v", res.URI, ErrInvalidResource, err)
	}
	for _, have := range r.resources {
		if have.URI == res.URI {
			return fmt.Errorf("add resource %q: %w: uri already registered", res.URI, ErrInvalidResource)
		}
	}
	r.resources = append(r.resources, &resource{Resource: res, read: read})
	return nil
}

// AddResourceTemplate registers a resource template. list, when not nil,
// supplies the template's concrete resources to resources/list; read
// serves every URI the template matches.
func (r *Registry) AddResourceTemplate(t ResourceTemplate, list ResourceLister, read ResourceReader) error {
	bad := func(why string) error {
		return fmt.Errorf("add resource template %q: %w: %s", t.URITemplate, ErrInvalidResource, why)
	}
	if t.URITemplate == "" || t.Name == "" || t.Scope == "" || read == nil {
		return bad("uri template, name, scope and reader are required")
	}
	if err := t.check(t.URITemplate, false); err != nil {
		return bad(err.Error())
	}
	pattern, vars, ok := templatePattern(t.URITemplate)
	if !ok {
		return bad("only simple {var} expressions are supported")
	}
	if len(vars) == 0 {
		return bad("needs at least one {var}; register a fixed URI with AddResource")
	}
	if !utf8.ValidString(pattern) {
		// The one way a pattern of quoted literals and groups fails to
		// compile; said at registration, as regexp says it.
		if _, err := regexp.Compile(pattern); err != nil {
			return bad(err.Error())
		}
	}
	r.templates = append(r.templates, &template{ResourceTemplate: t, pattern: pattern, vars: vars, list: list, read: read})
	return nil
}

// templatePattern returns the regular expression that matches the URIs of
// a URI template, each {var} (a name of [A-Za-z0-9_]) one non-empty path
// segment, and the names of its variables. ok is false when a brace is not
// part of a simple {var} expression. A loop, not a regular expression:
// every server registers its templates before it answers anything.
func templatePattern(uriTemplate string) (pattern string, vars []string, ok bool) {
	var b strings.Builder
	b.WriteString("^")
	rest := uriTemplate
	for {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			break
		}
		n := 0
		for i+1+n < len(rest) && isVarByte(rest[i+1+n]) {
			n++
		}
		if rest[i] != '{' || n == 0 || i+1+n == len(rest) || rest[i+1+n] != '}' {
			return "", nil, false
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		b.WriteString(`([^/?#]+)`)
		vars = append(vars, rest[i+1:i+1+n])
		rest = rest[i+2+n:]
	}
	b.WriteString(regexp.QuoteMeta(rest))
	b.WriteString("$")
	return b.String(), vars, true
}

// isVarByte reports whether c may appear in a template variable's name.
func isVarByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// scopes returns every scope the registry uses.
func (r *Registry) scopes() map[string]bool {
	s := map[string]bool{}
	for _, t := range r.tools {
		s[t.Scope] = true
	}
	for _, res := range r.resources {
		s[res.Scope] = true
	}
	for _, t := range r.templates {
		s[t.Scope] = true
	}
	return s
}
