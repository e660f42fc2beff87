// Package contracts validates JSON documents against Foundry's contracts:
// the JSON Schema 2020-12 documents embedded by package schemas plus the
// project-local ones in .foundry/schemas/. It is the only importer of the
// JSON Schema library (github.com/santhosh-tekuri/jsonschema/v6), so every
// schema check in Foundry, including MCP tool arguments ([Compile]), goes
// through it.
//
// Validation is complete 2020-12 (every keyword, $ref across files by file
// name); contracts assert the formats date, date-time and uri, the last with
// a strict RFC 3986 checker. Problems come back as [Violation] values in the
// one-line form "<pointer>: <problem>", e.g.
//
//	#/severity: must be one of ["critical","high","medium","low","info"]
//
// one per problem, leaf causes only (no "allOf failed" wrappers), one per
// subtree whose type is wrong, in document order. When the document is
// given as bytes, each violation also carries the line and column of the
// offending value.
//
// A [Registry] is cheap to build per command ([Load]); the embedded
// contracts compile once per process, on first use, and are shared.
package contracts
