package blackboard

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/tokens"
)

// Paging of reads.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// MaxSummary is the length, in characters, at which summary lines are cut.
const MaxSummary = 400

// summaryFields are tried in order for an artifact's summary line.
var summaryFields = []string{"summary", "title", "goal"}

// ReadRequest asks for the artifacts of one wave.
type ReadRequest struct {
	Wave   string // sanitised with [Sanitize]
	Agent  string // optional: only this producer's artifact (sanitised)
	Full   bool   // each artifact verbatim instead of a summary
	Limit  int    // artifacts per page: 0 means DefaultLimit, at most MaxLimit
	Cursor string // from a previous result's NextCursor
	// MaxBytes, when positive, bounds a full read: when the page's artifact
	// files are larger together, as their file information says, Read
	// returns a [*FullTooLargeError] before reading any of them. A caller
	// whose answer is size-limited (an MCP result) passes its limit, so an
	// answer it would refuse is never built.
	MaxBytes int64
}

// Artifact is one artifact of a read.
type Artifact struct {
	Name       string `json:"name"`  // file name, e.g. appsec-reviewer.json
	Agent      string `json:"agent"` // the file name without .json
	Path       string `json:"path"`  // project-relative, slash form
	Schema     string `json:"schema,omitempty"`
	ProducedBy string `json:"producedBy,omitempty"`
	Bytes      int    `json:"bytes"`
	Tokens     int    `json:"tokens"`
	// Summary comes from the artifact's summary, title or goal field, cut
	// at MaxSummary characters; empty when it has none of them.
	Summary string `json:"summary,omitempty"`
	// Problem says why the file is not a JSON object, or cannot be read.
	Problem string `json:"problem,omitempty"`
	// Invalid marks an artifact its contract rejects (or whose schema
	// field names no contract); Violations say why.
	Invalid    bool        `json:"invalid,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
	// Data is the artifact itself, only in a full read of a parseable file.
	Data json.RawMessage `json:"data,omitempty"`

	raw []byte // the file verbatim, in a full read
}

// ReadResult is one page of a wave.
type ReadResult struct {
	Wave      string     `json:"wave"` // sanitised
	Full      bool       `json:"full"`
	Artifacts []Artifact `json:"artifacts"`
	// Total counts the wave's artifacts (only the agent's, with Agent).
	Total int `json:"total"`
	// NextCursor, when set, reads the next page.
	NextCursor string `json:"nextCursor,omitempty"`
	// Agent is the agent read (sanitised), empty for the whole wave. The
	// texts name it; the answer leaves it out, as the request has it.
	Agent string `json:"-"`
}

// Text renders the page as blackboard_read returns it. A summary entry is
//
//   - **appsec-reviewer.json** · schema review.v1 · by appsec-reviewer · ~711 tokens
//     Six findings, two high. Access control on /api/orders is the blocking one.
//
// and a full entry is the same first line followed by the file in a fenced
// JSON block. When more artifacts remain, the text ends with
// `More: call again with cursor "<c>".`
func (r ReadResult) Text() string {
	return r.text("\nMore: call again with cursor %q.\n")
}

// HumanText renders the page for a person at a terminal: as
// [ReadResult.Text], with the next page named by the command-line flag,
// `More: pass --cursor "<c>" for the next page.`
func (r ReadResult) HumanText() string {
	return r.text("\nMore: pass --cursor %q for the next page.\n")
}

func (r ReadResult) text(more string) string {
	var b strings.Builder
	// An empty page of artifacts that exist began after them all: only a
	// cursor does that.
	switch {
	case len(r.Artifacts) > 0:
	case r.Total == 0:
		fmt.Fprintf(&b, "Wave %s holds no artifacts yet.\n", r.Wave)
	case r.Agent != "":
		fmt.Fprintf(&b, "Wave %s holds no artifact by %s after the cursor.\n", r.Wave, r.Agent)
	default:
		fmt.Fprintf(&b, "Wave %s holds no artifacts after the cursor (%d in all).\n", r.Wave, r.Total)
	}
	for i, a := range r.Artifacts {
		if r.Full && i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(a.header())
		switch {
		case r.Full && a.raw != nil:
			b.WriteString("```json\n")
			b.Write(a.raw)
			if !bytes.HasSuffix(a.raw, []byte("\n")) {
				b.WriteString("\n")
			}
			b.WriteString("```\n")
		case a.Problem != "":
			fmt.Fprintf(&b, "  %s\n", a.Problem)
		case a.Summary != "":
			fmt.Fprintf(&b, "  %s\n", a.Summary)
		default:
			b.WriteString("  (no summary field)\n")
		}
		if a.Invalid && len(a.Violations) > 0 {
			more := ""
			if n := len(a.Violations) - 1; n > 0 {
				more = fmt.Sprintf(" (and %d more)", n)
			}
			fmt.Fprintf(&b, "  invalid: %s%s\n", a.Violations[0], more)
		}
	}
	if r.NextCursor != "" {
		fmt.Fprintf(&b, more, r.NextCursor)
	}
	return b.String()
}

// header is an entry's first line.
func (a Artifact) header() string {
	if a.Problem != "" {
		return fmt.Sprintf("- **%s** · ~%d tokens\n", a.Name, a.Tokens)
	}
	schema, by := a.Schema, a.ProducedBy
	if schema == "" {
		schema = "(none)"
	}
	if by == "" {
		by = "(unknown)"
	}
	mark := ""
	if a.Invalid {
		mark = " · INVALID"
	}
	return fmt.Sprintf("- **%s** · schema %s · by %s · ~%d tokens%s\n", a.Name, schema, by, a.Tokens, mark)
}

// Waves lists the waves (folders of .foundry/blackboard/), sorted.
func (b *Board) Waves(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(b.fsys, Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list waves: %w", err)
	}
	waves := []string{}
	for _, e := range entries {
		if e.IsDir() {
			waves = append(waves, e.Name())
		}
	}
	slices.Sort(waves)
	return waves, nil
}

// Agents lists the agents of a wave, the names of its artifact files
// without ".json", sorted. It reads the folder's names alone and validates
// nothing, so it stays cheap on a large wave (shell completion calls it).
func (b *Board) Agents(ctx context.Context, wave string) ([]string, error) {
	wave, err := sanitizeField("wave", wave)
	if err != nil {
		return nil, err
	}
	names, err := b.artifactNames(ctx, wave)
	if err != nil {
		return nil, err
	}
	return agentsOf(names), nil
}

// agentsOf returns the agents of artifact file names.
func agentsOf(names []string) []string {
	agents := make([]string, len(names))
	for i, n := range names {
		agents[i] = strings.TrimSuffix(n, ".json")
	}
	return agents
}

// Read returns one page of a wave's artifacts, by file name.
func (b *Board) Read(ctx context.Context, req ReadRequest) (ReadResult, error) {
	wave, err := sanitizeField("wave", req.Wave)
	if err != nil {
		return ReadResult{}, err
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return ReadResult{}, fmt.Errorf("%w %d: use 1–%d", ErrInvalidLimit, req.Limit, MaxLimit)
	}
	after := ""
	if req.Cursor != "" {
		if after, err = decodeCursor(wave, req.Cursor); err != nil {
			return ReadResult{}, err
		}
	}
	var names []string
	agent := ""
	if req.Agent != "" {
		// One agent's artifact: its exact name, proven without listing
		// the wave when the file system allows (see agentArtifact).
		if names, err = b.agentArtifact(ctx, wave, req.Agent); err != nil {
			return ReadResult{}, err
		}
		agent = strings.TrimSuffix(names[0], ".json")
	} else if names, err = b.artifactNames(ctx, wave); err != nil {
		return ReadResult{}, err
	}
	res := ReadResult{Wave: wave, Full: req.Full, Artifacts: []Artifact{}, Total: len(names), Agent: agent}
	start := 0
	if after != "" {
		start, _ = slices.BinarySearch(names, after)
		if start < len(names) && names[start] == after {
			start++
		}
	}
	end := min(start+limit, len(names))
	if req.Full && req.MaxBytes > 0 {
		if err := b.checkFullSize(wave, names[start:end], req.MaxBytes); err != nil {
			return ReadResult{}, err
		}
	}
	var reg Contracts
	err = b.readChecked(ctx, wave, names[start:end], req.Full, &reg, func(a Artifact) {
		res.Artifacts = append(res.Artifacts, a)
	})
	if err != nil {
		return ReadResult{}, err
	}
	if end < len(names) {
		res.NextCursor = encodeCursor(wave, names[end-1])
	}
	return res, nil
}

// readChecked reads the artifacts names of wave, in order, through the
// wave's folder (see [Board.openWave]), checks each readable one against
// its contract and hands each to use. *reg is the registry they are
// checked with, loaded on first use.
func (b *Board) readChecked(ctx context.Context, wave string, names []string, full bool, reg *Contracts, use func(Artifact)) error {
	folder := b.openWave(wave)
	defer folder.Close()
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		a, data := b.artifact(folder, wave, name, full)
		if a.Problem == "" {
			if *reg == nil {
				var err error
				if *reg, err = b.contracts(); err != nil {
					return err
				}
			}
			check(*reg, &a, data)
		}
		use(a)
	}
	return nil
}

// checkFullSize returns a [*FullTooLargeError] when the artifact files
// names of wave are larger together than max. Files that cannot be stat'ed
// count nothing: reading them reports their problem.
func (b *Board) checkFullSize(wave string, names []string, max int64) error {
	var total int64
	for _, name := range names {
		if fi, err := fs.Stat(b.fsys, path.Join(Dir, wave, name)); err == nil {
			total += fi.Size()
		}
	}
	if total > max {
		return &FullTooLargeError{Wave: wave, Bytes: total, Max: max}
	}
	return nil
}

// contracts returns the registry reads and writes validate with.
func (b *Board) contracts() (Contracts, error) {
	if b.opts.LoadContracts != nil {
		return b.opts.LoadContracts()
	}
	return contracts.Load(b.fsys)
}

// check marks a as invalid when its contract rejects it, so a reader never
// builds on an artifact that would not be accepted today (one written by
// hand, or before its contract tightened).
func check(reg Contracts, a *Artifact, data []byte) {
	if a.Schema == "" {
		a.Invalid = true
		a.Violations = []Violation{{Pointer: "#", Message: `no "schema" field naming its contract`}}
		return
	}
	vs, err := reg.Validate(a.Schema, data)
	switch {
	case errors.Is(err, contracts.ErrUnknownContract):
		a.Invalid = true
		a.Violations = []Violation{{Pointer: "#/schema", Message: fmt.Sprintf("unknown contract %q", a.Schema)}}
	case err != nil:
		a.Invalid = true
		a.Violations = []Violation{{Pointer: "#", Message: err.Error()}}
	case len(vs) > 0:
		a.Invalid = true
		for _, v := range vs {
			a.Violations = append(a.Violations, Violation{Pointer: v.Pointer, Message: v.Message})
		}
	}
}

// artifactNames lists a wave's artifact file names, sorted; an unknown wave
// is an error listing the waves.
func (b *Board) artifactNames(ctx context.Context, wave string) ([]string, error) {
	dir := path.Join(Dir, wave)
	entries, err := fs.ReadDir(b.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		waves, werr := b.Waves(ctx)
		if werr != nil {
			return nil, werr
		}
		if len(waves) == 0 {
			return nil, fmt.Errorf("%w %q (the blackboard has no waves yet)", ErrUnknownWave, wave)
		}
		return nil, fmt.Errorf("%w %q (waves: %s)", ErrUnknownWave, wave, strings.Join(waves, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("read wave %s: %w", wave, err)
	}
	// A wave is a folder, as a write makes it and as Waves, validate --auto
	// and doctor see it: a symbolic link named like one, which ReadDir
	// followed, is not read.
	if fi, err := fs.Lstat(b.fsys, dir); err != nil {
		return nil, fmt.Errorf("read wave %s: %w", wave, err)
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("read wave %s: %s is a symbolic link, not a folder; a wave is a folder of %s/", wave, dir, Dir)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && artifacts.IsName(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// agentArtifact returns the one artifact file name of agent in wave, with
// the errors of a listing: an unknown wave lists the waves, a wave that is
// a symbolic link is refused (both from [Board.artifactNames]), an invalid
// agent name is refused, and an agent with no artifact lists the wave's
// agents ([noArtifact]). When the wave is a folder that can be read and
// the file is there under its exact name (see [exactName]), the wave is
// not listed: on a large wave the listing costs milliseconds. Anything
// else (a miss, an error, a folder that may ignore case) takes the
// listing, which decides as it always has.
func (b *Board) agentArtifact(ctx context.Context, wave, agent string) ([]string, error) {
	if name, ok := b.exactArtifact(wave, agent); ok {
		return []string{name}, nil
	}
	names, err := b.artifactNames(ctx, wave)
	if err != nil {
		return nil, err
	}
	if agent, err = sanitizeField("agent", agent); err != nil {
		return nil, err
	}
	if !slices.Contains(names, agent+".json") {
		return nil, noArtifact(agent, wave, names)
	}
	return []string{agent + ".json"}, nil
}

// exactArtifact returns the artifact file name of agent in wave and true
// when the listing would have found it ([Board.artifactNames]): the wave
// is a folder, not a link, that can be opened for reading (a listing would
// fail otherwise), and it holds a file, not a folder, under the agent's
// exact name.
func (b *Board) exactArtifact(wave, agent string) (string, bool) {
	agent, err := Sanitize(agent)
	if err != nil {
		return "", false
	}
	name := agent + ".json" // an artifact's name: Sanitize refuses a temp file's
	dir := path.Join(Dir, wave)
	if fi, err := fs.Lstat(b.fsys, dir); err != nil || !fi.IsDir() {
		return "", false
	}
	f, err := b.fsys.Open(dir)
	if err != nil {
		return "", false
	}
	f.Close()
	if !exactName(b.fsys, dir, name) {
		return "", false
	}
	return name, true
}

// exactName reports whether the folder dir of fsys holds an entry, not a
// folder, named exactly name, without listing dir. An lstat of name alone
// does not prove it where the folder ignores case (macOS, a casefold
// folder of ext4): there "Agent.json" finds "agent.json". So name's
// letters are swapped to the other case (it has some: it ends in .json)
// and looked up too: no such file means the folder tells case apart, and
// the lstat found name itself. When the swapped name is found, it is
// either the same file (the folder ignores case) or, rarely, a file of its
// own; exactName reports false for both and the caller lists the folder,
// which tells them apart on any file system (a git view's file
// information cannot be compared with os.SameFile).
func exactName(fsys fs.FS, dir, name string) bool {
	fi, err := fs.Lstat(fsys, path.Join(dir, name))
	if err != nil || fi.IsDir() {
		return false
	}
	_, err = fs.Lstat(fsys, path.Join(dir, swapCase(name)))
	return errors.Is(err, fs.ErrNotExist)
}

// swapCase returns s with its ASCII letters in the other case.
func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

func noArtifact(agent, wave string, names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("%w by %q in wave %s (the wave is empty)", ErrNoArtifact, agent, wave)
	}
	return fmt.Errorf("%w by %q in wave %s (agents: %s)", ErrNoArtifact, agent, wave, strings.Join(agentsOf(names), ", "))
}

// openWave opens the folder of wave for reading its artifacts, when the
// board reads a project's confined root: a read through it costs four
// system calls, where the root opens every folder on each artifact's path.
// It returns nil anywhere else (a git view), or when the folder cannot be
// opened; the artifacts are then read through the board's file system.
func (b *Board) openWave(wave string) *confined.Folder {
	return confined.FolderOf(b.fsys, path.Join(Dir, wave))
}

// artifact reads one artifact file and returns it with the file's bytes.
// A file that cannot be read or parsed has a Problem. folder, when not
// nil, is the wave's (see [Board.openWave]): a regular file is read
// through it, anything else (a link, a file over its limit, an error)
// through the board's file system, whose answer decides.
func (b *Board) artifact(folder *confined.Folder, wave, name string, full bool) (Artifact, []byte) {
	a := Artifact{Name: name, Agent: strings.TrimSuffix(name, ".json"), Path: path.Join(Dir, wave, name)}
	data, ok := folder.ReadRegular(name, confined.LimitFor(a.Path).Max)
	var err error
	if !ok {
		data, err = fs.ReadFile(b.fsys, a.Path)
	}
	if err != nil {
		// One unreadable file (a dangling link, no permission) is shown
		// with its problem; it does not hide the rest of the wave.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		a.Problem = "cannot be read: " + err.Error()
		return a, nil
	}
	a.Bytes = len(data)
	a.Tokens = tokens.Estimate(len(data))
	if full {
		a.raw = data
	}
	v, err := contracts.Decode(data)
	if err != nil {
		a.Problem = decodeProblem(err)
		return a, data
	}
	obj, ok := v.(map[string]any)
	if !ok {
		a.Problem = fmt.Sprintf("not a JSON object (%s)", kindOf(v))
		return a, data
	}
	a.Schema = stringField(obj, "schema")
	a.ProducedBy = stringField(obj, "producedBy")
	for _, f := range summaryFields {
		if s := oneLine(stringField(obj, f)); s != "" {
			a.Summary = cut(s, MaxSummary)
			break
		}
	}
	if full {
		a.Data = json.RawMessage(data)
	}
	return a, data
}

// stringField returns obj[key] when it is a JSON string.
func stringField(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	return s
}

// oneLine folds whitespace runs into single spaces, so a value never breaks
// an entry's shape.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to at most n characters, ending with "…" when cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// A cursor names the wave and the last artifact returned, so pages stay
// right while artifacts are added or removed between calls.
const cursorPrefix = "bb1:"

func encodeCursor(wave, after string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + wave + "/" + after))
}

func decodeCursor(wave, c string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	rest, ok := strings.CutPrefix(string(raw), cursorPrefix+wave+"/")
	if err != nil || !ok || rest == "" || strings.Contains(rest, "/") {
		return "", fmt.Errorf("%w %q for wave %s: pass the nextCursor of a previous read of this wave", ErrInvalidCursor, c, wave)
	}
	return rest, nil
}
