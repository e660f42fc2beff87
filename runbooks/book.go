package runbooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/tokens"
)

// Recorder receives one event per runbook read; *tokens.Log is one.
type Recorder interface{ Record(kind string) }

// Options configures a [Book].
type Options struct {
	// Root is the project root on disk (the folder holding .foundry/).
	// Create needs it; leave it empty for a revision or the index.
	Root string
	// Events, when set, records a runbook_get event per [Book.Get].
	Events Recorder
}

// Book is the runbooks of one project, read through an fs.FS rooted at the
// project root.
type Book struct {
	fsys fs.FS
	opts Options
}

// Open returns the runbooks of the project in fsys.
func Open(fsys fs.FS, opts Options) *Book { return &Book{fsys: fsys, opts: opts} }

// Listing is the result of [Book.List].
type Listing struct {
	Runbooks []Runbook `json:"runbooks"` // by slug
}

// emptyText is the seed's runbook_list text when there are no runbooks.
const emptyText = "No runbooks yet. Create one with the runbook-author skill after any task worth repeating.\n"

// Text renders the listing as runbook_list returns it:
//
//   - **deploy-production** — Deploy to production
//     trigger: deploy, release to prod
//   - **rotate-api-keys** — Rotate third-party API keys
//
// A runbook with a warning shows "(no title)" when it has none and a
// "warning:" line.
func (l Listing) Text() string {
	if len(l.Runbooks) == 0 {
		return emptyText
	}
	var b strings.Builder
	for _, r := range l.Runbooks {
		title := r.Title
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(&b, "- **%s** — %s\n", r.Slug, title)
		if r.Trigger != "" {
			fmt.Fprintf(&b, "  trigger: %s\n", r.Trigger)
		}
		if r.Warning != "" {
			fmt.Fprintf(&b, "  warning: %s\n", r.Warning)
		}
	}
	return b.String()
}

// Slugs returns the slugs of the listed runbooks.
func (l Listing) Slugs() []string {
	out := make([]string, 0, len(l.Runbooks))
	for _, r := range l.Runbooks {
		out = append(out, r.Slug)
	}
	return out
}

// List lists every runbook: each *.md file of .foundry/runbooks/, by slug.
// A missing folder lists nothing.
func (b *Book) List(ctx context.Context) (Listing, error) {
	l, err := b.Names(ctx)
	if err != nil {
		return l, err
	}
	return l, b.Describe(ctx, l.Runbooks)
}

// Page returns one page of the listing, as [Book.List] then [Listing.Page]
// would, reading only the page's runbooks: the folder's names alone decide
// the page, so a call costs the listing of the folder and at most limit
// files however many runbooks there are.
func (b *Book) Page(ctx context.Context, limit int, cursor string) (Page, error) {
	l, err := b.Names(ctx)
	if err != nil {
		return Page{}, err
	}
	p, err := l.Page(limit, cursor)
	if err != nil {
		return Page{}, err
	}
	return p, b.Describe(ctx, p.Runbooks)
}

// Names lists the runbooks as [Book.List] does, reading none of them: each
// has its Slug and Path alone, its title, trigger and warning still to be
// read ([Book.Describe]). A missing folder lists nothing.
func (b *Book) Names(ctx context.Context) (Listing, error) {
	l := Listing{Runbooks: []Runbook{}}
	if err := ctx.Err(); err != nil {
		return l, err
	}
	entries, err := fs.ReadDir(b.fsys, Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("list runbooks: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ext) || strings.HasPrefix(name, ".") {
			continue
		}
		l.Runbooks = append(l.Runbooks, Runbook{Slug: strings.TrimSuffix(name, ext), Path: path.Join(Dir, name)})
	}
	slices.SortFunc(l.Runbooks, func(a, b Runbook) int { return strings.Compare(a.Slug, b.Slug) })
	return l, nil
}

// Describe reads each runbook of rs, as [Book.Names] listed it, for its
// title, trigger and warning.
func (b *Book) Describe(ctx context.Context, rs []Runbook) error {
	for i := range rs {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := &rs[i]
		data, err := fs.ReadFile(b.fsys, r.Path)
		if err != nil {
			// One unreadable file (a dangling link, no permission) is
			// listed with a warning; it does not hide the others.
			r.Warning = "cannot be read: " + errText(err)
			continue
		}
		describe(r, data)
	}
	return nil
}

// describe fills r's title, trigger and warning from the file content.
func describe(r *Runbook, data []byte) {
	fm, err := parseFrontMatter(data)
	r.Title, r.Trigger = fm.Title, fm.Trigger
	var warnings []string
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	if fe := (*frontMatterError)(nil); errors.As(err, &fe) {
		r.Line = fe.line
	}
	if !ValidSlug(r.Slug) {
		warnings = append(warnings, "the file name is not a valid slug ([a-z0-9][a-z0-9-]*), so runbook_get cannot read it; rename the file")
	}
	r.Warning = strings.Join(warnings, "; ")
}

// errText states err without the path a *fs.PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Doc is one runbook with its whole markdown, the result of [Book.Get].
type Doc struct {
	Runbook
	Content string `json:"content"` // the file, verbatim
}

// Text returns the whole markdown, as runbook_get returns it.
func (d Doc) Text() string { return d.Content }

// Get returns the runbook with slug. An invalid slug is refused before any
// file is read; an unknown one is an error listing the available slugs.
func (b *Book) Get(ctx context.Context, slug string) (Doc, error) {
	if err := CheckSlug(slug); err != nil {
		return Doc{}, err
	}
	if err := ctx.Err(); err != nil {
		return Doc{}, err
	}
	r := Runbook{Slug: slug, Path: path.Join(Dir, slug+ext)}
	data, err := fs.ReadFile(b.fsys, r.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Doc{}, b.unknown(ctx, slug)
	}
	if err != nil {
		return Doc{}, fmt.Errorf("read runbook %s: %w", slug, err)
	}
	describe(&r, data)
	if b.opts.Events != nil {
		b.opts.Events.Record(tokens.KindRunbookGet)
	}
	return Doc{Runbook: r, Content: string(data)}, nil
}

// unknown returns the error for a slug with no runbook.
func (b *Book) unknown(ctx context.Context, slug string) error {
	l, err := b.Names(ctx) // the slugs alone: no runbook is read
	if err != nil {
		return fmt.Errorf("%w %q (%v)", ErrUnknownRunbook, slug, err)
	}
	var avail []string
	for _, s := range l.Slugs() {
		if ValidSlug(s) {
			avail = append(avail, s)
		}
	}
	if len(avail) == 0 {
		return fmt.Errorf("%w %q (no runbooks yet)", ErrUnknownRunbook, slug)
	}
	return fmt.Errorf("%w %q (available: %s)", ErrUnknownRunbook, slug, strings.Join(avail, ", "))
}

// NewRunbook is what [Book.Create] needs.
type NewRunbook struct {
	Slug    string `json:"slug"`
	Title   string `json:"title"`
	Trigger string `json:"trigger,omitempty"`
}

// Created is the result of [Book.Create].
type Created struct {
	Runbook
	Bytes int `json:"bytes"`
}

// Text says what was written and what to do next.
func (c Created) Text() string {
	return fmt.Sprintf("Wrote %s from the template.\nFill in its steps and commit it; runbook_list shows it to every agent.\n", c.Path)
}

// maxTitle bounds a title, as for facts.
const maxTitle = 80

// Create writes .foundry/runbooks/<slug>.md from the template. It refuses
// an invalid slug before touching any file and never overwrites a runbook.
func (b *Book) Create(ctx context.Context, n NewRunbook) (Created, error) {
	if err := CheckSlug(n.Slug); err != nil {
		return Created{}, err
	}
	if confined.WindowsDevice(n.Slug) {
		return Created{}, fmt.Errorf("%w %q: a device name on Windows (CON, PRN, AUX, NUL, COM1–9, LPT1–9), which no checkout there can hold", ErrInvalidSlug, n.Slug)
	}
	title, trigger := strings.TrimSpace(n.Title), strings.TrimSpace(n.Trigger)
	switch {
	case title == "":
		return Created{}, fmt.Errorf("%w: the title is empty", ErrInvalidRunbook)
	case trigger == "":
		// Agents must follow a runbook when its trigger matches: without
		// one, no agent ever knows when that is.
		return Created{}, fmt.Errorf("%w: the trigger is empty; say when the runbook applies", ErrInvalidRunbook)
	case !utf8.ValidString(title) || !utf8.ValidString(trigger):
		return Created{}, fmt.Errorf("%w: title and trigger must be UTF-8 text", ErrInvalidRunbook)
	case strings.ContainsAny(title, "\r\n") || strings.ContainsAny(trigger, "\r\n"):
		return Created{}, fmt.Errorf("%w: title and trigger must be one line each", ErrInvalidRunbook)
	case ctrl.Check("the title", title) != nil:
		return Created{}, fmt.Errorf("%w: %v", ErrInvalidRunbook, ctrl.Check("the title", title))
	case ctrl.Check("the trigger", trigger) != nil:
		return Created{}, fmt.Errorf("%w: %v", ErrInvalidRunbook, ctrl.Check("the trigger", trigger))
	case len([]rune(title)) > maxTitle:
		return Created{}, fmt.Errorf("%w: the title has %d characters, at most %d", ErrInvalidRunbook, len([]rune(title)), maxTitle)
	}
	if b.opts.Root == "" {
		return Created{}, fmt.Errorf("create runbook %s: %w", n.Slug, ErrReadOnly)
	}
	if err := ctx.Err(); err != nil {
		return Created{}, err
	}
	content, err := render(title, trigger)
	if err != nil {
		return Created{}, fmt.Errorf("create runbook %s: %w", n.Slug, err)
	}
	root, err := confined.Open(b.opts.Root)
	if err != nil {
		return Created{}, fmt.Errorf("create runbook %s: %w", n.Slug, err)
	}
	defer root.Close()
	if err := root.MkdirAll(Dir); err != nil {
		return Created{}, fmt.Errorf("create runbook %s: %w", n.Slug, err)
	}
	// A create takes no lock (link(2) alone decides between two), so
	// only the temp files old enough that no live writer owns them go:
	// those of a killed writer, which doctor reports until then.
	root.RemoveStale(Dir, time.Now().Add(-confined.StaleAge))
	r := Runbook{Slug: n.Slug, Title: title, Trigger: trigger, Path: path.Join(Dir, n.Slug+ext)}
	err = root.WriteNew(r.Path, content, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return Created{}, fmt.Errorf("%w: %s", ErrExists, r.Path)
	}
	if err != nil {
		return Created{}, fmt.Errorf("create runbook %s: %w", n.Slug, err)
	}
	return Created{Runbook: r, Bytes: len(content)}, nil
}

// placeholders are the template's blanks, one a section, for its writer
// to replace; [Unfilled] finds the ones left.
var placeholders = [...]string{
	"<!-- what must be true first: access, a clean tree, a green build -->",
	"<!-- the exact command or action -->",
	"<!-- how to tell it worked -->",
	"<!-- how to roll back, and whom to tell -->",
}

// TemplateSections is how many sections the template has, each with one
// blank.
const TemplateSections = len(placeholders)

// Unfilled returns how many of the template's blanks a runbook still
// holds: a runbook agents must follow is no use before its steps are
// written.
func Unfilled(content string) int {
	n := 0
	for _, p := range placeholders {
		if strings.Contains(content, p) {
			n++
		}
	}
	return n
}

// render fills the template. The front matter goes through the YAML
// encoder so any title (a colon, a quote) reads back unchanged.
func render(title, trigger string) ([]byte, error) {
	fm, err := yaml.Marshal(struct {
		Title   string `yaml:"title"`
		Trigger string `yaml:"trigger"`
	}{title, trigger})
	if err != nil {
		return nil, err
	}
	when := "Use this runbook when: " + trigger + "."
	var b strings.Builder
	b.WriteString("---\n")
	b.Write(fm)
	b.WriteString("---\n\n# " + title + "\n\n" + when + "\n")
	fmt.Fprintf(&b, `
## Before you start

- %s

## Steps

1. %s

## Check

- %s

## If it goes wrong

- %s
`, placeholders[0], placeholders[1], placeholders[2], placeholders[3])
	return []byte(b.String()), nil
}
