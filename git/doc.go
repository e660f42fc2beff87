// Package git is Foundry's only door to go-git. It opens the repository that
// holds a project, resolves revisions, and gives read-only fs.FS views of the
// project at any revision or in the index, read straight from git objects
// with no checkout and no temporary files. Callers never see go-git types:
// failures come back as the sentinels of errors.go.
package git
