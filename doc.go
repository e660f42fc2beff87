// Package foundry is the architecture tour of Foundry; it holds no code.
//
// Foundry keeps a project's agent memory in the repository under .foundry/:
// facts (package facts), runbooks (package runbooks), contracts (packages
// schemas and contracts) and the blackboard (package blackboard). Every read
// goes through an fs.FS chosen by package project: the working tree, the git
// index or any revision, the last two read from git objects by package git,
// the only importer of go-git.
//
// The same core is reached three ways: the CLI in cmd/foundry (the only
// importer of urfave/cli), the MCP server in package mcp (over package jsonrpc,
// the only importer of sourcegraph/jsonrpc2), and hooks. Domain packages never
// print and never exit; they return values and typed errors, and one switch in
// cmd/foundry/exit.go turns errors into exit codes.
package foundry
