package contracts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/schemas"
)

// LocalDir is where a project keeps its own contracts, relative to the
// project root.
const LocalDir = ".foundry/schemas"

const (
	contractSuffix = ".schema.json"
	defsSuffix     = ".defs.json"
)

// IsLocalFile reports whether [Load] reads the file of LocalDir named name
// (a contract or a defs file; a name of the wrong form is read too, and
// left out with its problem).
func IsLocalFile(name string) bool {
	return strings.HasSuffix(name, contractSuffix) || strings.HasSuffix(name, defsSuffix)
}

// Registry is the set of contracts a project can validate against: the
// embedded ones plus its own. It is safe for concurrent use.
type Registry struct {
	emb   *set // the embedded contracts, shared by every registry
	local *set // nil when the project adds no contract of its own
	ids   []string
	// broken lists the local schema files Load left out, in path order;
	// brokenIDs maps the contract id each would define to its problem.
	broken    []BrokenFile
	brokenIDs map[string]error
}

// BrokenFile is a project-local schema file [Load] left out: badly named,
// unreadable (over its size limit, a link out of the project), not
// parseable JSON, or a redefinition of an embedded file. The other
// contracts load without it; using the contract it would define fails
// with Err.
type BrokenFile struct {
	Path string // project-relative, e.g. .foundry/schemas/incident.v1.schema.json
	Err  error  // names Path
}

// set is a group of schema files that resolve each other by file name, with
// a lazily compiled schema per contract id.
type set struct {
	files   map[string]*file  // file name -> content
	entries map[string]*entry // contract id -> compiled schema, for the ids this set compiles

	mu       sync.Mutex // guards compiler, which is not safe for concurrent use
	compiler *jsonschema.Compiler
}

type entry struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// file is the content of one schema file of a set. An embedded file is
// read from schemas.FS on first use, as it is compiled on first use: a
// process reads the files of the contracts it uses (3 of the 15 to
// validate findings), not every file, each a copy out of the binary.
type file struct {
	once     sync.Once
	embedded string // its name in schemas.FS; "" when b is given
	b        []byte
	err      error
}

// content returns the file's bytes, reading an embedded file once.
func (f *file) content() ([]byte, error) {
	f.once.Do(func() {
		if f.embedded != "" {
			f.b, f.err = fs.ReadFile(schemas.FS, f.embedded)
			if f.err != nil {
				f.err = fmt.Errorf("read embedded contract %s: %w", f.embedded, f.err)
			}
		}
	})
	return f.b, f.err
}

// embedded is the process-wide set of embedded contracts: read once, and
// each contract compiled on first use.
var embedded = sync.OnceValues(loadEmbedded)

// loadEmbedded lists the embedded contracts into a new set, whose files
// are read on first use.
func loadEmbedded() (*set, error) {
	des, err := fs.ReadDir(schemas.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("list embedded contracts: %w", err)
	}
	s := &set{files: make(map[string]*file, len(des)), entries: make(map[string]*entry, len(des))}
	for _, de := range des {
		name := de.Name()
		if de.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		s.files[name] = &file{embedded: name}
		if id, ok := strings.CutSuffix(name, contractSuffix); ok {
			s.entries[id] = &entry{}
		}
	}
	return s, nil
}

// Load returns the embedded contracts plus the project-local ones found in
// .foundry/schemas/*.schema.json of project, an fs.FS rooted at the project
// root (nil means none). Local shared pieces (*.defs.json) are loaded too,
// for local contracts to $ref. One bad local file does not take the others
// down: a file that is badly named, unreadable, not parseable JSON, or
// redefines an embedded file with different content (an error wrapping
// [ErrContractRedefined]; identical content is fine) is left out and listed
// by [Registry.Broken], and using the contract it would define fails with
// its error. Nothing is compiled here: Load is cheap enough to call per
// command. The error is for a folder that cannot be listed or read.
func Load(project fs.FS) (*Registry, error) {
	emb, err := embedded()
	if err != nil {
		return nil, fmt.Errorf("load contracts: %w", err)
	}
	return loadOver(emb, project)
}

// loadOver is Load over the embedded set emb.
func loadOver(emb *set, project fs.FS) (*Registry, error) {
	r := &Registry{emb: emb}
	if project != nil {
		if err := r.loadLocal(project); err != nil {
			return nil, fmt.Errorf("load contracts: %w", err)
		}
	}
	for _, s := range []*set{emb, r.local} {
		if s == nil {
			continue
		}
		for id := range s.entries {
			if _, broken := r.brokenIDs[id]; !broken {
				r.ids = append(r.ids, id)
			}
		}
	}
	slices.Sort(r.ids)
	return r, nil
}

// Broken returns the local schema files Load left out, in path order.
func (r *Registry) Broken() []BrokenFile { return slices.Clone(r.broken) }

func (r *Registry) loadLocal(project fs.FS) error {
	contracts, err := fs.Glob(project, LocalDir+"/*"+contractSuffix)
	if err != nil {
		return err
	}
	defs, err := fs.Glob(project, LocalDir+"/*"+defsSuffix)
	if err != nil {
		return err
	}
	emb := r.emb
	for _, p := range append(contracts, defs...) {
		name := path.Base(p)
		if _, ok := ParseFileName(name); !ok {
			r.leaveOut(p, fmt.Errorf("%s: name must be <noun>.v<major>%s (lowercase)", p, suffixOf(name)))
			continue
		}
		b, err := fs.ReadFile(project, p)
		if errors.Is(err, confined.ErrTooLarge) || errors.Is(err, confined.ErrOutside) {
			// A hostile file must not take every contract down with it:
			// doctor's contracts.local reports it.
			r.leaveOut(p, fmt.Errorf("read %s: %w", p, err))
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		doc, err := parse(b)
		if err != nil {
			r.leaveOut(p, fmt.Errorf("%s: %w", p, err))
			continue
		}
		if d := depthOf(doc); d > MaxSchemaDepth {
			r.leaveOut(p, fmt.Errorf("%s: %w: %d levels of arrays and objects, at most %d", p, ErrSchemaTooDeep, d, MaxSchemaDepth))
			continue
		}
		if ef, ok := emb.files[name]; ok {
			eb, err := ef.content()
			if err != nil {
				return err
			}
			edoc, err := parse(eb)
			if err != nil {
				return fmt.Errorf("embedded %s: %w", name, err)
			}
			if !reflect.DeepEqual(doc, edoc) {
				r.leaveOut(p, fmt.Errorf("%s: %w (%s differs from the embedded version)", p, ErrContractRedefined, idOf(name)))
			}
			continue
		}
		if r.local == nil {
			r.local = &set{files: map[string]*file{}, entries: map[string]*entry{}}
			for n, ef := range emb.files {
				r.local.files[n] = ef
			}
		}
		r.local.files[name] = &file{b: b}
		if id, ok := strings.CutSuffix(name, contractSuffix); ok {
			r.local.entries[id] = &entry{}
		}
	}
	slices.SortFunc(r.broken, func(a, b BrokenFile) int { return strings.Compare(a.Path, b.Path) })
	return nil
}

// MaxSchemaDepth bounds the nesting of a project-local schema file: the
// JSON Schema library's compilation takes time that grows faster than the
// square of a schema's depth (27 s for a 74 KB schema of subschemas 4,000
// levels deep), and the embedded contracts nest at most 9 levels.
const MaxSchemaDepth = 256

// depthOf returns the nesting of arrays and objects in v, a parsed
// document: 0 for a scalar.
func depthOf(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, depthOf(e))
		}
	case []any:
		for _, e := range v {
			d = max(d, depthOf(e))
		}
	default:
		return 0
	}
	return d + 1
}

// leaveOut records the local file p as broken with err; a contract file's
// id then fails with err wherever it is used. (A redefined embedded
// contract keeps its embedded meaning, so its id fails too: which of the
// two was meant is the user's to settle.)
func (r *Registry) leaveOut(p string, err error) {
	r.broken = append(r.broken, BrokenFile{Path: p, Err: err})
	if id, ok := strings.CutSuffix(path.Base(p), contractSuffix); ok {
		if r.brokenIDs == nil {
			r.brokenIDs = map[string]error{}
		}
		r.brokenIDs[id] = err
	}
}

func suffixOf(name string) string {
	if strings.HasSuffix(name, defsSuffix) {
		return defsSuffix
	}
	return contractSuffix
}

func idOf(name string) string {
	if id, ok := strings.CutSuffix(name, contractSuffix); ok {
		return id
	}
	return strings.TrimSuffix(name, defsSuffix)
}

// compiled returns the compiled schema of contract id, compiling it (and
// the files it references) on first use. The compiler asks the set for each
// file as a $ref first reaches it, so only the files of the contracts used
// are parsed (and checked against the metaschema), not every file of the
// set: validating one finding parses 3 of the 15 embedded files.
func (s *set) compiled(id string) (*jsonschema.Schema, error) {
	e := s.entries[id]
	e.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.compiler == nil {
			s.compiler = newCompiler(compileOptions{assertFormat: true, loader: setLoader{s}})
		}
		e.schema, e.err = s.compiler.Compile(baseURL + id + contractSuffix)
		if e.err != nil {
			e.err = fmt.Errorf("compile contract %s: %w: %s", id, ErrInvalidSchema, compileErrorText(e.err))
		}
	})
	return e.schema, e.err
}

// setLoader serves the files of a set under baseURL, parsed when the
// compiler first asks for them, and refuses everything else: validation
// never touches the network or the disk, and a $ref names a contract file
// by its name.
type setLoader struct{ s *set }

func (l setLoader) Load(url string) (any, error) {
	name, ok := strings.CutPrefix(url, baseURL)
	if !ok || strings.Contains(name, "/") {
		return nil, fmt.Errorf("load %s: only a contract file, by its name, can be referenced", url)
	}
	f, ok := l.s.files[name]
	if !ok {
		return nil, fmt.Errorf("load %s: no contract file %s", url, name)
	}
	b, err := f.content()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", url, err)
	}
	doc, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", url, err)
	}
	clampLimits(doc)
	return doc, nil
}

// IDs returns the sorted contract ids, e.g. "adr.v1" … "tracker-item.v1",
// embedded and local together, without those of [Registry.Broken] files.
func (r *Registry) IDs() []string { return slices.Clone(r.ids) }

// Has reports whether id names a contract.
func (r *Registry) Has(id string) bool {
	_, ok := r.find(id)
	return ok
}

// Embedded reports whether id names a contract embedded in the binary (as
// opposed to a project-local one, or none).
func (r *Registry) Embedded(id string) bool {
	_, ok := r.emb.entries[id]
	return ok
}

func (r *Registry) find(id string) (*set, bool) {
	if _, ok := r.brokenIDs[id]; ok {
		return nil, false // unknown reports why
	}
	if _, ok := r.emb.entries[id]; ok {
		return r.emb, true
	}
	if r.local != nil {
		if _, ok := r.local.entries[id]; ok {
			return r.local, true
		}
	}
	return nil, false
}

func (r *Registry) unknown(id string) error {
	if err, ok := r.brokenIDs[id]; ok {
		return fmt.Errorf("load contract %s: %w", id, err)
	}
	return fmt.Errorf("%w %q (available: %s)", ErrUnknownContract, id, strings.Join(r.ids, ", "))
}

// Schema returns the raw bytes of contract id's schema file.
func (r *Registry) Schema(id string) ([]byte, error) {
	s, ok := r.find(id)
	if !ok {
		return nil, r.unknown(id)
	}
	f, ok := s.files[id+contractSuffix]
	if !ok {
		return nil, nil
	}
	b, err := f.content()
	if err != nil {
		return nil, err
	}
	return slices.Clone(b), nil
}

// Digest returns "sha256:<hex>" of what contract id means: its schema file
// and, in name order, every shared file it reaches through $ref by file
// name, so an edit of a shared piece changes the digest of each contract
// that uses it. It is what a contracts lock records.
func (r *Registry) Digest(id string) (string, error) {
	s, ok := r.find(id)
	if !ok {
		return "", r.unknown(id)
	}
	files := map[string][]byte{}
	var visit func(name string) error
	visit = func(name string) error {
		if _, done := files[name]; done {
			return nil
		}
		f, ok := s.files[name]
		if !ok {
			f, ok = r.emb.files[name]
		}
		if !ok {
			return nil
		}
		b, err := f.content()
		if err != nil {
			return err
		}
		files[name] = b
		for _, ref := range fileRefs(b) {
			if err := visit(ref); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(id + contractSuffix); err != nil {
		return "", err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for i, n := range names {
		if n == id+contractSuffix && len(names) == 1 {
			// A self-contained contract hashes to the digest of its file
			// alone, which is what `sha256sum` shows.
			h.Write(files[n])
			break
		}
		fmt.Fprintf(h, "%d %s %d\n", i, n, len(files[n]))
		h.Write(files[n])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// fileRefs returns the file names that a schema's $ref values point at
// ("evidence.v1.defs.json#/$defs/item" → "evidence.v1.defs.json").
func fileRefs(schema []byte) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if ref, ok := x.(string); ok && k == "$ref" {
					if name, _, _ := strings.Cut(ref, "#"); name != "" && !strings.Contains(name, "/") {
						out = append(out, name)
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var doc any
	if json.Unmarshal(schema, &doc) == nil {
		walk(doc)
	}
	return out
}

func (r *Registry) compiled(id string) (*jsonschema.Schema, error) {
	s, ok := r.find(id)
	if !ok {
		return nil, r.unknown(id)
	}
	return s.compiled(id)
}

// Validate parses doc (JSON bytes) and validates it against contract id.
// It returns the violations (none means valid) in document order, each with
// its line and column. The error is non-nil only when id is unknown
// ([ErrUnknownContract]), doc is not parseable JSON or holds a number over
// the bounds (*[ParseError]; [ErrHostileNumber]), the validator panicked
// ([ErrValidatorPanic]), or a project-local schema does not compile
// ([ErrInvalidSchema]).
func (r *Registry) Validate(id string, doc []byte) ([]Violation, error) {
	s, err := r.compiled(id)
	if err != nil {
		return nil, err
	}
	v, err := parse(doc)
	if err != nil {
		return nil, err
	}
	return validate(s, v, doc)
}

// validate runs the library's validation of v, turning a panic in it into
// an error wrapping [ErrValidatorPanic]: a document the number guard did
// not foresee must fail its own check, never the process.
func validate(s *jsonschema.Schema, v any, doc []byte) (vs []Violation, err error) {
	defer func() {
		if p := recover(); p != nil {
			vs, err = nil, fmt.Errorf("%w: %v", ErrValidatorPanic, p)
		}
	}()
	return violationsOf(s.Validate(v), v, doc), nil
}

// ValidateAuto validates doc against the contract its own top-level
// "schema" field names, and returns that id. Beyond Validate's errors, a
// document without a "schema" string is a [*SchemaFieldError] that lists
// the available contracts.
func (r *Registry) ValidateAuto(doc []byte) (string, []Violation, error) {
	v, err := parse(doc)
	if err != nil {
		return "", nil, err
	}
	obj, _ := v.(map[string]any)
	id, ok := obj["schema"].(string)
	if !ok {
		return "", nil, &SchemaFieldError{Problem: schemaFieldProblem(v), available: strings.Join(r.ids, ", ")}
	}
	s, err := r.compiled(id)
	if err != nil {
		return id, nil, err
	}
	vs, err := validate(s, v, doc)
	return id, vs, err
}

// ValidateValue validates an already-decoded value (map[string]any and so
// on, from encoding/json with or without UseNumber; other Go values are
// converted through encoding/json). Violations have no line or column and
// are sorted by pointer.
func (r *Registry) ValidateValue(id string, v any) ([]Violation, error) {
	s, err := r.compiled(id)
	if err != nil {
		return nil, err
	}
	v, err = normalize(v)
	if err != nil {
		return []Violation{{Pointer: "#", Message: "is not a JSON value: " + err.Error()}}, nil
	}
	if ptr, err := checkValue(v, "#"); err != nil {
		return []Violation{{Pointer: ptr, Message: err.Error()}}, nil
	}
	return validate(s, v, nil)
}

// SchemaField returns the top-level "schema" string of a JSON document, ""
// when the document is not a JSON object or the field is absent or not a
// string. It is how --auto picks a document's contract.
func SchemaField(doc []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(doc, &top) != nil {
		return ""
	}
	var id string
	if json.Unmarshal(top["schema"], &id) != nil {
		return ""
	}
	return id
}

// normalize returns v if it is made only of the types the JSON Schema
// library understands, and otherwise v converted through encoding/json.
func normalize(v any) (any, error) {
	if isJSONValue(v) {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return parse(b)
}

func isJSONValue(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	case float64:
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	case float32:
		return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
	case map[string]any:
		for _, e := range v {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	}
	return false
}
