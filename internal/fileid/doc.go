// Package fileid reads what identifies a file beyond its size and
// modification time, from the FileInfo the operating system gave: its
// status-change time, device and inode. The caches that trust a file by
// its identity (the facts store's search cache, the MCP server's kept
// contracts) key it by these, with git's racy-clean rule.
package fileid
