package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/runbooks"
)

func (r *run) checkRunbooks(ctx context.Context) error {
	book := runbooks.Open(r.p.FS, runbooks.Options{})
	l, err := book.List(ctx)
	if err != nil {
		return err
	}
	r.checked(CheckRunbooksParse, len(l.Runbooks))
	r.checked(CheckRunbooksSlug, len(l.Runbooks))
	r.checked(CheckRunbooksTemplate, len(l.Runbooks))
	r.rep.Files += len(l.Runbooks)
	for _, rb := range l.Runbooks {
		if !runbooks.ValidSlug(rb.Slug) {
			r.add(CheckRunbooksSlug, Finding{File: rb.Path, Message: "file name " + rb.Slug + ".md is not a valid slug ([a-z0-9][a-z0-9-]*), so runbook_get cannot read it; rename the file"})
		}
		// The listing appends the slug warning, reported above on its own,
		// to the front matter problem with "; ".
		w := rb.Warning
		if i := strings.Index(w, "the file name is not a valid slug"); i >= 0 {
			w = strings.TrimSuffix(w[:i], "; ")
		}
		if w != "" {
			r.add(CheckRunbooksParse, Finding{File: rb.Path, Line: rb.Line, Message: w})
		}
		if field, c, ok := ctrl.FindIn(ctrl.Field{Name: "title", Text: rb.Title}, ctrl.Field{Name: "trigger", Text: rb.Trigger}); ok {
			r.escapedControl(rb.Path, field, c)
		}
		if !runbooks.ValidSlug(rb.Slug) {
			continue
		}
		if doc, err := book.Get(ctx, rb.Slug); err == nil {
			if n := runbooks.Unfilled(doc.Content); n > 0 {
				r.add(CheckRunbooksTemplate, Finding{File: rb.Path, Message: fmt.Sprintf(
					"%d of its %d sections still hold%s the template's placeholder; agents must follow this runbook, so write them", n, runbooks.TemplateSections, plural(n, "s", ""))})
			}
		}
	}
	return nil
}
