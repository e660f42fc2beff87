// Package runbooks reads and writes runbooks: markdown procedures under
// .foundry/runbooks/<slug>.md whose YAML front matter carries a title and an
// optional trigger (when the runbook applies).
//
// A [Book] reads through an fs.FS rooted at the project root, so runbooks
// are listed and read at the working tree, the git index or any revision.
// [Book.List] renders the runbook_list text, [Book.Get] returns one
// runbook's whole markdown (runbook_get) and [Book.Create] writes a new one
// from a short template, refusing to overwrite. A slug is
// [a-z0-9][a-z0-9-]*; anything else is refused before any file is touched.
// A runbook whose front matter cannot be read is listed with a warning,
// never dropped.
package runbooks
