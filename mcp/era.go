// This file defines the per-request choice between the two eras of MCP and
// the result shape of the modern one: the method table every request goes
// through, the validation of the per-request _meta fields, server/discover
// and the resultType, serverInfo and cache hints of modern results.

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/foundryhq/foundry/jsonrpc"
)

// ModernProtocolVersion is the stateless revision: a request declares it in
// its _meta and is served on its own, without initialize.
const ModernProtocolVersion = "2026-07-28"

// LegacyProtocolVersions are the revisions negotiated by initialize, newest
// first. initialize asking for any other version is answered with the first.
var LegacyProtocolVersions = []string{"2025-11-25", "2025-06-18"}

// ProtocolVersions lists every revision served, newest first: the
// supportedVersions of server/discover and the supported list of
// [CodeUnsupportedProtocolVersion].
var ProtocolVersions = append([]string{ModernProtocolVersion}, LegacyProtocolVersions...)

// Error codes that MCP 2026-07-28 defines in the range it reserves
// (-32020 to -32099).
const (
	// CodeHeaderMismatch rejects an HTTP request whose Mcp-Method, Mcp-Name
	// or MCP-Protocol-Version header is missing or disagrees with the body.
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability rejects a request that needs a client
	// capability its _meta does not declare. Foundry never needs one.
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion rejects a request whose _meta names a
	// protocol version this server does not serve.
	CodeUnsupportedProtocolVersion = -32022
)

// The reserved _meta keys of MCP 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Cache hints of modern list and read results (MCP 2026-07-28
// server/utilities/caching). They are promises about Foundry, so each is
// chosen for what the method returns:
//
//   - server/discover, tools/list and resources/templates/list depend only
//     on the binary and the options the server was started with (read-only
//     mode, enabled scopes), which cannot change while it runs: fresh for
//     five minutes.
//   - resources/list names project content (runbooks, facts, blackboard
//     waves) and resources/read returns it; both change with every write,
//     including writes made through this very server, so they are never
//     fresh (ttlMs 0).
//
// Every hint is private: reads return the project's own data, and even the
// lists and the instructions follow the enabled scopes, which an HTTP
// bearer token may narrow, so no answer is the same for every caller.
// tools/call results are not cacheable and carry no hints.
var (
	staticHint  = &cacheHint{TTLMs: 300_000, Scope: "private"}
	contentHint = &cacheHint{TTLMs: 0, Scope: "private"}
)

// cacheHint is the ttlMs and cacheScope of a cacheable modern result.
type cacheHint struct {
	TTLMs int64
	Scope string
}

// method is one entry of the method table: its handler, the eras that
// serve it and, for modern results, its cache hint.
type method struct {
	handle jsonrpc.Handler
	legacy bool
	modern bool
	cache  *cacheHint
}

// methods is the one method table of a session. Both eras reach the same
// handlers, with the same registry, scopes, read-only mode, limits and
// audit; only the envelope differs. initialize, ping and logging/setLevel
// do not exist in 2026-07-28, server/discover exists only there.
func (s *session) methods() map[string]method {
	return map[string]method{
		"initialize":               {handle: s.initialize, legacy: true},
		"ping":                     {handle: s.ping, legacy: true},
		"logging/setLevel":         {handle: s.setLevel, legacy: true},
		"server/discover":          {handle: s.discover, modern: true, cache: staticHint},
		"tools/list":               {handle: s.listTools, legacy: true, modern: true, cache: staticHint},
		"tools/call":               {handle: s.callTool, legacy: true, modern: true},
		"resources/list":           {handle: s.listResources, legacy: true, modern: true, cache: contentHint},
		"resources/templates/list": {handle: s.listTemplates, legacy: true, modern: true, cache: staticHint},
		"resources/read":           {handle: s.readResource, legacy: true, modern: true, cache: contentHint},
	}
}

// requestInfo is what the dispatcher learnt from a request's _meta.
type requestInfo struct {
	// modern is true for a request declaring [ModernProtocolVersion].
	modern bool
	// logLevel is the index into logLevels of the modern request's
	// io.modelcontextprotocol/logLevel, -1 when it asked for no messages.
	logLevel int
}

type requestInfoKey struct{}

// requestInfoFrom returns the requestInfo the dispatcher stored in ctx; a
// context without one is a legacy request.
func requestInfoFrom(ctx context.Context) requestInfo {
	if ri, ok := ctx.Value(requestInfoKey{}).(requestInfo); ok {
		return ri
	}
	return requestInfo{logLevel: -1}
}

// dispatch adapts one method of the table. A request method sent as a
// notification (without an id) is dropped, never executed: run, it would
// escape the rate limit and the concurrency cap, block the read loop (where
// package jsonrpc runs notifications) and answer nobody. Otherwise the
// request's era is read from its _meta: a legacy request is served as
// before, a modern one is validated, served by the same handler and its
// result given the modern envelope.
func (s *session) dispatch(name string, m method) jsonrpc.Handler {
	return func(ctx context.Context, conn *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
		if req.Notification {
			s.log.Debug("ignore request method sent as a notification", "method", req.Method)
			return nil, nil
		}
		ri, merr := s.readMeta(req)
		if merr != nil {
			return nil, merr
		}
		if !ri.modern {
			if !m.legacy {
				return nil, invalidParams("Invalid params: %s needs _meta[%q] = %q", name, MetaProtocolVersion, ModernProtocolVersion)
			}
			return m.handle(ctx, conn, req)
		}
		if !m.modern {
			return nil, notModern(name, true)
		}
		res, err := m.handle(context.WithValue(ctx, requestInfoKey{}, ri), conn, req)
		if err != nil {
			return nil, err
		}
		return s.modernResult(res, m.cache)
	}
}

// notModern is the -32601 error of a method that revision 2026-07-28 does
// not have; known says whether the legacy revisions have it.
func notModern(method string, known bool) *jsonrpc.Error {
	if known {
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s (not part of protocol revision %s)", method, ModernProtocolVersion)
	}
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

// paramsMeta decodes the _meta object of a request's params. mentioned is
// false, and nothing is decoded, when the params never name the protocol
// version key: most legacy requests, which so cost no decoding.
func paramsMeta(params json.RawMessage) (meta map[string]json.RawMessage, mentioned bool, err error) {
	if len(params) == 0 || params[0] != '{' || !bytes.Contains(params, []byte(MetaProtocolVersion)) {
		return nil, false, nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	err = json.Unmarshal(params, &p)
	return p.Meta, true, err
}

// readMeta decides a request's era from params._meta and validates the
// per-request fields of a modern one. A request without
// io.modelcontextprotocol/protocolVersion, or naming a legacy revision
// there, is legacy; one naming an unknown version is rejected with the
// supported list.
func (s *session) readMeta(req *jsonrpc.Request) (requestInfo, *jsonrpc.Error) {
	ri := requestInfo{logLevel: -1}
	meta, mentioned, err := paramsMeta(req.Params)
	switch {
	case !mentioned:
		return ri, nil
	case err != nil:
		return ri, invalidParams("Invalid params: _meta must be an object")
	}
	raw, ok := meta[MetaProtocolVersion]
	if !ok {
		return ri, nil // the key was elsewhere, say in tool arguments
	}
	var version string
	if err := json.Unmarshal(raw, &version); err != nil {
		return ri, invalidParams("Invalid params: _meta[%q] must be a string", MetaProtocolVersion)
	}
	switch {
	case slices.Contains(LegacyProtocolVersions, version):
		return ri, nil
	case version != ModernProtocolVersion:
		version = auditText(version, maxEchoBytes)
		e := jsonrpc.Errorf(CodeUnsupportedProtocolVersion, "Unsupported protocol version: %q (supported: %s)", version, strings.Join(ProtocolVersions, ", "))
		e.Data = struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}{ProtocolVersions, version}
		return ri, e
	}
	ri.modern = true
	if caps := meta[MetaClientCapabilities]; len(caps) == 0 || caps[0] != '{' {
		return ri, invalidParams("Invalid params: _meta[%q] must be an object", MetaClientCapabilities)
	}
	if raw, ok := meta[MetaLogLevel]; ok {
		var level any
		_ = json.Unmarshal(raw, &level) // raw is valid JSON: it was decoded above
		i, err := parseLevel(level)
		if err != nil {
			return ri, err
		}
		ri.logLevel = i
	}
	if info, ok := meta[MetaClientInfo]; ok {
		s.log.Debug("modern request", "method", req.Method, "client", string(info))
	}
	return ri, nil
}

type discoverResult struct {
	SupportedVersions []string     `json:"supportedVersions"`
	Capabilities      capabilities `json:"capabilities"`
	Instructions      string       `json:"instructions"`
}

// discover answers server/discover. The capabilities and instructions are
// those initialize returns: both eras are served the same features. No listChanged is
// declared, since Foundry does not implement subscriptions/listen.
func (s *session) discover(context.Context, *jsonrpc.Conn, *jsonrpc.Request) (any, error) {
	return discoverResult{SupportedVersions: ProtocolVersions, Instructions: s.instructions()}, nil
}

// modernResult gives a handler's result the fields every 2026-07-28 result
// carries: resultType, the server's identity in _meta and, for a
// cacheable method, its cache hint. The handlers' results never carry
// these fields themselves, so they are written in front of the others.
func (s *session) modernResult(res any, hint *cacheHint) (json.RawMessage, error) {
	body := []byte("{}")
	if res != nil {
		b, err := json.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("encode result: %w", err)
		}
		body = b
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("encode result: %s is not an object", body)
	}
	prefix := s.modernPrefix()
	out := make([]byte, 0, len(prefix)+len(body)+48)
	out = append(out, prefix...)
	if hint != nil {
		out = append(out, `,"ttlMs":`...)
		out = strconv.AppendInt(out, hint.TTLMs, 10)
		out = append(out, `,"cacheScope":`...)
		out = strconv.AppendQuote(out, hint.Scope)
	}
	if rest := bytes.TrimSpace(body[1:]); rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

// newModernPrefix returns the opening of every modern result: `{` followed
// by resultType and _meta, without a trailing comma.
func newModernPrefix(version string) []byte {
	b, err := json.Marshal(struct {
		ResultType string `json:"resultType"`
		Meta       any    `json:"_meta"`
	}{"complete", map[string]implementation{MetaServerInfo: {Name: ServerName, Version: version}}})
	if err != nil {
		panic(err) // two strings cannot fail to encode
	}
	return b[:len(b)-1]
}
