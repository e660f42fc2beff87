package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testpause"
	"github.com/foundryhq/foundry/mcp"
)

// This file defines the fake tools and resources the transcripts drive.
// They exercise every path of the server without any domain package.

// The transcripts arm pause points through the environment.
func init() { testpause.Enable() }

const (
	scopeReadTest  = "read:test"
	scopeWriteTest = "write:test"
)

type echoArgs struct {
	Text   string `json:"text"`
	Repeat int    `json:"repeat"`
}

type slowArgs struct {
	Point string `json:"point"`
}

type noteArgs struct {
	Title string `json:"title"`
}

// assembled at run time so the source holds no credential-looking literal
var fakePassword = "hunter" + "2-correct-horse"

func fakeRegistry() (*mcp.Registry, error) {
	r := mcp.NewRegistry()
	noArgs := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	add := []func() error{
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name:        "echo",
				Description: "Echoes text. Call it when you need to hear yourself.",
				InputSchema: json.RawMessage(`{
					"type": "object",
					"properties": {
						"text": {"type": "string", "maxLength": 40},
						"repeat": {"type": "integer", "minimum": 1, "maximum": 3}
					},
					"required": ["text"],
					"additionalProperties": false
				}`),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"echo":{"type":"string"},"length":{"type":"integer"}},"required":["echo","length"],"additionalProperties":false}`),
				Scope:        scopeReadTest,
				Governance:   mcp.Governance{AuditCategory: "test.read"},
				Idempotent:   true,
			}, func(_ context.Context, _ *mcp.Call, in echoArgs) (mcp.Output, error) {
				n := max(in.Repeat, 1)
				text := strings.Repeat(in.Text, n)
				return mcp.Output{Text: text, Structured: map[string]any{"echo": text, "length": len(text)}}, nil
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name:         "note_write",
				Description:  "Stores a note. Call it when something is worth remembering.",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"title":{"type":"string","minLength":1}},"required":["title"],"additionalProperties":false}`),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"created":{"type":"string"}},"required":["created"]}`),
				Scope:        scopeWriteTest,
				Governance:   mcp.Governance{AuditCategory: "test.write"},
				Mutating:     true,
			}, func(_ context.Context, _ *mcp.Call, in noteArgs) (mcp.Output, error) {
				return mcp.Output{Text: "created: " + in.Title, Structured: map[string]string{"created": in.Title}}, nil
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name: "fail", Description: "Always fails.", InputSchema: noArgs, Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read"},
			}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
				return mcp.Output{}, fmt.Errorf("open .foundry/memory: %w", errors.New("disk on fire"))
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name: "verbatim", Description: "Fails in the seed's own words.", InputSchema: noArgs, Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read"},
			}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
				return mcp.Output{}, fmt.Errorf("wrapped: %w", mcp.Verbatim("Provide either `data` or `path`."))
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name:        "slow",
				Description: "Waits at a test pause point (test.slow unless point names another).",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"point":{"type":"string"}},"additionalProperties":false}`),
				Scope:       scopeReadTest,
				Governance:  mcp.Governance{AuditCategory: "test.read"},
			}, func(ctx context.Context, _ *mcp.Call, in slowArgs) (mcp.Output, error) {
				point := in.Point
				if point == "" {
					point = "test.slow"
				}
				pause.Point(ctx, point)
				if err := ctx.Err(); err != nil {
					return mcp.Output{}, err
				}
				return mcp.Output{Text: "done " + point}, nil
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name: "count", Description: "Counts to three, reporting progress.", InputSchema: noArgs, Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read"},
			}, func(ctx context.Context, call *mcp.Call, _ struct{}) (mcp.Output, error) {
				call.Log(ctx, mcp.LogDebug, "starting")
				for i := 1; i <= 3; i++ {
					call.Progress(ctx, float64(i), 3, fmt.Sprintf("step %d", i))
					call.Progress(ctx, float64(i), 3, "repeated value, dropped")
				}
				call.Log(ctx, mcp.LogWarning, map[string]any{"msg": "counted", "password": fakePassword})
				return mcp.Output{Text: "counted to 3"}, nil
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name: "leak", Description: "Returns secrets that must not reach the client.", InputSchema: noArgs, Scope: scopeReadTest,
				Governance:   mcp.Governance{AuditCategory: "test.read"},
				OutputSchema: json.RawMessage(`{"type":"object"}`),
			}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
				dsn := "postgres://app:" + fakePassword + "@db.internal:5432/orders"
				return mcp.Output{
					Text: "db: " + dsn + "\npassword=" + fakePassword + "\ntokens: 1980",
					Structured: map[string]any{
						"apiKey": "abc123", "dsn": dsn, "tokens": 1980, "note": "nothing to see",
						"nested": []any{map[string]any{"db_password": fakePassword}},
					},
				}, nil
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name: "big", Description: "Returns more than its limit.", InputSchema: noArgs, Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read", MaxResultBytes: 100},
			}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
				return mcp.Output{Text: strings.Repeat("x", 100)}, nil
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name: "badout", Description: "Breaks its own output schema.", InputSchema: noArgs, Scope: scopeReadTest,
				Governance:   mcp.Governance{AuditCategory: "test.read"},
				OutputSchema: json.RawMessage(`{"type":"object","required":["id"]}`),
			}, func(context.Context, *mcp.Call, struct{}) (mcp.Output, error) {
				return mcp.Output{Text: "oops", Structured: map[string]any{"di": 1}}, nil
			})
		},
		func() error {
			return mcp.AddTool(r, mcp.Tool{
				Name: "stuck", Description: "Runs past its timeout.", InputSchema: noArgs, Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read", Timeout: time.Millisecond},
			}, func(ctx context.Context, _ *mcp.Call, _ struct{}) (mcp.Output, error) {
				<-ctx.Done()
				return mcp.Output{}, ctx.Err()
			})
		},
		func() error {
			return r.AddResource(mcp.Resource{
				URI: "test://readme", Name: "Readme", Description: "The readme", MIMEType: "text/markdown", Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read"},
			}, func(context.Context, string, map[string]string) (string, error) {
				return "# Readme\n\nHello.\n", nil
			})
		},
		func() error {
			items := map[string]string{"a": "# Item a\n", "b": "# Item b\nclient_secret: \"s3cr3t-value\"\n"}
			return r.AddResourceTemplate(mcp.ResourceTemplate{
				URITemplate: "test://items/{id}", Name: "Item", Description: "One item by id", MIMEType: "text/markdown", Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read"},
			}, func(context.Context) ([]mcp.Resource, error) {
				return []mcp.Resource{
					{URI: "test://items/a", Name: "Item: a", Description: "trigger: a"},
					{URI: "test://items/b", Name: "Item: b", Description: "trigger: b, or when password=" + fakePassword + " leaks"},
				}, nil
			}, func(_ context.Context, uri string, vars map[string]string) (string, error) {
				text, ok := items[vars["id"]]
				if !ok {
					return "", fmt.Errorf("read %s: %w", uri, mcp.ErrUnknownResource)
				}
				return text, nil
			})
		},
		func() error {
			return r.AddResourceTemplate(mcp.ResourceTemplate{
				URITemplate: "test://boards/{wave}/{agent}", Name: "Board", MIMEType: "application/json", Scope: scopeReadTest,
				Governance: mcp.Governance{AuditCategory: "test.read"},
			}, nil, func(_ context.Context, _ string, vars map[string]string) (string, error) {
				if vars["wave"] == "broken" {
					return "", errors.New("parse board: unexpected end of JSON input")
				}
				b, err := json.Marshal(vars)
				return string(b), err
			})
		},
	}
	for _, f := range add {
		if err := f(); err != nil {
			return nil, err
		}
	}
	return r, nil
}
