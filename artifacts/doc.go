// Package artifacts is Foundry's one validation core for blackboard
// artifacts and other JSON documents checked against contracts.
//
// It owns every step that `foundry validate`, `foundry doctor`, `foundry
// blackboard write`, the MCP contract_validate tool, the pre-commit hook and
// the Claude Code hook share: listing the artifacts of a project
// ([List], [ListStaged]), reading a file exactly and within [MaxBytes]
// ([ReadFile]), decoding and validating on a bounded worker pool
// ([Check], over package contracts, whose decoder and position rule every
// report uses), and rendering: the seed's VALID/INVALID blocks
// ([Verdict], [WriteText]), one "path:line:col: message" line per problem
// ([WriteLines]), JSON ([WriteJSON]) and SARIF 2.1.0 ([WriteSARIF]). The
// callers parse their input, call one function and print its result.
package artifacts
