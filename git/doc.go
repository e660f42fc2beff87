// Package git is Foundry's only door to go-git. It opens the repository that
// holds a project, resolves revisions, and gives read-only fs.FS views of the
// project at any revision or in the index, read straight from git objects
// with no checkout and no temporary files. Callers never see go-git types:
// failures come back as the sentinels of errors.go. It uses go-git's storage
// and plumbing packages, never its root package, which would link every
// transport (SSH, HTTP) into the binary (cmd/foundry's TestLinkedPackages).
package git
