// Package confined is the one door through which Foundry touches a
// project's files: a [Root] around the folder that holds .foundry/, and the
// one table of size limits every read is held to.
//
// A repository is untrusted input. A clone can commit symbolic links that
// point anywhere, blobs of any size and names of any shape, so:
//
//   - Reads go through [os.Root]: a symbolic link is followed only while its
//     target stays inside the folder that holds .foundry/ (an absolute link
//     is refused), and a link inside .foundry only while its target stays
//     inside .foundry ([ErrOutsideFoundry]): what .foundry holds is read as
//     memory and printed, so a committed link to the project's .git/config
//     or to an untracked .env must not be. Every file's size is checked
//     against [LimitFor] before a byte of it is read ([Bounded],
//     [ReadFile]). The git views (package git) follow links by the same
//     rules.
//   - Writes follow no symbolic link at all: every component of the path
//     under the root, .foundry itself included, must be a real folder
//     ([Root.WriteFile], [Root.WriteNew], [Root.MkdirAll], [Root.Lock],
//     [Root.Append]). The file appears complete or not at all (a temp file
//     in the same folder, then rename or link).
//   - Locks are flock(2) on a descriptor opened through the root, so a
//     symlinked lock file can neither be created nor followed. On unix
//     [LockDirs] locks folders themselves, creating no file, a link never
//     followed.
//   - Logs (the usage events, the audit log) are appended under a cap; past
//     it the oldest half is dropped ([Root.Append]).
//   - Names a client gives (a path to validate, a resource URI) are resolved
//     inside the root by [Clean] or refused before anything is opened.
package confined
