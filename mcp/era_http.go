// This file defines the request-metadata rules of the 2026-07-28
// Streamable HTTP transport: the MCP-Protocol-Version, Mcp-Method and
// Mcp-Name headers checked against the body, and the HTTP status of a
// modern request's rejection.

package mcp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/foundryhq/foundry/jsonrpc"
)

// HTTP headers of revision 2026-07-28 (names are case-insensitive; Get
// canonicalises them).
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
)

// base64 sentinel of an Mcp-Name value that is not a plain header value.
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// nameSource is the params field that Mcp-Name mirrors, per method.
var nameSource = map[string]string{
	"tools/call":     "name",
	"resources/read": "uri",
	"prompts/get":    "name",
}

// httpEra classifies one POSTed request by era and applies the
// transport's validation before dispatch. It returns modern = false for a
// request of the handshake era, which the legacy rules serve. A rejection
// comes with its HTTP status: 400 for a header mismatch (-32020), an
// unsupported version (-32022) or a malformed _meta (-32602), 404 for a
// method that 2026-07-28 does not have (-32601).
//
// Mcp-Method and Mcp-Name are checked against the body whenever they are
// present, in either era, since an intermediary may route on them; a
// modern request must carry them.
func (s *session) httpEra(h http.Header, req *jsonrpc.Request) (modern bool, status int, err *jsonrpc.Error) {
	headerVersion := strings.TrimSpace(h.Get(headerProtocol))
	bodyVersion, inBody := metaVersion(req.Params)
	switch {
	case inBody && headerVersion != bodyVersion:
		return false, http.StatusBadRequest, mismatch("MCP-Protocol-Version header %q does not match _meta[%q] %q", headerVersion, MetaProtocolVersion, bodyVersion)
	case inBody:
		ri, rerr := s.readMeta(req)
		if rerr != nil {
			return false, http.StatusBadRequest, rerr
		}
		modern = ri.modern
	case headerVersion == ModernProtocolVersion:
		// A method of the handshake era alone (ping) sent with the modern
		// header but without _meta, as the Go SDK's Ping and keep-alive
		// do, is served by the legacy rules; anything else is a modern
		// request missing its required field.
		if m, ok := s.table[req.Method]; !ok || m.modern {
			return false, http.StatusBadRequest, invalidParams("Invalid params: _meta[%q] is required (MCP-Protocol-Version is %s)", MetaProtocolVersion, ModernProtocolVersion)
		}
	}
	if err := checkMirrored(h, req, modern); err != nil {
		return modern, http.StatusBadRequest, err
	}
	if m, ok := s.table[req.Method]; modern && (!ok || !m.modern) {
		return true, http.StatusNotFound, notModern(req.Method, ok)
	}
	return modern, 0, nil
}

// checkMirrored compares Mcp-Method and Mcp-Name with the body values they
// mirror; required says whether a missing one is a mismatch.
func checkMirrored(h http.Header, req *jsonrpc.Request, required bool) *jsonrpc.Error {
	got, present, err := headerValue(h, headerMethod)
	switch {
	case err != nil:
		return err
	case present && got != req.Method:
		return mismatch("Mcp-Method header %q does not match body method %q", got, req.Method)
	case !present && required:
		return mismatch("Mcp-Method header is missing; the body's method is %q", req.Method)
	}
	field, ok := nameSource[req.Method]
	if !ok {
		return nil
	}
	var body map[string]json.RawMessage
	var want string
	if json.Unmarshal(req.Params, &body) != nil || json.Unmarshal(body[field], &want) != nil {
		return nil // no such field: the handler answers the malformed body
	}
	got, present, err = headerValue(h, headerName)
	switch {
	case err != nil:
		return err
	case !present && required:
		return mismatch("Mcp-Name header is missing; the body's params.%s is %q", field, want)
	case !present:
		return nil
	}
	if strings.HasPrefix(got, sentinelPrefix) && strings.HasSuffix(got, sentinelSuffix) && len(got) >= len(sentinelPrefix)+len(sentinelSuffix) {
		b, err := base64.StdEncoding.Strict().DecodeString(got[len(sentinelPrefix) : len(got)-len(sentinelSuffix)])
		if err != nil {
			return mismatch("Mcp-Name header %q is not valid base64", got)
		}
		got = string(b)
	}
	if got != want {
		return mismatch("Mcp-Name header value %q does not match body value %q", got, want)
	}
	return nil
}

// metaVersion returns params._meta[io.modelcontextprotocol/protocolVersion]
// as a string (its JSON text when it is not a string), and whether it is
// there.
func metaVersion(params json.RawMessage) (string, bool) {
	meta, mentioned, err := paramsMeta(params)
	if !mentioned || err != nil {
		return "", false
	}
	raw, ok := meta[MetaProtocolVersion]
	if !ok {
		return "", false
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return string(raw), true
	}
	return v, true
}

// headerValue returns a header's value without surrounding whitespace,
// whether it is present, and a mismatch error when it is repeated or holds
// characters a header value may not carry (visible ASCII, space and tab
// only).
func headerValue(h http.Header, name string) (string, bool, *jsonrpc.Error) {
	vs := h.Values(name)
	switch len(vs) {
	case 0:
		return "", false, nil
	case 1:
	default:
		return "", true, mismatch("%s header is repeated", name)
	}
	v := strings.TrimSpace(vs[0])
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", true, mismatch("%s header holds a character a header value cannot carry", name)
		}
	}
	return v, true, nil
}

// mismatch returns a -32020 HeaderMismatch error.
func mismatch(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(CodeHeaderMismatch, "Header mismatch: "+format, args...)
}
