// This file defines resources/list, resources/templates/list and
// resources/read.

package mcp

import (
	"context"
	"errors"
	"net/url"

	"github.com/foundryhq/foundry/jsonrpc"
)

type resourceJSON struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

type templateJSON struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

func (s *session) listResources(ctx context.Context, _ *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p listParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	// A template's resources are described for the page alone (see
	// Resource.describe), then redacted; the registered ones are the
	// server's own.
	type listed struct {
		Resource
		template *template // nil for a registered resource
	}
	var all []listed
	for _, r := range s.reg.resources {
		if ok, _ := s.policy.resource(r); ok {
			all = append(all, listed{r.Resource, nil})
		}
	}
	for _, t := range s.reg.templates {
		if ok, _ := s.policy.template(t); t.list == nil || !ok {
			continue
		}
		rs, err := t.list(ctx)
		if err != nil {
			return nil, listFailed(t, err)
		}
		for _, r := range rs {
			if r.MIMEType == "" {
				r.MIMEType = t.MIMEType
			}
			all = append(all, listed{r, t})
		}
	}
	page, next, err := paginate(all, p.Cursor, "resources", s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	items := make([]resourceJSON, len(page))
	for i, r := range page {
		if r.describe != nil {
			if err := r.describe(ctx, &r.Resource); err != nil {
				return nil, listFailed(r.template, err)
			}
		}
		if r.template != nil {
			// Names and descriptions come from project files (a
			// runbook's title and trigger): redacted like every other
			// answer.
			r.Name, r.Title, r.Description = redactText(r.Name), redactText(r.Title), redactText(r.Description)
		}
		items[i] = resourceJSON{r.URI, r.Name, r.Title, r.Description, r.MIMEType}
	}
	return struct {
		Resources  []resourceJSON `json:"resources"`
		NextCursor string         `json:"nextCursor,omitempty"`
	}{items, next}, nil
}

// listFailed is the error of resources/list when listing the resources of
// t failed.
func listFailed(t *template, err error) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: list %s: %s", t.URITemplate, auditText(err.Error(), maxAuditError))
}

func (s *session) listTemplates(_ context.Context, _ *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p listParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	var all []templateJSON
	for _, t := range s.reg.templates {
		if ok, _ := s.policy.template(t); ok {
			all = append(all, templateJSON{t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType})
		}
	}
	items, next, err := paginate(all, p.Cursor, "templates", s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return struct {
		ResourceTemplates []templateJSON `json:"resourceTemplates"`
		NextCursor        string         `json:"nextCursor,omitempty"`
	}{items, next}, nil
}

type resourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
}

func unknownResource(uri string) *jsonrpc.Error {
	uri = auditText(uri, maxEchoBytes)
	e := invalidParams("Unknown resource: %s", uri)
	e.Data = map[string]string{"uri": uri}
	return e
}

func (s *session) readResource(ctx context.Context, _ *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
	var p struct {
		URI any `json:"uri"`
	}
	const shape = "Invalid params: resources/read takes an object with a string uri"
	if req.Params == nil {
		return nil, invalidParams(shape)
	}
	if err := decodeParams(req, &p); err != nil {
		return nil, invalidParams(shape)
	}
	uri, ok := p.URI.(string)
	if !ok || uri == "" {
		return nil, invalidParams(shape)
	}
	res := s.resolve(uri)
	if res.read == nil {
		s.audit.start(req, "resources/read", uri, "", "", false).finish("unknown", nil)
		return nil, unknownResource(uri)
	}
	rec := s.audit.start(req, "resources/read", uri, res.scope, res.gov.AuditCategory, false)
	rctx, cancel := context.WithTimeout(withResultLimit(ctx, res.gov.MaxResultBytes), res.gov.Timeout)
	text, err := res.read(rctx, uri, res.vars)
	timedOut := errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	var tooLarge *ResultTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		rec.finish("too_large", nil)
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: resource %s is %d bytes, over the %d-byte limit", auditText(uri, maxEchoBytes), tooLarge.Bytes, res.gov.MaxResultBytes)
	case errors.Is(err, ErrUnknownResource):
		rec.finish("unknown", nil)
		return nil, unknownResource(uri)
	case err != nil && timedOut:
		rec.finish("timeout", nil)
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: read %s: timed out after %s", auditText(uri, maxEchoBytes), res.gov.Timeout)
	case err != nil:
		rec.finish("error", nil)
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: read %s: %s", auditText(uri, maxEchoBytes), auditText(err.Error(), maxAuditError))
	}
	text = redactText(text)
	if len(text) > res.gov.MaxResultBytes {
		rec.finish("too_large", nil)
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: resource %s is %d bytes, over the %d-byte limit", auditText(uri, maxEchoBytes), len(text), res.gov.MaxResultBytes)
	}
	rec.finish("ok", nil)
	return struct {
		Contents []resourceContents `json:"contents"`
	}{[]resourceContents{{URI: uri, MIMEType: res.mime, Text: text}}}, nil
}

// resolved is the enabled resource or template serving a URI.
type resolved struct {
	scope, mime string
	gov         Governance
	read        ResourceReader // nil when nothing serves the URI
	vars        map[string]string
}

// resolve finds the enabled resource or template serving uri.
func (s *session) resolve(uri string) resolved {
	for _, r := range s.reg.resources {
		if ok, _ := s.policy.resource(r); r.URI == uri && ok {
			return resolved{r.Scope, r.MIMEType, r.Governance, r.read, nil}
		}
	}
	for _, t := range s.reg.templates {
		if ok, _ := s.policy.template(t); !ok {
			continue
		}
		re, err := t.match()
		if err != nil {
			s.log.Error("resource template does not compile", "template", t.URITemplate, "err", err)
			continue
		}
		m := re.FindStringSubmatch(uri)
		if m == nil {
			continue
		}
		vars := templateVars(t.vars, m[1:])
		if vars == nil {
			continue
		}
		return resolved{t.Scope, t.MIMEType, t.Governance, t.read, vars}
	}
	return resolved{}
}

// templateVars returns the percent-decoded values of a template's
// variables: a client expands {var} as RFC 6570 says, percent-encoding
// every character outside the unreserved set, so "Q3%20audit" stands for
// "Q3 audit". It returns nil when a value is not valid percent-encoding or
// decodes to nothing.
func templateVars(names, values []string) map[string]string {
	vars := make(map[string]string, len(names))
	for i, name := range names {
		v, err := url.PathUnescape(values[i])
		if err != nil || v == "" {
			return nil
		}
		vars[name] = v
	}
	return vars
}
