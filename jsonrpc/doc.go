// Package jsonrpc serves JSON-RPC 2.0 over a newline-delimited byte stream
// (stdin/stdout) on top of github.com/sourcegraph/jsonrpc2, and one message
// at a time for other transports. It is the only
// package that imports jsonrpc2, and it knows nothing about MCP.
//
// jsonrpc2 alone is not robust enough for a long-lived stdio server: its
// stock stream closes the whole connection on one undecodable line, its
// handlers run on the read loop, a nil result is sent as "result":null, and
// its ID is unsigned, so a negative id would be echoed as 2^64 plus it.
// This package reads requests through jsonrpc2 but writes the responses
// itself, and adds:
//
//   - its own object stream, which reads one line at a time, answers a line
//     that is not JSON (-32700), a batch array (-32600), a request whose id
//     is not a string or an integer in int64's range written in plain
//     decimal (-32600) and a request over the size limit (-32600) by itself (a notification or a response from the
//     peer is never answered, only dropped), and keeps reading; on end of
//     input it waits for the requests in flight to be answered before it
//     reports EOF;
//   - a [Server] with a method table that runs requests concurrently (up to
//     a limit; over it a request is rejected, never queued), handles
//     notifications in order on the read loop, gives each request a context
//     that [Conn.Cancel] cancels (its response is then suppressed), turns a
//     nil result into {} and every handler error into a JSON-RPC error
//     object;
//   - an optional trace of every message to a *slog.Logger;
//   - a message-level side for transports that carry one message at a
//     time, such as MCP's Streamable HTTP: [Parse] decodes a message (and
//     encodes the error owed to a bad one), [Server.Open] gives a [Conn]
//     whose [Conn.Deliver] serves it through the same method table,
//     limits and handlers as [Server.Serve], and [Conn.Close] ends it.
//     [Options.Admit] adds limits that span connections.
//
// Request ids are echoed verbatim: strings of any content and the integers
// -2^63 to 2^63-1, as JSON-RPC 2.0 and MCP allow. An integer id must be in
// plain decimal, the one form it is echoed in: no fraction (1.0), exponent
// (1e3), leading zero (007) or -0. Refusing -0, which JSON allows, keeps
// one text per id, so that equal [ID] values are equal ids on the wire.
// null is refused as an id, as MCP requires.
package jsonrpc
