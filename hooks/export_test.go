package hooks

import "context"

// InstallPreCommitAfter plans the pre-commit install at root like
// [Install], runs between, and then applies the plan: what happens when
// another process changes the hooks in between.
func InstallPreCommitAfter(ctx context.Context, root string, opts Options, between func()) error {
	r, err := openRepo(ctx, root)
	if err != nil {
		return err
	}
	steps, err := r.planPreCommit(opts)
	if err != nil {
		return err
	}
	between()
	for _, s := range steps {
		if s.do == nil {
			continue
		}
		if err := s.do(); err != nil {
			return err
		}
	}
	return nil
}
