// Package fileid reads what identifies a file beyond its size and
// modification time, from the FileInfo the operating system gave: its
// status-change time, device and inode. The caches that trust a file by
// its identity (the facts store's search cache, the MCP server's kept
// contracts and tokens) key it by these, with git's racy-clean rule: see
// [RacyWindow].
package fileid

import "time"

// RacyWindow is how long after its last change a file's identity does not
// prove its content (git's racy-clean rule): a change made within the
// same timestamp tick, or by a writer that keeps size and times, would not
// show. It is longer than any file system's timestamp granularity. A
// cache reads a file changed that recently again rather than trust it.
const RacyWindow = 2 * time.Second
