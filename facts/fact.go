package facts

// This file defines the Fact value and its file format: parsing front matter
// with line-accurate errors and deterministic formatting.

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/foundryhq/foundry/internal/conflict"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/yamlerr"
)

// Type is the kind of a fact.
type Type string

// The fact types of the seed.
const (
	Decision   Type = "decision"
	Constraint Type = "constraint"
	Convention Type = "convention"
	Domain     Type = "domain"
	Risk       Type = "risk"
	Metric     Type = "metric"
	Glossary   Type = "glossary"
)

// Types lists every fact type in the seed's order.
var Types = []Type{Decision, Constraint, Convention, Domain, Risk, Metric, Glossary}

// Valid reports whether t is one of [Types].
func (t Type) Valid() bool {
	for _, k := range Types {
		if t == k {
			return true
		}
	}
	return false
}

// Confidence is how sure the writer is of a fact.
type Confidence string

// The confidence levels, highest first.
const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

// Valid reports whether c is high, medium or low.
func (c Confidence) Valid() bool { return c == High || c == Medium || c == Low }

// Status says whether a fact is current.
type Status string

// The statuses a fact file can carry. Expiry is not a status: it follows from
// the expires date and the clock.
const (
	Active     Status = "active"
	Superseded Status = "superseded"
	// Retired marks a fact that no longer holds and has no successor
	// (memory retire): kept in git, out of search and INDEX.md.
	Retired Status = "retired"
)

// current reports whether a fact is neither superseded nor retired: the
// facts search and INDEX.md consider, expired or not.
func (f Fact) current() bool { return f.Status.current() }

// current reports whether a fact of this status is neither superseded nor
// retired.
func (st Status) current() bool { return st != Superseded && st != Retired }

// Fact is one atomic durable project fact. The JSON names are those of the
// fact.v1 contract.
type Fact struct {
	ID           string     `json:"id"`
	Type         Type       `json:"type"`
	Title        string     `json:"title"`
	Scope        string     `json:"scope"`
	Tags         []string   `json:"tags"`
	Confidence   Confidence `json:"confidence"`
	Source       string     `json:"source"`
	Created      string     `json:"created"` // YYYY-MM-DD
	Expires      string     `json:"expires,omitempty"`
	Supersedes   string     `json:"supersedes,omitempty"`
	SupersededBy string     `json:"supersededBy,omitempty"`
	Status       Status     `json:"status"`
	// RetiredReason says why a retired fact no longer holds.
	RetiredReason string `json:"retiredReason,omitempty"`
	Body          string `json:"body"`

	// Path is the slash-separated file path relative to the project root,
	// set by readers; it is not part of the file.
	Path string `json:"path,omitempty"`
}

// NotText returns the first front matter field of f that holds a character
// that is not text (see package ctrl), and that character. [Store.Write]
// refuses such a field; a hand-written file can still spell one as a YAML
// escape ("\e", "\u202e"), which a scan of the file's bytes does not see.
// The body is the file's own text and is not looked at.
func (f Fact) NotText() (field string, r rune, ok bool) {
	return ctrl.FindIn(
		ctrl.Field{Name: "id", Text: f.ID}, ctrl.Field{Name: "type", Text: string(f.Type)},
		ctrl.Field{Name: "title", Text: f.Title}, ctrl.Field{Name: "scope", Text: f.Scope},
		ctrl.Field{Name: "tags", Text: strings.Join(f.Tags, " ")}, ctrl.Field{Name: "confidence", Text: string(f.Confidence)},
		ctrl.Field{Name: "source", Text: f.Source}, ctrl.Field{Name: "created", Text: f.Created},
		ctrl.Field{Name: "expires", Text: f.Expires}, ctrl.Field{Name: "supersedes", Text: f.Supersedes},
		ctrl.Field{Name: "supersededBy", Text: f.SupersededBy}, ctrl.Field{Name: "status", Text: string(f.Status)},
		ctrl.Field{Name: "retiredReason", Text: f.RetiredReason},
	)
}

// DateLayout is the layout of created and expires dates.
const DateLayout = "2006-01-02"

// ValidID reports whether id has the form fact-NNNN (at least four digits).
func ValidID(id string) bool { return IDNumber(id) >= 0 }

// IDNumber returns the number of a fact id ("fact-0016" → 16), or -1 when id
// is not a valid id.
func IDNumber(id string) int {
	digits, ok := strings.CutPrefix(id, "fact-")
	if !ok || len(digits) < 4 {
		return -1
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return -1
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// FormatID returns the id for number n, with at least four digits.
func FormatID(n int) string { return fmt.Sprintf("fact-%04d", n) }

// ValidDate reports whether s is a real calendar date in YYYY-MM-DD form.
func ValidDate(s string) bool {
	if len(s) != len(DateLayout) {
		return false
	}
	_, err := time.Parse(DateLayout, s)
	return err == nil
}

// Expired reports whether the fact's expires date lies before today, the
// YYYY-MM-DD date of the caller's clock. A fact stays loaded through its
// expires date.
func (f Fact) Expired(today string) bool {
	return f.Expires != "" && f.Expires < today
}

// Artifact returns the fact as a fact.v1 blackboard artifact: its fields plus
// schema and producedBy. Doctor validates facts this way.
func (f Fact) Artifact(producedBy string) map[string]any {
	tags := make([]any, 0, len(f.Tags))
	for _, t := range f.Tags {
		tags = append(tags, t)
	}
	m := map[string]any{
		"schema":     "fact.v1",
		"producedBy": producedBy,
		"id":         f.ID,
		"type":       string(f.Type),
		"title":      f.Title,
		"scope":      f.Scope,
		"tags":       tags,
		"confidence": string(f.Confidence),
		"source":     f.Source,
		"created":    f.Created,
		"body":       f.Body,
	}
	if f.Status != "" {
		m["status"] = string(f.Status)
	}
	for k, v := range map[string]string{"expires": f.Expires, "supersedes": f.Supersedes, "supersededBy": f.SupersededBy, "retiredReason": f.RetiredReason} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// ParseError describes a fact file that cannot be read. It matches
// [ErrMalformed] with errors.Is.
type ParseError struct {
	Path string // file path as given to Parse; may be empty
	Line int    // 1-based line in the file; 0 when unknown
	Msg  string
	// Conflict is true when the file holds git conflict markers; the error
	// then also matches [ErrConflict].
	Conflict bool
}

func (e *ParseError) Error() string {
	loc := e.Path
	if e.Line > 0 {
		if loc == "" {
			loc = "line " + strconv.Itoa(e.Line)
		} else {
			loc += ":" + strconv.Itoa(e.Line)
		}
	}
	if loc == "" {
		return "parse fact: " + e.Msg
	}
	return loc + ": " + e.Msg
}

// Is makes a *ParseError match [ErrMalformed], and [ErrConflict] when the
// file holds conflict markers.
func (e *ParseError) Is(target error) bool {
	return target == ErrMalformed || e.Conflict && target == ErrConflict
}

const delimiter = "---"

// frontMatterKeys lists the front matter keys in the order Format writes them.
var frontMatterKeys = []string{
	"id", "type", "title", "scope", "tags", "confidence", "source",
	"created", "expires", "supersedes", "supersededBy", "status", "retiredReason",
}

// Parse reads a fact file. path only labels errors. It checks the structure
// (front matter, known keys, id, type, title, date and enum forms) but not the
// write rules such as the title length, so a hand-edited file that bends a
// rule is still readable; doctor validates it against fact.v1. A file with
// git conflict markers is refused wherever they are (the error matches
// [ErrConflict]): its two sides are two different facts, and serving either,
// or the markers, would be a guess.
func Parse(path string, data []byte) (Fact, error) { return parseText(path, data, string(data)) }

// parseOwned is [Parse] of data that the caller hands over and never
// changes again, as a file just read is: the fact's strings are slices of
// it, not of a copy, so reading a fact allocates its size once.
func parseOwned(path string, data []byte) (Fact, error) {
	return parseText(path, data, unsafe.String(unsafe.SliceData(data), len(data)))
}

// parseText is [Parse] of a file's data, with text its content as a
// string, which the fact's strings are slices of.
func parseText(path string, data []byte, text string) (Fact, error) {
	fail := func(line int, format string, args ...any) (Fact, error) {
		return Fact{}, &ParseError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if blocks := conflict.Find(data); len(blocks) > 0 {
		return Fact{}, &ParseError{Path: path, Line: blocks[0].Start, Msg: blocks[0].String(), Conflict: true}
	}
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	end, opened := frontBounds(lines)
	if !opened {
		return fail(1, "missing front matter: the file must start with a %q line", delimiter)
	}
	if end < 0 {
		return fail(len(lines), "front matter is not closed by a %q line", delimiter)
	}
	f, lineOf, ok := parseFrontFast(lines[1:end])
	if !ok {
		var err error
		f, lineOf, err = parseFrontYAML(path, strings.Join(lines[1:end], ""))
		if err != nil {
			return Fact{}, err
		}
	}
	need := func(key, val string) error {
		if val == "" {
			line := lineOf[key]
			if line == 0 {
				line = 2
			}
			_, err := fail(line, "missing %s", key)
			return err
		}
		return nil
	}
	for _, c := range []struct{ key, val string }{{"id", f.ID}, {"type", string(f.Type)}, {"title", f.Title}} {
		if err := need(c.key, c.val); err != nil {
			return Fact{}, err
		}
	}
	checks := []struct {
		key string
		ok  bool
		msg string
	}{
		{"id", ValidID(f.ID), fmt.Sprintf("id %q is not of the form fact-NNNN", f.ID)},
		{"type", f.Type.Valid(), fmt.Sprintf("unknown type %q", f.Type)},
		{"confidence", f.Confidence == "" || f.Confidence.Valid(), fmt.Sprintf("unknown confidence %q", f.Confidence)},
		{"status", f.Status == "" || f.Status == Active || f.Status == Superseded || f.Status == Retired, fmt.Sprintf("unknown status %q", f.Status)},
		{"created", f.Created == "" || ValidDate(f.Created), fmt.Sprintf("created %q is not a YYYY-MM-DD date", f.Created)},
		{"expires", f.Expires == "" || ValidDate(f.Expires), fmt.Sprintf("expires %q is not a YYYY-MM-DD date", f.Expires)},
		{"supersedes", f.Supersedes == "" || ValidID(f.Supersedes), fmt.Sprintf("supersedes %q is not a fact id", f.Supersedes)},
		{"supersededBy", f.SupersededBy == "" || ValidID(f.SupersededBy), fmt.Sprintf("supersededBy %q is not a fact id", f.SupersededBy)},
	}
	for _, c := range checks {
		if !c.ok {
			return fail(lineOf[c.key], "%s", c.msg)
		}
	}
	// The body is the rest of the text, sliced rather than joined from
	// its lines: a copy would double what a store keeps of every fact.
	off := 0
	for _, l := range lines[:end+1] {
		off += len(l)
	}
	f.Body = strings.TrimSpace(text[off:])
	if f.Tags == nil {
		f.Tags = []string{} // "tags": [], never null, in every JSON answer
	}
	return f, nil
}

// frontBounds finds the front matter of a file split after each "\n"
// (CRLF already made LF): opened is false when the first line is not the
// opening delimiter, end is the index of the closing one, -1 when there is
// none.
func frontBounds(lines []string) (end int, opened bool) {
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\n") != delimiter {
		return -1, false
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\n") == delimiter {
			return i, true
		}
	}
	return -1, true
}

// parseFrontYAML decodes front matter with the YAML parser, reporting errors
// with file line numbers.
func parseFrontYAML(path, front string) (Fact, map[string]int, error) {
	fail := func(line int, format string, args ...any) error {
		return &ParseError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		line, problem := yamlerr.Locate(front)
		return Fact{}, nil, fail(line+1, "front matter: not valid YAML%s", problem)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return Fact{}, nil, fail(2, "front matter is empty")
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return Fact{}, nil, fail(m.Line+1, "front matter is not a mapping of keys to values")
	}
	var f Fact
	seen := map[string]bool{}
	lineOf := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := k.Line + 1
		if k.Kind != yaml.ScalarNode {
			return Fact{}, nil, fail(line, "front matter key is not a plain name")
		}
		key := k.Value
		if seen[key] {
			return Fact{}, nil, fail(line, "duplicate key %q", key)
		}
		seen[key] = true
		lineOf[key] = v.Line + 1
		if key == "tags" {
			tags, err := parseTags(v)
			if err != nil {
				return Fact{}, nil, fail(v.Line+1, "tags: %v", err)
			}
			f.Tags = tags
			continue
		}
		dst := field(&f, key)
		if dst == nil {
			return Fact{}, nil, fail(line, "unknown key %q (known: %s)", key, strings.Join(frontMatterKeys, ", "))
		}
		if v.Kind == yaml.AliasNode || v.Kind != yaml.ScalarNode {
			return Fact{}, nil, fail(v.Line+1, "%s: want a single value", key)
		}
		if v.Tag != "!!null" {
			*dst = strings.TrimSpace(v.Value)
		}
	}
	return f, lineOf, nil
}

// nullValues are the plain scalars YAML reads as null.
var nullValues = map[string]bool{"": true, "~": true, "null": true, "Null": true, "NULL": true}

// parseFrontFast reads front matter in the canonical shape Format writes:
// one "key: value" line per known key, each value a plain scalar that YAML
// would read as the same text. It returns ok false for anything else, which
// then goes through the YAML parser; both paths give the same Fact. Parsing
// thousands of files on a cold start is several times faster this way.
func parseFrontFast(lines []string) (Fact, map[string]int, bool) {
	var f Fact
	if len(lines) == 0 {
		return Fact{}, nil, false
	}
	lineOf := make(map[string]int, len(lines))
	for i, raw := range lines {
		line := strings.TrimSuffix(raw, "\n")
		key, val, found := strings.Cut(line, ":")
		if !found || field(&f, key) == nil && key != "tags" {
			return Fact{}, nil, false
		}
		if _, dup := lineOf[key]; dup {
			return Fact{}, nil, false
		}
		lineOf[key] = i + 2
		if val != "" {
			if val[0] != ' ' {
				return Fact{}, nil, false
			}
			val = strings.TrimRight(val[1:], " ")
		}
		if key == "tags" {
			tags, ok := fastTags(val)
			if !ok {
				return Fact{}, nil, false
			}
			f.Tags = tags
			continue
		}
		if nullValues[val] {
			continue
		}
		if !plainSafe(val) {
			return Fact{}, nil, false
		}
		*field(&f, key) = val
	}
	return f, lineOf, true
}

// fastTags reads "[a, b]" whose items are plain-safe words.
func fastTags(val string) ([]string, bool) {
	if val == "[]" {
		return nil, true
	}
	if len(val) < 2 || val[0] != '[' || val[len(val)-1] != ']' {
		return nil, false
	}
	items := strings.Split(val[1:len(val)-1], ", ")
	for _, it := range items {
		if nullValues[it] || !plainSafe(it) || strings.ContainsAny(it, ",[]{}?:#") {
			return nil, false
		}
	}
	return items, true
}

// plainSafe reports whether s, written as a plain YAML scalar on one line,
// reads back as exactly s: it starts with a letter or digit, has no
// comment or mapping indicator, no surrounding space and no control
// characters.
func plainSafe(s string) bool {
	if s == "" || !utf8.ValidString(s) || strings.Contains(s, ": ") || strings.Contains(s, " #") ||
		strings.HasSuffix(s, ":") || strings.TrimSpace(s) != s {
		return false
	}
	for i, r := range s {
		if i == 0 && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0xfeff || r == utf8.RuneError || unicode.Is(unicode.Zs, r) && r != ' ' {
			return false
		}
	}
	return true
}

// field returns the string field of f that front matter key sets, or nil.
func field(f *Fact, key string) *string {
	switch key {
	case "id":
		return &f.ID
	case "type":
		return (*string)(&f.Type)
	case "title":
		return &f.Title
	case "scope":
		return &f.Scope
	case "confidence":
		return (*string)(&f.Confidence)
	case "source":
		return &f.Source
	case "created":
		return &f.Created
	case "expires":
		return &f.Expires
	case "supersedes":
		return &f.Supersedes
	case "supersededBy":
		return &f.SupersededBy
	case "status":
		return (*string)(&f.Status)
	case "retiredReason":
		return &f.RetiredReason
	}
	return nil
}

// parseTags reads the tags: a list of words, or one word alone. A tag
// that is empty once trimmed is no tag, in a list or alone, so that a
// fact with a lone empty tag reads back as Format writes it: no tags.
func parseTags(v *yaml.Node) ([]string, error) {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return nil, nil
	case v.Kind == yaml.ScalarNode:
		if t := strings.TrimSpace(v.Value); t != "" {
			return []string{t}, nil
		}
		return nil, nil
	case v.Kind == yaml.SequenceNode:
		var out []string
		for _, c := range v.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errors.New("want a list of words")
			}
			if t := strings.TrimSpace(c.Value); t != "" {
				out = append(out, t)
			}
		}
		return out, nil
	}
	return nil, errors.New("want a list of words")
}

// Format returns the file content of f: front matter in a fixed key order
// (empty optional keys omitted), the body, and one final newline. The same
// fact always gives the same bytes, and Parse(Format(f)) gives f back.
func Format(f Fact) []byte {
	if b, ok := formatPlain(f); ok {
		return b
	}
	return formatYAML(f)
}

// formatPlain is Format for a fact whose every value the YAML encoder
// writes as a plain scalar, unquoted (see plainASCII), as it does most
// facts' values: the same bytes, without the encoder, which costs a write
// more than all the rest of formatting it. It returns ok false for any
// other fact, which formatYAML formats.
func formatPlain(f Fact) ([]byte, bool) {
	status := f.Status
	if status == "" {
		status = Active
	}
	if !ValidDate(f.Created) || f.Expires != "" && !ValidDate(f.Expires) {
		return nil, false
	}
	type kv struct{ k, v string }
	head := []kv{{"id", f.ID}, {"type", string(f.Type)}, {"title", f.Title}, {"scope", f.Scope}}
	tail := []kv{{"confidence", string(f.Confidence)}, {"source", f.Source}, {"created", f.Created}, {"expires", f.Expires},
		{"supersedes", f.Supersedes}, {"supersededBy", f.SupersededBy}, {"status", string(status)}, {"retiredReason", f.RetiredReason}}
	size := len(f.Body) + 160
	for _, p := range append(head, tail...) {
		size += len(p.v)
		switch p.k {
		case "created", "expires": // dates, checked above
			continue
		case "supersedes", "supersededBy", "retiredReason": // omitted when empty
			if p.v == "" {
				continue
			}
		}
		if !plainASCII(p.v) {
			return nil, false
		}
	}
	for _, t := range f.Tags {
		// In a flow sequence a plain item has no flow indicator at all.
		if !plainASCII(t) || strings.ContainsAny(t, ",?[]{}:#") {
			return nil, false
		}
		size += len(t) + 2
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.WriteString(delimiter + "\n")
	put := func(ps []kv) {
		for _, p := range ps {
			if p.v != "" {
				b.WriteString(p.k + ": " + p.v + "\n")
			}
		}
	}
	put(head)
	b.WriteString("tags: [")
	for i, t := range f.Tags {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t)
	}
	b.WriteString("]\n")
	put(tail)
	b.WriteString(delimiter + "\n")
	writeBody(b, f.Body)
	return b.Bytes(), true
}

// plainASCII reports whether the YAML encoder writes s, a string value of
// a block mapping, as a plain scalar: a value [plainSafe] reads back as
// itself, in ASCII, that starts with a letter (no number, date or sign)
// and is none of the words YAML reads as a boolean or null. Anything else
// may be quoted, which formatYAML decides.
func plainASCII(s string) bool {
	if !plainSafe(s) || !asciiLetter(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return false
	}
	return true
}

func asciiLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// formatYAML is Format through the YAML encoder, for any fact.
func formatYAML(f Fact) []byte {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	plain := func(v string) *yaml.Node {
		if ValidDate(v) {
			return &yaml.Node{Kind: yaml.ScalarNode, Value: v}
		}
		return str(v)
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) { m.Content = append(m.Content, str(k), v) }
	tags := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, t := range f.Tags {
		tags.Content = append(tags.Content, str(t))
	}
	add("id", str(f.ID))
	add("type", str(string(f.Type)))
	add("title", str(f.Title))
	add("scope", str(f.Scope))
	add("tags", tags)
	add("confidence", str(string(f.Confidence)))
	add("source", str(f.Source))
	add("created", plain(f.Created))
	if f.Expires != "" {
		add("expires", plain(f.Expires))
	}
	if f.Supersedes != "" {
		add("supersedes", str(f.Supersedes))
	}
	if f.SupersededBy != "" {
		add("supersededBy", str(f.SupersededBy))
	}
	status := f.Status
	if status == "" {
		status = Active
	}
	add("status", str(string(status)))
	if f.RetiredReason != "" {
		add("retiredReason", str(f.RetiredReason))
	}

	var b bytes.Buffer
	b.WriteString(delimiter + "\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	// Encoding a mapping of string scalars cannot fail.
	_ = enc.Encode(m)
	_ = enc.Close()
	b.WriteString(delimiter + "\n")
	writeBody(&b, f.Body)
	return b.Bytes()
}

// writeBody writes the body of a fact file: the body, its line endings
// made "\n" and its surrounding space trimmed, and one final newline,
// unless it is empty.
func writeBody(b *bytes.Buffer, body string) {
	if body := strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n")); body != "" {
		b.WriteString(body)
		b.WriteString("\n")
	}
}

// Slug turns a title into the file-name part after the id: lowercase ASCII
// letters and digits joined by single dashes, at most 50 characters, cut at a
// word boundary. A title with no such characters gives "fact".
func Slug(title string) string {
	var words []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			w.WriteRune(r)
		case r == '\'' || r == '’':
			// "don't" → "dont"
		default:
			flush()
		}
	}
	flush()
	const max = 50
	var s string
	for _, word := range words {
		next := word
		if s != "" {
			next = s + "-" + word
		}
		if len(next) > max {
			if s == "" {
				s = word[:max]
			}
			break
		}
		s = next
	}
	if s == "" {
		return "fact"
	}
	return s
}

// FileName returns the base name of the file that holds a fact:
// fact-NNNN-<slug>.md.
func FileName(id, title string) string { return id + "-" + Slug(title) + ".md" }
