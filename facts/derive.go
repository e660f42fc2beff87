package facts

// This file defines DeriveStatus: supersession derived from both ends of
// each link, for facts held outside a Store.

// DeriveStatus returns copies of raw facts (sorted by id number, then path,
// as [Store.RawFacts] returns them) in which a fact is superseded when its
// own file says so or when another fact names it in supersedes; the first
// such fact in raw's order is its successor when its file names none.
// Reading both ends of the link keeps memory consistent even if a writer
// died between writing a new fact and marking the old one. [Store.Facts]
// returns the same, kept current link by link; a caller that reads the
// facts one at a time (doctor, which must not hold every body) derives
// them with this.
func DeriveStatus(raw []Fact) []Fact {
	by := map[string]string{} // superseded id → superseding id
	for _, f := range raw {
		if f.Supersedes != "" && f.Supersedes != f.ID {
			if _, ok := by[f.Supersedes]; !ok {
				by[f.Supersedes] = f.ID
			}
		}
	}
	out := make([]Fact, len(raw))
	for i, f := range raw {
		f.Status, f.SupersededBy = deriveStatus(f.Status, f.SupersededBy, by[f.ID])
		out[i] = f
	}
	return out
}

// deriveStatus returns the status and successor of a fact whose file
// states status and supersededBy, when successor is the first fact that
// names it in supersedes ("" for none): superseded when its file says so
// or names a successor, or a fact names it, its successor the one its file
// names or else that fact; active when its file states no status.
func deriveStatus(status Status, supersededBy, successor string) (Status, string) {
	if status == "" {
		status = Active
	}
	if supersededBy != "" || successor != "" {
		status = Superseded
	}
	if supersededBy == "" {
		supersededBy = successor
	}
	return status, supersededBy
}
