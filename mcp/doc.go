// Package mcp is Foundry's Model Context Protocol server: the lifecycle
// (initialize, ping, logging), tools and resources, served over stdio by
// [Serve] through package jsonrpc.
//
// The same method table is served over Streamable HTTP by [HTTPHandler]
// (sessions, GET streams, bearer [Token]s, Host and Origin checks, limits
// per client and in total), and [RunDaemon] runs it as the one daemon of a
// project, every session sharing one registry and so one warm state.
// Each transport only moves messages: a request reaches the same handler
// whichever way it came.
//
// The server is dual-era. Each request is routed by its own _meta: one
// declaring [ModernProtocolVersion] is served statelessly by revision
// 2026-07-28 (server/discover; resultType, serverInfo and cache hints on
// results; log messages per request), any other by the initialize-based
// revisions in [LegacyProtocolVersions]. Both eras go through one method
// table to the same handlers, so capabilities and governance are the same.
//
// Every capability is registered once in a [Registry] with the governance
// data of seed 003: a stable name, a description written for a model, input
// and output schemas, annotations, a read-only or mutating classification,
// a scope, a timeout and a result-size limit. A tool is a typed handler:
//
//	err := mcp.AddTool(reg, mcp.Tool{
//		Name:        "memory_search",
//		Description: "Searches project memory ...",
//		InputSchema: searchInput, OutputSchema: searchOutput,
//		Scope:       mcp.ScopeReadMemory,
//		Idempotent:  true,
//	}, func(ctx context.Context, call *mcp.Call, in searchArgs) (mcp.Output, error) {
//		hits, err := store.Search(ctx, in.Query, in.Limit)
//		if err != nil {
//			return mcp.Output{}, err
//		}
//		return mcp.Output{Text: render(hits), Structured: hits}, nil
//	})
//
// The server validates the arguments against the input schema (package
// contracts) before the handler runs and answers a failure with an isError
// result listing the violations, so the model can correct the call. A
// handler's error becomes "<tool> failed: <message>", except a
// [*VerbatimError], whose text is shown exactly as written (the seed's own
// wording). Results carry the handler's text as a text block and its
// structured value as structuredContent, checked against the output schema,
// redacted for secrets, and bounded in size.
//
// [Options] govern a session: read-only mode hides mutating tools, enabled
// scopes hide the rest, a rate limit and a concurrency cap reject excess
// requests, and an audit writer receives one JSON line per call.
package mcp
