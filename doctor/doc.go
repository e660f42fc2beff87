// Package doctor sweeps a Foundry project, at the working tree, the git
// index or any revision, and reports what is wrong with it: blackboard
// artifacts that do not satisfy their contract, git conflict markers in any
// file under .foundry/, malformed or duplicated facts, supersedes links whose
// two ends disagree, a stale memory index, broken runbooks, an invalid config,
// project-local schemas that do not compile or redefine an embedded
// contract, agent definitions whose declared contracts or artifacts do not
// hold, and a contracts lock the running binary no longer matches.
//
// When the project lives in git, a history pass explains failures: an
// artifact that fails today but was valid against its contract as of the
// commit that wrote it is reported as written before the contract was
// tightened, naming both commits, and every breaking edit of a published
// contract file is flagged with the commit that made it. The pass walks the
// history once ([git.Repo.History]).
//
// Every finding belongs to a check of [Checks], with a stable id and a
// severity. [Run] returns a [Report]; it never prints. [Report.WriteText],
// [Report.SARIF] and JSON encoding render it, and [Fix] applies the safe
// repairs (a stale INDEX.md, conflicted fact files, duplicate fact ids and
// supersedes chains, settled from git history).
package doctor
