package blackboard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"strings"
	"time"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/jsonindent"
	"github.com/foundryhq/foundry/tokens"
)

// Dir holds the waves, relative to the project root.
const Dir = artifacts.Dir

// MaxDataBytes bounds the artifact data a write accepts: 8 MiB.
const MaxDataBytes = artifacts.MaxBytes

// Contracts validates artifacts and names the content they were accepted
// under; *contracts.Registry is one.
type Contracts interface {
	Validate(id string, doc []byte) ([]contracts.Violation, error)
	Digest(id string) (string, error)
}

// Recorder receives one event per write (blackboard_write) or rejection
// (gate_blocked); *tokens.Log is one.
type Recorder interface{ Record(kind string) }

// Options configures a [Board].
type Options struct {
	// Root is the project root on disk (the folder holding .foundry/).
	// Writes need it; leave it empty for a revision or the index.
	Root string
	// LoadContracts, when set, is called for the contracts where a read
	// or write first needs them, in place of loading the project's
	// (embedded plus .foundry/schemas/): a server passes the registry it
	// keeps.
	LoadContracts func() (Contracts, error)
	// Events, when set, records blackboard_write and gate_blocked events.
	Events Recorder
	// Clearings, when set, spares a write the listing of its wave's
	// folder (and the contracts lock's) to remove stale temp files when
	// the same process cleared it less than [ClearInterval] ago: a server
	// passes the one it keeps. Without it every write clears.
	Clearings *Clearings
}

// Board is the blackboard of one project, read through an fs.FS rooted at
// the project root.
type Board struct {
	fsys fs.FS
	opts Options
}

// Open returns the blackboard of the project in fsys.
func Open(fsys fs.FS, opts Options) *Board { return &Board{fsys: fsys, opts: opts} }

// WriteRequest is one artifact to write.
type WriteRequest struct {
	Wave   string // sanitised with [Sanitize]
	Agent  string // sanitised with [Sanitize]; also the artifact's producedBy
	Schema string // contract id, e.g. finding.v1; also the artifact's schema
	Data   []byte // a JSON object of at most MaxDataBytes
}

// Violation is one reason a contract rejected an artifact, in the form
// "<pointer>: <message>".
type Violation struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func (v Violation) String() string { return v.Pointer + ": " + v.Message }

// WriteResult is the outcome of a write: written, or rejected by the
// contract with nothing written.
type WriteResult struct {
	Written bool   `json:"written"`
	Wave    string `json:"wave"`  // sanitised
	Agent   string `json:"agent"` // sanitised
	Schema  string `json:"schema"`
	// Path, Bytes and Tokens describe the written file.
	Path   string `json:"path,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
	Tokens int    `json:"tokens,omitempty"`
	// ContractDigest is the content hash of the contract the artifact was
	// accepted under ("sha256:<hex>").
	ContractDigest string `json:"contractDigest,omitempty"`
	// ArtifactDigest is the content hash of the file written
	// ("sha256:<hex>").
	ArtifactDigest string `json:"artifactDigest,omitempty"`
	// Replaced says the write replaced an artifact the agent had written to
	// the wave before.
	Replaced bool `json:"replaced,omitempty"`
	// Violations say why the contract rejected the artifact.
	Violations []Violation `json:"violations,omitempty"`
}

// Text renders the result as blackboard_write returns it:
//
//	Wrote .foundry/blackboard/audit/appsec-reviewer.json (2841 bytes, ~711 tokens).
//	Return to your caller ONLY this path and a summary of at most 300 tokens.
//
// or, for a rejection:
//
//	Rejected: artifact does not satisfy finding.v1.
//	- #: missing required property "failureScenario"
//	Fix and call again.
func (r WriteResult) Text() string {
	var b strings.Builder
	if r.Written {
		fmt.Fprintf(&b, "Wrote %s (%d bytes, ~%d tokens).\n", r.Path, r.Bytes, r.Tokens)
		b.WriteString("Return to your caller ONLY this path and a summary of at most 300 tokens.\n")
		return b.String()
	}
	r.writeViolations(&b)
	b.WriteString("Fix and call again.\n")
	return b.String()
}

// HumanText renders the result for a person at a terminal: the lines of
// [WriteResult.Text] without the instructions meant for an agent, and
// saying when the write replaced an earlier artifact:
//
//	Replaced .foundry/blackboard/audit/appsec-reviewer.json (2841 bytes, ~711 tokens).
func (r WriteResult) HumanText() string {
	var b strings.Builder
	if r.Written {
		verb := "Wrote"
		if r.Replaced {
			verb = "Replaced"
		}
		fmt.Fprintf(&b, "%s %s (%d bytes, ~%d tokens).\n", verb, r.Path, r.Bytes, r.Tokens)
		return b.String()
	}
	r.writeViolations(&b)
	b.WriteString("Nothing was written; fix the artifact and write it again.\n")
	return b.String()
}

func (r WriteResult) writeViolations(b *strings.Builder) {
	fmt.Fprintf(b, "Rejected: artifact does not satisfy %s.\n", r.Schema)
	for _, v := range r.Violations {
		fmt.Fprintf(b, "- %s\n", v)
	}
}

// Write sets the artifact's schema and producedBy from the request,
// validates it against its contract and, when it is valid, writes
// .foundry/blackboard/<wave>/<agent>.json atomically. A rejected artifact
// is a result with Written false, not an error: nothing is written. Errors
// are for unusable requests (a name, data that is not a JSON object, an
// unknown contract) and failed writes.
func (b *Board) Write(ctx context.Context, req WriteRequest) (WriteResult, error) {
	if b.opts.Root == "" {
		return WriteResult{}, fmt.Errorf("write artifact: %w", ErrReadOnly)
	}
	wave, err := sanitizeField("wave", req.Wave)
	if err != nil {
		return WriteResult{}, err
	}
	agent, err := sanitizeField("agent", req.Agent)
	if err != nil {
		return WriteResult{}, err
	}
	res := WriteResult{Wave: wave, Agent: agent, Schema: req.Schema}
	// The contract before the data: an unknown contract id is the mistake
	// to fix first, whatever the data holds (nothing, not an object).
	reg, err := b.contracts()
	if err != nil {
		return res, err
	}
	digest, err := reg.Digest(req.Schema)
	if err != nil {
		return res, err
	}
	obj, err := decodeObject(req.Data)
	if err != nil {
		return res, err
	}
	if found := FindSecrets(obj); len(found) > 0 {
		b.record(tokens.KindGateBlocked)
		return res, fmt.Errorf("write artifact: %w", &SecretError{Secrets: found})
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	doc, err := stamp(obj, req.Schema, agent)
	if err != nil {
		return res, err
	}
	vs, err := reg.Validate(req.Schema, doc)
	if err != nil {
		return res, err
	}
	if len(vs) > 0 {
		for _, v := range vs {
			res.Violations = append(res.Violations, Violation{Pointer: v.Pointer, Message: v.Message})
		}
		b.record(tokens.KindGateBlocked)
		return res, nil
	}
	res.ContractDigest = digest
	if err := ctx.Err(); err != nil {
		return res, err
	}

	root, err := confined.Open(b.opts.Root)
	if err != nil {
		return res, fmt.Errorf("write artifact: %w", err)
	}
	defer root.Close()
	if err := root.CheckFoundry(); err != nil {
		return res, fmt.Errorf("write artifact: %w", err)
	}
	// A symbolic link inside .foundry/ (or .foundry itself) could take the
	// write outside the project: refuse every folder on the way that is one.
	for _, p := range []string{path.Join(Dir, wave, agent+".json"), LockDir + "/" + req.Schema} {
		if err := root.NoFollow(p); err != nil {
			return res, fmt.Errorf("write artifact: %w", err)
		}
	}
	// The lock comes first: an accepted artifact on disk always has the
	// contract content it was accepted under on record.
	locked, err := writeLock(root, req.Schema, res.ContractDigest)
	if err != nil {
		return res, err
	}
	// A write that fails after the lock takes back the lock entry it made:
	// no artifact was accepted under it. It takes back the wave folder it
	// made too, which would list as a wave of no artifacts.
	madeWave := ""
	fail := func(err error) (WriteResult, error) {
		if madeWave != "" {
			_ = root.Remove(madeWave) // only while empty
		}
		if locked {
			_ = root.Remove(LockDir + "/" + req.Schema)
		}
		return res, fmt.Errorf("write artifact: %w", err)
	}
	if err := root.MkdirAll(Dir); err != nil {
		return fail(err)
	}
	// The lock keeps an archive of the wave from moving it mid-write.
	unlock, err := root.Lock(ctx, WriteLock)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = unlock() }()
	waveDir := path.Join(Dir, wave)
	_, statErr := root.FS().(fs.StatFS).Stat(waveDir)
	if err := root.MkdirAll(waveDir); err != nil {
		return fail(err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		madeWave = waveDir
	}
	// Writers of older versions take no lock, and the contracts lock entry
	// is written before the lock is taken, so only temp files older than
	// any live write can be a killed writer's leftovers. Listing a folder
	// costs its size: a long-running process clears each one once per
	// ClearInterval (see Clearings).
	stale := time.Now().Add(-confined.StaleAge)
	for _, dir := range []string{waveDir, LockDir} {
		if b.opts.Clearings.due(b.opts.Root, dir) {
			root.RemoveStale(dir, stale)
		}
	}
	target := path.Join(Dir, wave, agent+".json")
	if _, err := root.FS().(fs.StatFS).Stat(target); err == nil {
		res.Replaced = true
	}
	if err := root.WriteFile(target, doc, 0o644); err != nil {
		return fail(err)
	}
	sum := sha256.Sum256(doc)
	res.ArtifactDigest = "sha256:" + hex.EncodeToString(sum[:])
	res.Written = true
	res.Path = path.Join(Dir, wave, agent+".json")
	res.Bytes = len(doc)
	res.Tokens = tokens.Estimate(len(doc))
	b.record(tokens.KindBlackboardWrite)
	return res, nil
}

func (b *Board) record(kind string) {
	if b.opts.Events != nil {
		b.opts.Events.Record(kind)
	}
}

// AsWritten returns the document [Board.Write] validates for data written
// as agent against contract schema: data's object with "schema" and
// "producedBy" set. Errors are those Write returns for an unusable agent
// name or data that is not a JSON object.
func AsWritten(data []byte, schema, agent string) ([]byte, error) {
	agent, err := sanitizeField("agent", agent)
	if err != nil {
		return nil, err
	}
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	return stamp(obj, schema, agent)
}

// stamp sets the fields Write owns and encodes the artifact as it is
// stored: two-space indentation, keys sorted at every level, no HTML
// escaping, a final newline. A character that is not text (a C1 control,
// DEL, a bidirectional control: see package ctrl), which JSON allows raw in
// a string, is stored as its \u escape: the artifact means the same, and a
// diff or a terminal shows it inert, where raw it would act on the display.
func stamp(obj map[string]any, schema, agent string) ([]byte, error) {
	obj["schema"] = schema
	obj["producedBy"] = agent
	compact, err := jsonindent.Encode(obj)
	if err != nil {
		return nil, fmt.Errorf("encode artifact: %w", err)
	}
	// The limit holds for the file too, which every reader applies:
	// indentation and escapes make it larger than the data given.
	// Indentation grows with the square of the nesting (data nested
	// thousands deep is small as given and gigabytes as stored), so it is
	// counted before it is done.
	// Added saturates at math.MaxInt, which an int of 32 bits reaches: the
	// sum saturates too.
	if added := jsonindent.Added(compact); added > MaxDataBytes-len(compact) {
		n := len(compact) + min(added, math.MaxInt-len(compact))
		return nil, fmt.Errorf("%w: %d bytes as stored (indented), at most %d (8 MiB)", ErrTooLarge, n, MaxDataBytes)
	}
	doc := jsonindent.Indent(compact)
	if ctrl.Has(doc) {
		doc = []byte(ctrl.Escape(string(doc)))
	}
	if len(doc) > MaxDataBytes {
		return nil, fmt.Errorf("%w: %d bytes as stored (indented, with escapes), at most %d (8 MiB)", ErrTooLarge, len(doc), MaxDataBytes)
	}
	return doc, nil
}

// decodeObject parses data as one JSON object, keeping numbers exact.
func decodeObject(data []byte) (map[string]any, error) {
	if len(data) > MaxDataBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d (8 MiB)", ErrTooLarge, len(data), MaxDataBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w, got nothing", ErrNotObject)
	}
	v, err := contracts.Decode(data)
	if err != nil {
		return nil, newJSONError(err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w, got %s", ErrNotObject, kindOf(v))
	}
	return obj, nil
}

// jsonError is data the validation core's decoder did not accept. Data
// that is not parseable JSON is [ErrInvalidJSON]; parseable JSON the
// decoder refuses (a hostile number, too many values) is not, and says so.
// Either way it is the decoder's *contracts.ParseError, whose position
// every Foundry report shares.
type jsonError struct{ err error }

func newJSONError(err error) error { return &jsonError{err} }

func (e *jsonError) Error() string {
	if refused(e.err) {
		return "data " + e.err.Error() // "data refused at L:C: …"
	}
	return ErrInvalidJSON.Error() + ": " + jsonErrText(e.err)
}

func (e *jsonError) Unwrap() []error {
	if refused(e.err) {
		return []error{e.err}
	}
	return []error{ErrInvalidJSON, e.err}
}

// refused reports whether err is the decoder refusing parseable JSON that
// validation cannot take, rather than JSON that does not parse.
func refused(err error) bool {
	return errors.Is(err, contracts.ErrHostileNumber) || errors.Is(err, contracts.ErrTooManyValues)
}

// decodeProblem states a decoding error of a stored artifact, located: as
// the decoder words a refusal ("refused at L:C: …"), "not valid JSON: …"
// for JSON that does not parse.
func decodeProblem(err error) string {
	if refused(err) {
		return err.Error()
	}
	return "not valid JSON: " + jsonErrText(err)
}

// jsonErrText states a decoding error with its line and column.
func jsonErrText(err error) string {
	var pe *contracts.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%v (line %d, column %d)", pe.Err, pe.Line, pe.Column)
	}
	return err.Error()
}

func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
