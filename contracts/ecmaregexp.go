package contracts

// This file defines how a schema's regular expressions are read: as
// ECMA-262 patterns with Unicode semantics, which JSON Schema 2020-12
// specifies, run by Go's regexp.

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// errRegexpUnsupported marks an ECMA-262 construct Go's regexp (RE2, which
// never backtracks) has no equivalent of: lookaround and backreferences.
var errRegexpUnsupported = errors.New("not supported: regular expressions here run without backtracking (RE2)")

// ecmaSpace is what \s matches in ECMA-262: WhiteSpace and LineTerminator,
// as ranges for a Go character class. Go's \s is ASCII only.
const ecmaSpace = `\t\n\x0B\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

// ecmaNotSpace is what \S matches: every code point ecmaSpace does not.
const ecmaNotSpace = `\x00-\x08\x0E-\x1F\x21-\x{9F}\x{A1}-\x{167F}\x{1681}-\x{1FFF}\x{200B}-\x{2027}\x{202A}-\x{202E}\x{2030}-\x{205E}\x{2060}-\x{2FFF}\x{3001}-\x{FEFE}\x{FF00}-\x{10FFFF}`

// ecmaDot is what . matches without the s flag: every code point but the
// line terminators. Go's . leaves out \n only.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// ecmaToGo translates pattern, an ECMA-262 regular expression read with
// the u flag (JSON Schema's dialect), into Go's regexp syntax with the same
// meaning: \s, \S and . as ECMA-262 defines them, \cX, \0, \uXXXX (a
// surrogate pair as one code point), \u{…}, \p{…} by long or short name,
// [] and [^], a [ inside a class, and a - after a range, as themselves,
// repeat bounds without leading zeros. What ECMA-262 refuses with the u
// flag (an unknown escape, a lone ], } or {, a Go-only group such as (?i),
// a class escape as a range's end, a quantified assertion, a group name
// given twice) is refused; lookaround and backreferences are errors
// wrapping errRegexpUnsupported.
func ecmaToGo(pattern string) (string, error) {
	t := translator{src: pattern}
	if err := t.run(); err != nil {
		return "", err
	}
	return t.out.String(), nil
}

type translator struct {
	src     string
	i       int
	out     strings.Builder
	inClass bool
	// In a class: where its first atom starts in src; whether the last
	// atom was a class escape (\d, \s, \p{…}…), and whether a - made it a
	// range's start, which ECMA-262 refuses either way round.
	classStart int
	lastSet    bool
	inRange    bool
	rangeEnd   bool // the last atom ended a range: a - after it is itself
	// names are the capture groups' names so far: ECMA-262 refuses one
	// twice, where Go's regexp takes it.
	names map[string]bool
	// assertion says the last atom was ^, $, \b or \B, which ECMA-262
	// does not let a quantifier repeat.
	assertion bool
}

func (t *translator) run() error {
	for t.i < len(t.src) {
		r, size := utf8.DecodeRuneInString(t.src[t.i:])
		t.i += size
		afterAssertion := t.assertion
		t.assertion = false
		var err error
		switch {
		case !t.inClass && afterAssertion && (r == '*' || r == '+' || r == '?' || r == '{'):
			return fmt.Errorf("a quantifier %c after an assertion", r)
		case !t.inClass && (r == '^' || r == '$'):
			t.assertion = true
			t.out.WriteRune(r)
		case r == utf8.RuneError && size == 1:
			return errors.New("not UTF-8")
		case r == '\\':
			err = t.escape()
		case t.inClass && r == ']':
			t.inClass = false
			t.out.WriteByte(']')
		case t.inClass && r == '-' && !t.inRange && !t.rangeEnd && t.i-1 > t.classStart && !strings.HasPrefix(t.src[t.i:], "]"):
			if t.lastSet {
				return errors.New("a class escape as a range's end")
			}
			t.inRange = true
			t.out.WriteByte('-')
		case t.inClass:
			// A character, itself: a [ or a - (first, last, a range's end
			// or after one) too, which Go's syntax would read otherwise.
			t.classAtom()
			t.out.WriteString(regexp.QuoteMeta(string(r)))
		case r == '.':
			t.out.WriteString(ecmaDot)
		case r == '[':
			t.class()
		case r == '(':
			err = t.group()
		case r == '{':
			err = t.quantifier()
		case r == ']' || r == '}':
			return fmt.Errorf("a lone %c", r)
		default:
			t.out.WriteRune(r) // the same in both: ^ $ | ) * + ? and literals
		}
		if err != nil {
			return err
		}
	}
	if t.inClass {
		return errors.New("a character class without its ]")
	}
	return nil
}

// class starts a character class, the [ read.
func (t *translator) class() {
	switch {
	case strings.HasPrefix(t.src[t.i:], "]"): // [] matches nothing
		t.i++
		t.out.WriteString(`[^\x00-\x{10FFFF}]`)
	case strings.HasPrefix(t.src[t.i:], "^]"): // [^] matches anything
		t.i += 2
		t.out.WriteString(`[\x00-\x{10FFFF}]`)
	case strings.HasPrefix(t.src[t.i:], "^"):
		t.i++
		t.out.WriteString("[^")
		t.openClass()
	default:
		t.out.WriteByte('[')
		t.openClass()
	}
}

func (t *translator) openClass() {
	t.inClass, t.classStart, t.lastSet, t.inRange, t.rangeEnd = true, t.i, false, false, false
}

// classAtom records a character of a class, which may end a range.
func (t *translator) classAtom() {
	t.lastSet, t.rangeEnd, t.inRange = false, t.inRange, false
}

// classSet records a class escape (\d, \s, \p{…}…), which can neither end a
// range nor start one.
func (t *translator) classSet() error {
	if t.inRange {
		return errors.New("a class escape as a range's end")
	}
	t.lastSet, t.rangeEnd, t.inRange = true, false, false
	return nil
}

// group translates the opening of a group, the ( read.
func (t *translator) group() error {
	rest := t.src[t.i:]
	switch {
	case !strings.HasPrefix(rest, "?"):
		t.out.WriteByte('(')
	case strings.HasPrefix(rest, "?:"):
		t.i += 2
		t.out.WriteString("(?:")
	case strings.HasPrefix(rest, "?="), strings.HasPrefix(rest, "?!"):
		return fmt.Errorf("a lookahead (%s…) is %w", rest[:2], errRegexpUnsupported)
	case strings.HasPrefix(rest, "?<="), strings.HasPrefix(rest, "?<!"):
		return fmt.Errorf("a lookbehind (%s…) is %w", rest[:3], errRegexpUnsupported)
	case strings.HasPrefix(rest, "?<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return errors.New("a group name without its >")
		}
		name := rest[2:end]
		if !groupName(name) {
			return fmt.Errorf("group name %q: only ASCII letters, digits and _ are supported, a letter or _ first", name)
		}
		if t.names[name] {
			return fmt.Errorf("group name %q twice", name)
		}
		if t.names == nil {
			t.names = map[string]bool{}
		}
		t.names[name] = true
		t.i += end + 1
		t.out.WriteString("(?P<" + name + ">")
	default:
		return fmt.Errorf("(%s is no ECMA-262 group", rest[:min(len(rest), 2)])
	}
	return nil
}

// quantifier copies {n}, {n,} or {n,m}, the { read; any other { is an
// error with the u flag, where Go would read it as itself.
func (t *translator) quantifier() error {
	end := strings.IndexByte(t.src[t.i:], '}')
	if end < 0 {
		return errors.New("a lone {")
	}
	lo, hi, comma := strings.Cut(t.src[t.i:t.i+end], ",")
	if !allDigits(lo) || lo == "" || comma && hi != "" && !allDigits(hi) {
		return errors.New("a lone {")
	}
	// Bounds are written back without leading zeros, which would make Go's
	// parser take the quantifier for text.
	t.out.WriteString("{" + noLeadingZeros(lo))
	if comma {
		t.out.WriteString("," + noLeadingZeros(hi))
	}
	t.out.WriteByte('}')
	t.i += end + 1
	return nil
}

// escape translates an escape, the \ read.
func (t *translator) escape() error {
	if t.i >= len(t.src) {
		return errors.New(`a \ at the end`)
	}
	c := t.src[t.i]
	switch {
	case t.inClass && strings.IndexByte("dDwWsSpP", c) >= 0:
		if err := t.classSet(); err != nil {
			return err
		}
	case t.inClass:
		t.classAtom()
	}
	t.i++
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'v', 'f', 'r':
		t.out.WriteByte('\\')
		t.out.WriteByte(c)
	case 's':
		t.set(ecmaSpace)
	case 'S':
		t.set(ecmaNotSpace)
	case 'b':
		if t.inClass {
			t.out.WriteString(`\x08`) // backspace in a class
		} else {
			t.out.WriteString(`\b`) // ASCII word boundary in both
			t.assertion = true
		}
	case 'B':
		if t.inClass {
			return errors.New(`\B in a character class`)
		}
		t.out.WriteString(`\B`)
		t.assertion = true
	case '0':
		if t.i < len(t.src) && isDigit(t.src[t.i]) {
			return errors.New(`\0 followed by a digit`)
		}
		t.out.WriteString(`\x00`)
	case 'c':
		if t.i >= len(t.src) || !isAlpha(t.src[t.i]) {
			return errors.New(`\c without a letter`)
		}
		t.code(rune(t.src[t.i] % 32))
		t.i++
	case 'x':
		n, ok := hexAt(t.src, t.i, 2)
		if !ok {
			return errors.New(`\x without two hex digits`)
		}
		t.i += 2
		t.code(n)
	case 'u':
		return t.unicodeEscape()
	case 'p', 'P':
		return t.property(c == 'P')
	case 'k':
		return fmt.Errorf(`a named backreference (\k) is %w`, errRegexpUnsupported)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return fmt.Errorf(`a backreference (\%c) is %w`, c, errRegexpUnsupported)
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		t.out.WriteByte('\\')
		t.out.WriteByte(c)
	case '-':
		if !t.inClass {
			return errors.New(`\- outside a character class`)
		}
		t.out.WriteString(`\-`)
	default:
		r, _ := utf8.DecodeRuneInString(t.src[t.i-1:])
		return fmt.Errorf(`\%c is no ECMA-262 escape`, r)
	}
	return nil
}

// set writes the class ranges, in brackets outside a class and as they are
// inside one.
func (t *translator) set(ranges string) {
	if t.inClass {
		t.out.WriteString(ranges)
		return
	}
	t.out.WriteString("[" + ranges + "]")
}

// code writes the code point r as a Go escape.
func (t *translator) code(r rune) {
	fmt.Fprintf(&t.out, `\x{%X}`, r)
}

// unicodeEscape translates \uXXXX (a surrogate pair of two as the code
// point they encode) and \u{X…}, the \u read.
func (t *translator) unicodeEscape() error {
	if strings.HasPrefix(t.src[t.i:], "{") {
		end := strings.IndexByte(t.src[t.i:], '}')
		if end < 2 {
			return errors.New(`\u{ without hex digits and }`)
		}
		n, err := strconv.ParseUint(t.src[t.i+1:t.i+end], 16, 32)
		switch {
		case errors.Is(err, strconv.ErrRange) || err == nil && n > unicode.MaxRune:
			return errors.New(`\u{…} beyond the code points`)
		case err != nil: // base 16 takes no sign, prefix or _
			return errors.New(`\u{…} with a character that is not a hex digit`)
		}
		t.i += end + 1
		t.code(rune(n))
		return nil
	}
	n, ok := hexAt(t.src, t.i, 4)
	if !ok {
		return errors.New(`\u without four hex digits`)
	}
	t.i += 4
	if n >= 0xD800 && n < 0xDC00 && strings.HasPrefix(t.src[t.i:], `\u`) {
		if lo, ok := hexAt(t.src, t.i+2, 4); ok && lo >= 0xDC00 && lo < 0xE000 {
			t.i += 6
			t.code(0x10000 + (n-0xD800)<<10 + (lo - 0xDC00))
			return nil
		}
	}
	// A lone surrogate too: no UTF-8 text holds one, and Go's regexp
	// takes it as a code point that matches nothing, in a class or a range.
	t.code(n)
	return nil
}

// property translates \p{…} and \P{…}, the p or P read: a General_Category
// value by its long or short name or alias (Letter, L, Lowercase_Letter,
// digit…), with or without General_Category= or gc=, or a script by its
// long name with Script= or sc=.
func (t *translator) property(negated bool) error {
	if !strings.HasPrefix(t.src[t.i:], "{") {
		return errors.New(`\p without {name}`)
	}
	end := strings.IndexByte(t.src[t.i:], '}')
	if end < 0 {
		return errors.New(`\p{ without its }`)
	}
	name := t.src[t.i+1 : t.i+end]
	t.i += end + 1
	goName, ok := propertyName(name)
	if !ok {
		return fmt.Errorf(`\p{%s} names no General_Category value or script Go knows`, name)
	}
	if negated {
		t.out.WriteString(`\P{` + goName + `}`)
	} else {
		t.out.WriteString(`\p{` + goName + `}`)
	}
	return nil
}

// propertyName returns the name Go's regexp knows for an ECMA-262 property
// expression.
func propertyName(name string) (string, bool) {
	key, value, hasKey := strings.Cut(name, "=")
	switch {
	case !hasKey: // a General_Category value alone, or Any
		value = name
		fallthrough
	case key == "General_Category" || key == "gc":
		if short, ok := categoryAliases()[value]; ok {
			value = short
		}
		_, ok := unicode.Categories[value]
		return value, ok || value == "Any" && !hasKey
	case key == "Script" || key == "sc":
		_, ok := unicode.Scripts[value]
		return value, ok
	}
	return "", false
}

// categoryAliases maps the long names and aliases of General_Category
// values (Unicode's PropertyValueAliases.txt) to the short names Go knows.
// It is built on first use: every process links this package, few
// translate a \p{…}.
var categoryAliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
		"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
		"Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
		"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
		"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
		"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
		"Final_Punctuation": "Pf", "Other_Punctuation": "Po",
		"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
		"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
		"Other": "C", "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs",
		"Private_Use": "Co", "Unassigned": "Cn",
	}
})

// hexAt reads n hex digits of s at i.
func hexAt(s string, i, n int) (rune, bool) {
	if i+n > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+n]) {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(hexValue(c))
	}
	return r, true
}

// groupName reports whether name is a group name Go's regexp reads as
// ECMA-262 does: ASCII letters, digits and _, not a digit first.
func groupName(name string) bool {
	for i := range len(name) {
		c := name[i]
		if !isAlpha(c) && c != '_' && (i == 0 || !isDigit(c)) {
			return false
		}
	}
	return name != ""
}

// noLeadingZeros returns the decimal digits s without their leading zeros,
// "0" for zeros alone, "" for "".
func noLeadingZeros(s string) string {
	if t := strings.TrimLeft(s, "0"); t != "" || s == "" {
		return t
	}
	return "0"
}

func allDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
