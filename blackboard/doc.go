// Package blackboard stores the JSON artifacts that one wave of agents hands
// to the next: .foundry/blackboard/<wave>/<agent>.json, each valid against a
// contract.
//
// [Board.Write] sanitises the wave and agent names ([Sanitize]), sets the
// artifact's schema and producedBy fields, validates it against its
// contract and, only when it is valid, writes it atomically, pretty-printed
// with keys in a stable (sorted) order, so artifacts diff and merge cleanly.
// The first artifact accepted under a contract id also records the exact
// contract content it was accepted under in .foundry/contracts.lock/<id>
// ([ReadLocks]), one small file per id so that branches merge without
// conflicts.
//
// [Board.Read] reads a wave through an fs.FS rooted at the project root (the
// working tree, the git index or a revision): one summary entry per
// artifact by default, or each artifact verbatim, paged with an opaque
// cursor.
//
// Every operation returns a structured result and, through its Text method,
// the exact text the MCP tools return.
package blackboard
