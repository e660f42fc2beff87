// This file defines Run: the order of the passes and the bookkeeping every
// check shares.

package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"time"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/project"
)

// Env is what a doctor run needs.
type Env struct {
	// Project is the project opened on the source to check (working tree,
	// index or revision). Open it with [project.OpenLenient] so an invalid
	// config is reported as a finding instead of failing the open.
	Project *project.Project
	// NoHistory skips the history pass.
	NoHistory bool
	// Now is the clock that decides expiry; nil means time.Now.
	Now func() time.Time
	// Changed, when not nil, makes the run the pre-commit hook's staged
	// check: Project is opened on the index and Changed lists what the
	// index adds, modifies or deletes under .foundry/ relative to HEAD
	// (project-relative paths). Only those files are read, with what they
	// touch: the names of the other fact files, the facts a staged fact
	// links to, the project's contracts, and HEAD's version of a changed
	// contract (and, when the commit edits one in a breaking way or
	// deletes it, HEAD's history, for the commit that published it). The
	// checks that need the whole project are skipped.
	Changed []git.Change
	// Merge, with Changed, says the commit is a merge git has not yet
	// written MERGE_HEAD for: the pre-merge-commit hook's (a merge stopped
	// for a conflict and concluded by a commit is known by its
	// MERGE_HEAD). In a merge, a fact id that each branch gave a fact of
	// its own (every file holding it is, as staged, HEAD's or MERGE_HEAD's
	// version; without MERGE_HEAD, every one is) is a warning, to renumber
	// with doctor --fix after the merge, not an error that refuses it: the
	// design makes a duplicate id after a merge a finding, not a conflict.
	Merge bool
	// Progress, when set, receives the progress of the long sweeps. It is
	// called from the goroutine that runs Run.
	Progress func(Progress)
}

// Progress reports how far a sweep has come.
type Progress struct {
	Phase string `json:"phase"` // "blackboard", "history"
	Done  int    `json:"done"`
	Total int    `json:"total"` // 0 when unknown
}

// run is the state of one doctor run.
type run struct {
	env     Env
	p       *project.Project
	repo    *git.Repo        // p's repository, nil outside git
	unread  *git.FormatError // why repo is nil in a repository: its format is not supported
	rel     string           // p.Root in repo's working tree
	now     func() time.Time
	today   string
	reg     *contracts.Registry
	results map[string]*CheckResult
	order   []string
	rep     *Report

	// all is the whole source; p.FS shows only the changed files in the
	// staged check (only and changes set), and is all otherwise.
	all     fs.FS
	only    map[string]bool
	changes []git.Change

	// Filled by the blackboard sweep for the later passes.
	artifacts []artifact

	// folder is the working tree's folder folderDir, which read holds
	// open while its reads stay in it (nil where it could not be opened);
	// Run closes it.
	folder    *confined.Folder
	folderDir string
}

// read returns the content of the file p of r.p.FS as fs.ReadFile does,
// held to the file's size limit. In the working tree a regular file is
// read from its folder, held open while the reads stay in it
// ([confined.Folder]): four system calls a file where the root walks to it
// from the project's folder, about ten. Anything else goes through r.p.FS,
// whose answer decides.
func (r *run) read(p string) ([]byte, error) {
	root := confined.RootOf(r.p.FS)
	if root == nil {
		return fs.ReadFile(r.p.FS, p)
	}
	if dir := path.Dir(p); dir != r.folderDir {
		r.closeFolder()
		r.folderDir = dir
		r.folder, _ = root.OpenFolder(dir) // nil when it cannot be opened
	}
	if b, ok := r.folder.ReadRegular(path.Base(p), confined.LimitFor(p).Max); ok {
		return b, nil
	}
	return fs.ReadFile(r.p.FS, p)
}

// closeFolder closes the folder read holds open.
func (r *run) closeFolder() {
	if r.folder != nil {
		r.folder.Close()
	}
	r.folder, r.folderDir = nil, ""
}

// artifact is one blackboard file as the sweep saw it.
type artifact struct {
	path string
	// blob is the git object id of the content validated, when it fails
	// its contract: the history pass reads an artifact it can explain
	// again, so the sweep never holds every failing artifact (up to
	// 8 MiB each) at once.
	blob     string
	contract string // the "schema" field, when it names a known contract
	// findings are the indices in rep.Findings of its blackboard.valid
	// findings; non-empty means it fails its contract.
	findings []int
}

// Run checks the project and returns the report. It never prints and never
// writes. The error is reserved for failures to read the project (a git
// object that cannot be read, a cancelled context); problems with the
// project's content are findings.
func Run(ctx context.Context, env Env) (*Report, error) {
	if env.Project == nil {
		return nil, fmt.Errorf("run doctor: no project")
	}
	repo, rel, err := env.Project.Git()
	var unread *git.FormatError // why a repository is read as none
	if errors.As(err, &unread) {
		// Only the working tree gets here (--rev and --staged failed to
		// open): its checks need no git, and history says why it is skipped.
		err = nil
	}
	if err != nil {
		return nil, err
	}
	now := env.Now
	if now == nil {
		now = time.Now
	}
	r := &run{
		env:     env,
		p:       env.Project,
		repo:    repo,
		unread:  unread,
		rel:     rel,
		now:     now,
		today:   now().Format("2006-01-02"),
		results: map[string]*CheckResult{},
		rep: &Report{
			Root:     env.Project.Root,
			Source:   env.Project.Label(),
			Findings: []Finding{},
		},
	}
	for _, c := range Checks() {
		r.results[c.ID] = &CheckResult{Check: c}
		r.order = append(r.order, c.ID)
	}
	r.all = r.p.FS
	passes := []func(context.Context) error{
		r.checkConflicts,
		r.checkConfig,
		r.checkLocalContracts,
		r.checkBlackboard,
		r.checkFacts,
		r.checkRunbooks,
		r.checkStoredSecrets,
		r.checkAgents,
		r.checkLock,
		r.checkHistory,
	}
	if env.Changed != nil {
		r.restrict(env.Changed)
		passes = r.stagedPasses()
	}
	defer r.closeFolder()
	for _, pass := range passes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := guard(ctx, pass); err != nil {
			return nil, fmt.Errorf("run doctor on the %s: %w", r.rep.Source, err)
		}
	}
	return r.finish(), nil
}

// guard runs one pass, turning a panic in it into an error: hostile
// content must end a check, never the process (or the MCP server that runs
// doctor as a tool).
func guard(ctx context.Context, pass func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return pass(ctx)
}

// unreadable turns the error of reading one file into a finding's message
// when the error is about that file alone (a dangling link, a link out of
// the project, a file over its size limit), so one hostile file is
// reported and never ends the sweep.
func unreadable(err error) (string, bool) {
	var (
		tooLarge *confined.TooLargeError
		pathErr  *fs.PathError
	)
	switch {
	case errors.As(err, &tooLarge):
		return fmt.Sprintf("not read: %s is %s, over the %s limit", tooLarge.Limit.Kind, confined.FormatSize(tooLarge.Size), tooLarge.Limit), true
	case errors.As(err, &pathErr):
		return "cannot be read: " + pathErr.Err.Error(), true
	}
	return "", false
}

// add records a finding of check id with the check's severity and returns
// its index.
func (r *run) add(id string, f Finding) int {
	res := r.results[id]
	f.Check = id
	if f.Severity == "" {
		f.Severity = res.Severity
	}
	r.rep.Findings = append(r.rep.Findings, f)
	return len(r.rep.Findings) - 1
}

// found reports whether check id has a finding on file.
func (r *run) found(id, file string) bool {
	for _, f := range r.rep.Findings {
		if f.Check == id && f.File == file {
			return true
		}
	}
	return false
}

// checked counts items a check looked at.
func (r *run) checked(id string, n int) { r.results[id].Checked += n }

// skip marks a check as not run.
func (r *run) skip(id, why string) { r.results[id].Skipped = why }

func (r *run) progress(phase string, done, total int) {
	if r.env.Progress != nil {
		r.env.Progress(Progress{Phase: phase, Done: done, Total: total})
	}
}

// finish sorts the findings (by check order, file, position) and fills in
// the counts.
func (r *run) finish() *Report {
	rank := map[string]int{}
	for i, id := range r.order {
		rank[id] = i
	}
	fs := r.rep.Findings
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Check != b.Check {
			return rank[a.Check] < rank[b.Check]
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	files := map[string]map[string]bool{}
	for _, f := range fs {
		res := r.results[f.Check]
		res.Findings++
		if files[f.Check] == nil {
			files[f.Check] = map[string]bool{}
		}
		if f.File != "" {
			files[f.Check][f.File] = true
		}
		switch f.Severity {
		case Error:
			r.rep.Errors++
		case Warning:
			r.rep.Warnings++
		default:
			r.rep.Infos++
		}
	}
	for _, id := range r.order {
		res := r.results[id]
		res.Files = len(files[id])
		r.rep.Checks = append(r.rep.Checks, *res)
	}
	return r.rep
}
