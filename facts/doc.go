// Package facts is Foundry's project memory: atomic durable facts, one per
// file under .foundry/memory/, searched by keyword and summarised in a
// token-budgeted INDEX.md.
//
// A fact file is YAML front matter (see [Fact]) followed by the body. [Parse]
// reads one and [Format] writes it byte-for-byte deterministically, so files
// diff and merge cleanly in git. File names are fact-NNNN-<slug>.md; the id in
// the front matter is the authority.
//
// A [Store] reads through an fs.FS rooted at the project root (the working
// tree, the git index or a revision) and caches parsed facts, revalidating
// them on every call by file identity (size, modification time and inode, or
// a blob hash). Only a store opened on a working tree can [Store.Write]:
// every write takes an exclusive cross-process lock on
// .foundry/memory/.lock, assigns the next id, writes the fact atomically and
// rebuilds INDEX.md before releasing the lock.
//
// [Store.Search] ranks active facts with BM25 over stemmed title, body and
// tags. [BuildIndex] renders INDEX.md; [MergeIndex] merges two branches'
// indexes line by line for the git merge driver; [Store.Repair] repairs what
// a merge leaves: fact files with conflict markers (which [Parse] refuses, so
// no reader serves them), duplicate ids, and supersedes chains, asking git
// history through a [Provenance] which fact held a shared id first and
// which fact a link meant.
package facts
