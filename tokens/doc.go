// Package tokens is Foundry's token accounting: the one estimator
// ([Estimate]), the event log behind the token report ([Log], written to
// .foundry/metrics/events.jsonl) and the report itself ([BuildReport]).
//
// The event log is local usage data, gitignored: every memory_search,
// memory_write, blackboard_write, contract rejection (gate_blocked) and
// runbook read appends one JSON line. Each line is one write(2) on a file
// opened with O_APPEND, so concurrent processes never interleave or tear
// lines, and recording never fails the operation that is being recorded.
//
// Every figure of the report is computed from the files it describes: the
// memory index, the fact files, the blackboard artifacts and the event log.
// A long-running server builds it with a [Reporter], which keeps what it
// counted between calls: the fact files' figures come from the fact store
// that follows the memory folder, and the event log is read on from where
// the last report stopped.
package tokens
