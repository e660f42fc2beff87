package git

// WithoutGitBinary makes r answer StagedChanges from go-git alone.
func WithoutGitBinary(r *Repo) { r.noGitBinary = true }
