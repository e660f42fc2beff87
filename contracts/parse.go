package contracts

// This file defines how documents are decoded: Foundry's own syntax scan
// (exact offsets and messages that do not depend on how a JSON library
// words or counts its errors, and a guard against hostile numbers), then a
// direct build of the values (build.go); and how byte offsets become the 1-based
// line:column positions that violations and parse errors carry.

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, as encoding/json does.
// Number literals are held to checkNumber's bounds during the same scan.
const maxDepth = 10000

// maxValues bounds the values of one document. An 8 MiB artifact can hold
// four million ("[0,0,…]"), and each decoded value costs about 36 bytes
// before validation walks it: uncapped, one file under every size limit took
// 300–460 MiB to validate, read or doctor. A million is far beyond any
// hand-off artifact, schema or tool input.
const maxValues = 1 << 20

// bom is the UTF-8 byte order mark. RFC 8259 lets a parser ignore a leading
// one, and editors on Windows write it: it is skipped, and not counted in
// columns.
var bom = []byte{0xEF, 0xBB, 0xBF}

// errEOF is the message of a document that ends too early.
var errEOF = errors.New("unexpected end of JSON input")

// Decode parses one JSON document the way validation needs it: numbers as
// json.Number (no precision lost), nothing but whitespace after the value,
// a leading byte order mark ignored. A document that is not parseable JSON
// gives a *[ParseError] locating the first offending character.
func Decode(doc []byte) (any, error) {
	return parse(doc)
}

func parse(doc []byte) (any, error) {
	start := bomLen(doc)
	if err := scan(doc, start); err != nil {
		return nil, err
	}
	return build(doc, start), nil
}

func bomLen(doc []byte) int {
	if bytes.HasPrefix(doc, bom) {
		return len(bom)
	}
	return 0
}

func newParseError(doc []byte, off int, err error) *ParseError {
	line, col := newLineIndex(doc).position(off)
	return &ParseError{Line: line, Column: col, Offset: off, Err: err}
}

// Position returns the 1-based line and column of byte offset off in doc,
// under the one rule every Foundry report follows: the column is 1 plus the
// Unicode code points before off on its line; a tab counts 1; a "\r"
// before "\n" is not counted; a leading byte order mark is not counted.
// Invalid UTF-8 counts one per byte. SARIF calls this column kind
// "unicodeCodePoints".
func Position(doc []byte, off int) (line, col int) {
	return newLineIndex(doc).position(off)
}

// scan checks that doc[start:] is one JSON value (RFC 8259) surrounded by
// whitespace, within the nesting and number limits.
func scan(doc []byte, start int) error {
	s := scanner{b: doc, i: start}
	s.ws()
	if err := s.value(0); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.b) {
		return s.fail("after top-level value")
	}
	return nil
}

type scanner struct {
	b      []byte
	i      int
	values int // values scanned so far, held to maxValues
}

func (s *scanner) ws() {
	for s.i < len(s.b) && isSpace(s.b[s.i]) {
		s.i++
	}
}

// fail reports the character at s.i, or the end of input, in the words of
// encoding/json's messages (which earlier Foundry versions printed).
func (s *scanner) fail(context string) error {
	if s.i >= len(s.b) {
		return newParseError(s.b, len(s.b), errEOF)
	}
	return newParseError(s.b, s.i, fmt.Errorf("invalid character %s %s", quoteChar(s.b, s.i), context))
}

func (s *scanner) value(depth int) error {
	if s.i >= len(s.b) {
		return s.fail("")
	}
	if s.values++; s.values > maxValues {
		return newParseError(s.b, s.i, fmt.Errorf("%w: more than %d", ErrTooManyValues, maxValues))
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		if depth == maxDepth {
			return newParseError(s.b, s.i, fmt.Errorf("exceeded max depth of %d nested values", maxDepth))
		}
		if c == '{' {
			return s.object(depth + 1)
		}
		return s.array(depth + 1)
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.fail("looking for beginning of value")
}

func (s *scanner) object(depth int) error {
	s.i++ // {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.fail("looking for beginning of object key string")
		}
		if err := s.str(); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.fail("after object key")
		}
		s.i++
		s.ws()
		if err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return nil
		default:
			return s.fail("after object key:value pair")
		}
	}
}

func (s *scanner) array(depth int) error {
	s.i++ // [
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return nil
		default:
			return s.fail("after array element")
		}
	}
}

// str moves past a string. It refuses a control character, a byte that is
// not UTF-8 and a \u escape of a lone surrogate: decoded, the last two
// would be U+FFFD, another text than the file's.
func (s *scanner) str() error {
	s.i++ // opening quote
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			s.i++
			if s.i >= len(s.b) {
				return s.fail("")
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				start := s.i - 1
				r, err := s.hex4()
				if err == nil && utf16.IsSurrogate(r) {
					err = s.lowHalf(start, r)
				}
				if err != nil {
					return err
				}
			default:
				return s.fail("in string escape code")
			}
		case c < 0x20:
			return s.fail("in string literal")
		case c >= utf8.RuneSelf:
			// JSON text is UTF-8 (RFC 8259): a byte that is not would be
			// read as U+FFFD, another text than the file's.
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				return newParseError(s.b, s.i, fmt.Errorf("invalid UTF-8 byte 0x%02x in string literal", c))
			}
			s.i += size
		default:
			s.i++
		}
	}
	return s.fail("")
}

// lowHalf moves past the low half of the surrogate pair the escape at
// start, of r, begins. A surrogate that begins no pair is an error: no
// UTF-8 text holds it, and decoded it would be U+FFFD, another text than
// the file's.
func (s *scanner) lowHalf(start int, r rune) error {
	if r < 0xDC00 && s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
		s.i++
		lo, err := s.hex4()
		if err != nil || lo >= 0xDC00 && lo <= 0xDFFF {
			return err
		}
	}
	return newParseError(s.b, start, fmt.Errorf("lone surrogate %s in string literal", s.b[start:start+6]))
}

// hex4 reads the four hex digits of a \u escape, the u read.
func (s *scanner) hex4() (rune, error) {
	s.i++
	var r rune
	for range 4 {
		if s.i >= len(s.b) {
			return 0, s.fail("")
		}
		c := s.b[s.i]
		if !isHex(c) {
			return 0, s.fail(`in \u hexadecimal character escape`)
		}
		r = r<<4 | rune(hexValue(c))
		s.i++
	}
	return r, nil
}

func hexValue(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// number moves past a number, refusing one over checkNumber's bounds (more
// than maxNumberDigits digits, an exponent beyond ±maxNumberExponent).
func (s *scanner) number() error {
	start := s.i
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i >= len(s.b):
		return s.fail("")
	case s.b[s.i] == '0':
		s.i++
	case s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return s.fail("in numeric literal")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.i >= len(s.b) || !isDigit(s.b[s.i]) {
			return s.fail("after decimal point in numeric literal")
		}
		s.digits()
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.i >= len(s.b) || !isDigit(s.b[s.i]) {
			return s.fail("in exponent of numeric literal")
		}
		s.digits()
	}
	// The shortest literal over the bounds, 1e10001, has 7 characters:
	// shorter ones skip the check and its allocation.
	if s.i-start >= 7 {
		if err := checkNumber(string(s.b[start:s.i])); err != nil {
			return newParseError(s.b, start, err)
		}
	}
	return nil
}

func (s *scanner) digits() {
	for s.i < len(s.b) && isDigit(s.b[s.i]) {
		s.i++
	}
}

func (s *scanner) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if s.i >= len(s.b) {
			return s.fail("")
		}
		if s.b[s.i] != word[k] {
			return s.fail(fmt.Sprintf("in literal %s (expecting %s)", word, quoteChar([]byte(word), k)))
		}
		s.i++
	}
	return nil
}

// quoteChar renders the character at doc[off] the way encoding/json does in
// its syntax errors.
func quoteChar(doc []byte, off int) string {
	r, _ := utf8.DecodeRune(doc[off:])
	if r == '\'' {
		return `'\''`
	}
	if r == '"' {
		return `'"'`
	}
	s := fmt.Sprintf("%q", r)
	return "'" + s[1:len(s)-1] + "'"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lineIndex maps byte offsets of a document to positions under the rule of
// [Position].
type lineIndex struct {
	doc    []byte
	starts []int // byte offset of the first byte of each line
}

func newLineIndex(doc []byte) *lineIndex {
	starts := []int{0}
	for i, c := range doc {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{doc: doc, starts: starts}
}

func (li *lineIndex) position(off int) (line, col int) {
	off = min(max(off, 0), len(li.doc))
	// The line is the last one starting at or before off.
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	from := li.starts[i]
	if i == 0 {
		from = min(bomLen(li.doc), off)
	}
	before := li.doc[from:off]
	if off < len(li.doc) && li.doc[off] == '\n' && len(before) > 0 && before[len(before)-1] == '\r' {
		before = before[:len(before)-1]
	}
	return i + 1, utf8.RuneCount(before) + 1
}
