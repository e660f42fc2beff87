package git

// WithoutGitBinary makes r answer StagedChanges from go-git alone: its
// decoder and a walk of HEAD's whole tree.
func WithoutGitBinary(r *Repo) { r.staged = stagedWalk }

// WithGitBinary makes r answer StagedChanges with git diff-index.
func WithGitBinary(r *Repo) { r.staged = stagedBinary }
