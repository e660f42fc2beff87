package tokens

// This file defines the token report: what memory and the blackboard would
// cost in context, measured from the files.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
)

// Paths the report measures, relative to the project root.
const (
	MemoryDir     = confined.MemoryDir
	IndexPath     = MemoryDir + "/INDEX.md"
	BlackboardDir = artifacts.Dir
)

// Report is Foundry's token accounting for one project.
type Report struct {
	Index      IndexCost      `json:"index"`
	Facts      FactsCost      `json:"facts"`
	Blackboard BlackboardCost `json:"blackboard"`
	Events     EventCounts    `json:"events"`
	// EagerTokens is what loading every fact and every artifact into a
	// session would cost: Facts.Tokens + Blackboard.Tokens.
	EagerTokens int `json:"eagerTokens"`
	// IndexFirstTokens is what the index-first path costs: Index.Tokens.
	IndexFirstTokens int `json:"indexFirstTokens"`
	// Refused lists the files and folders left out of the figures because
	// reading them was refused: a symbolic link out of the project, or one
	// that cannot be followed (see refuse).
	Refused []Refused `json:"refused,omitempty"`
}

// Refused is one file or folder the report left out, and why.
type Refused struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// IndexCost measures .foundry/memory/INDEX.md against its budget.
type IndexCost struct {
	Built        bool `json:"built"`
	Bytes        int  `json:"bytes"`
	Tokens       int  `json:"tokens"`
	BudgetTokens int  `json:"budgetTokens"`
}

// FactsCost measures the fact files (.foundry/memory/fact-*.md).
type FactsCost struct {
	Count  int `json:"count"`
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

// BlackboardCost measures the artifacts (.foundry/blackboard/<wave>/*.json).
type BlackboardCost struct {
	Waves     int `json:"waves"`
	Artifacts int `json:"artifacts"`
	Bytes     int `json:"bytes"`
	Tokens    int `json:"tokens"`
}

// BuildReport measures the project in fsys (rooted at the project root, any
// source) and counts the events in eventsFS (the working tree's root: the
// log is gitignored, so it only ever exists there; nil counts nothing).
// budget is the index budget from the config (memory.indexBudgetTokens).
// Token figures are per file, [Estimate] of each file's size, summed.
// It is the report of a [Reporter] that has counted nothing yet.
func BuildReport(ctx context.Context, fsys, eventsFS fs.FS, budget int) (Report, error) {
	return NewReporter(nil).Report(ctx, fsys, eventsFS, budget)
}

// Report returns what BuildReport(ctx, fsys, eventsFS, budget) returns.
// fsys must read the working tree rp's source follows; where the source
// fails, or for what it does not measure, the fact files are measured
// through fsys, so that a failure reads as the listing's would. The events
// are counted on from the last report (see eventTail).
func (rp *Reporter) Report(ctx context.Context, fsys, eventsFS fs.FS, budget int) (Report, error) {
	r := Report{Index: IndexCost{BudgetTokens: budget}, Events: EventCounts{Counts: []EventCount{}}}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	fi, err := fs.Stat(fsys, IndexPath)
	switch {
	case r.refuse(IndexPath, err):
	case err == nil:
		r.Index.Built = true
		r.Index.Bytes = int(fi.Size())
		r.Index.Tokens = Estimate(r.Index.Bytes)
	case !errors.Is(err, fs.ErrNotExist):
		return r, fmt.Errorf("measure memory index: %w", err)
	}

	if err := r.measureFacts(ctx, fsys, rp.src); err != nil {
		return r, fmt.Errorf("measure facts: %w", err)
	}

	waves, err := readDir(fsys, BlackboardDir)
	if r.refuse(BlackboardDir, err) {
		waves = nil
	} else if err != nil {
		return r, fmt.Errorf("measure blackboard: %w", err)
	}
	for _, w := range waves {
		if !w.IsDir() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return r, err
		}
		dir := path.Join(BlackboardDir, w.Name())
		files, err := readDir(fsys, dir)
		if r.refuse(dir, err) {
			continue
		} else if err != nil {
			return r, fmt.Errorf("measure blackboard: %w", err)
		}
		r.Blackboard.Waves++
		m, err := r.measure(fsys, dir, keep(files, artifacts.IsName))
		r.Blackboard.Artifacts += m.files
		r.Blackboard.Bytes += m.bytes
		r.Blackboard.Tokens += m.tokens
		if err != nil {
			return r, fmt.Errorf("measure blackboard: %w", err)
		}
	}

	if eventsFS != nil {
		if r.Events, err = rp.readEvents(eventsFS); r.refuse(EventsPath, err) {
			r.Events = EventCounts{Counts: []EventCount{}}
		} else if err != nil {
			return r, err
		}
	}
	r.EagerTokens = r.Facts.Tokens + r.Blackboard.Tokens
	r.IndexFirstTokens = r.Index.Tokens
	return r, nil
}

// refuse records name in r.Refused when err refuses a symbolic link, one
// out of .foundry or the project ([confined.ErrOutsideFoundry],
// [confined.ErrOutside]), one that loops
// (syscall.ELOOP), one that leads through a file (syscall.ENOTDIR), one to
// a folder where a file is measured (errNotFile) or, in a git view, one
// with a target longer than a link can have (syscall.ENAMETOOLONG), and
// reports whether it did: a committed link must not stop the whole report.
func (r *Report) refuse(name string, err error) bool {
	for _, reason := range []error{confined.ErrOutsideFoundry, confined.ErrOutside, syscall.ELOOP, syscall.ENOTDIR, syscall.ENAMETOOLONG, errNotFile} {
		if errors.Is(err, reason) {
			r.Refused = append(r.Refused, Refused{Path: name, Reason: reason.Error()})
			return true
		}
	}
	return false
}

// readDir lists dir; a missing folder is empty.
func readDir(fsys fs.FS, dir string) ([]fs.DirEntry, error) {
	es, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return es, err
}

// isFact reports whether name, in the memory folder, is a fact file's.
func isFact(name string) bool {
	return strings.HasPrefix(name, "fact-") && strings.HasSuffix(name, ".md")
}

// measureFacts measures the fact files into r.Facts: those src measures
// as it says, the others through fsys; all of them through fsys when src
// is nil or fails, so that its failure reads as the listing's would.
func (r *Report) measureFacts(ctx context.Context, fsys fs.FS, src FactSource) error {
	if src != nil {
		if ff, err := src.FactFiles(ctx); err == nil {
			m, err := r.measure(fsys, MemoryDir, ff.Others)
			r.Facts = FactsCost{Count: ff.Regular.Count + m.files, Bytes: ff.Regular.Bytes + m.bytes, Tokens: ff.Regular.Tokens + m.tokens}
			return err
		}
	}
	facts, err := readDir(fsys, MemoryDir)
	if r.refuse(MemoryDir, err) {
		facts = nil
	} else if err != nil {
		return err
	}
	m, err := r.measure(fsys, MemoryDir, keep(facts, isFact))
	r.Facts.Count, r.Facts.Bytes, r.Facts.Tokens = m.files, m.bytes, m.tokens
	return err
}

// keep returns the names of the files of entries (folders left out) that
// take accepts, in their order.
func keep(entries []fs.DirEntry, take func(name string) bool) []string {
	var names []string
	for _, e := range entries {
		if !e.IsDir() && take(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names
}

// measured is what [Report.measure] counted.
type measured struct{ files, bytes, tokens int }

// measure measures the files names of dir through dir's folder: a file
// removed since it was listed, a dangling link or one refused (see refuse)
// is left out. On an error it returns it with what it measured before.
func (r *Report) measure(fsys fs.FS, dir string, names []string) (measured, error) {
	var m measured
	if len(names) == 0 {
		return m, nil
	}
	f := openFolder(fsys, dir)
	defer f.close()
	for _, name := range names {
		n, err := f.size(name)
		if errors.Is(err, fs.ErrNotExist) || r.refuse(path.Join(dir, name), err) {
			continue // removed since the listing, a dangling link, or one refused
		}
		if err != nil {
			return m, err
		}
		m.files++
		m.bytes += n
		m.tokens += Estimate(n)
	}
	return m, nil
}

// errNotFile refuses a name that leads to something other than a regular
// file: a symbolic link to a folder, whose size is no artifact's.
var errNotFile = errors.New("not a regular file")

// folder measures the files of one folder of fsys. On a project's
// confined root it stats them through a [confined.Folder] opened on it,
// one system call a file where the root walks and opens every folder of
// each path; anywhere else (a git view), or when the folder cannot be
// opened, through fsys. The answers are the same.
type folder struct {
	fsys fs.FS
	dir  string
	f    *confined.Folder // nil: stat through fsys
}

func openFolder(fsys fs.FS, dir string) folder {
	return folder{fsys: fsys, dir: dir, f: confined.FolderOf(fsys, dir)}
}

func (m folder) close() { m.f.Close() }

// size returns the size in bytes of the file name of the folder.
func (m folder) size(name string) (int, error) {
	full := path.Join(m.dir, name)
	var fi fs.FileInfo
	var err error
	if m.f != nil {
		fi, err = m.f.Stat(name)
	} else {
		fi, err = fs.Stat(m.fsys, full)
	}
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("measure %s: %w", full, errNotFile)
	}
	return int(fi.Size()), nil
}

// Text renders the report in the seed's shape:
//
//	# Foundry token report
//
//	- Memory index: ~1980 tokens of a 4000 budget (always in context)
//	- Facts stored: 16, ~9700 tokens total (retrieved on demand only)
//	- Blackboard artifacts: ~24800 tokens (never enter context wholesale)
//	- Recorded events: memory_search=41, memory_write=16, gate_blocked=3, blackboard_write=9
//
//	Loading all memory eagerly would cost ~34500 tokens per session; the index-first path costs ~1980.
func (r Report) Text() string {
	var b strings.Builder
	b.WriteString("# Foundry token report\n\n")
	if r.Index.Built {
		fmt.Fprintf(&b, "- Memory index: ~%d tokens of a %d budget (always in context)\n", r.Index.Tokens, r.Index.BudgetTokens)
	} else {
		fmt.Fprintf(&b, "- Memory index: not built yet, %d budget (memory_index builds it)\n", r.Index.BudgetTokens)
	}
	fmt.Fprintf(&b, "- Facts stored: %d, ~%d tokens total (retrieved on demand only)\n", r.Facts.Count, r.Facts.Tokens)
	fmt.Fprintf(&b, "- Blackboard artifacts: ~%d tokens (never enter context wholesale)\n", r.Blackboard.Tokens)
	b.WriteString("- Recorded events: ")
	if len(r.Events.Counts) == 0 {
		b.WriteString("none")
	}
	for i, c := range r.Events.Counts {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", c.Kind, c.Count)
	}
	if r.Events.Malformed > 0 {
		fmt.Fprintf(&b, " (%d malformed %s skipped)", r.Events.Malformed, plural(r.Events.Malformed, "line", "lines"))
	}
	b.WriteString("\n")
	for _, f := range r.Refused {
		fmt.Fprintf(&b, "- Not measured: %s (%s)\n", ctrl.Escape(f.Path), f.Reason)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Loading all memory eagerly would cost ~%d tokens per session; the index-first path costs ~%d.\n",
		r.EagerTokens, r.IndexFirstTokens)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
