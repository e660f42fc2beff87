package contracts

// This file defines the position pass: one walk over a document already
// known to be valid JSON, recording the byte offset of just the values and
// property names that violations point at.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// offsets records where pointers (escaped JSON pointers without the leading
// "#", "" for the root) start in a document.
type offsets struct {
	// prefixes holds every prefix of a wanted pointer, so the walk can skip
	// subtrees nothing points into without building their pointers.
	prefixes map[string]bool
	wantVal  map[string]bool
	wantKey  map[string]bool
	val      map[string]int // pointer -> offset of the value's first byte
	key      map[string]int // pointer -> offset of the opening quote of its property name
}

func newOffsets() *offsets {
	return &offsets{
		prefixes: map[string]bool{},
		wantVal:  map[string]bool{},
		wantKey:  map[string]bool{},
		val:      map[string]int{},
		key:      map[string]int{},
	}
}

// wantValue asks for the offset of the value at ptr; wantName for the
// offset of the property name that introduces the value at ptr.
func (o *offsets) wantValue(ptr string) { o.wantVal[ptr] = true; o.addPrefixes(ptr) }
func (o *offsets) wantName(ptr string)  { o.wantKey[ptr] = true; o.addPrefixes(ptr) }

func (o *offsets) addPrefixes(ptr string) {
	for {
		if o.prefixes[ptr] {
			return
		}
		o.prefixes[ptr] = true
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return
		}
		ptr = ptr[:i]
	}
}

// scan walks doc and fills val and key. doc must be valid JSON; on anything
// else the walk stops early and the missing offsets stay unknown.
func (o *offsets) scan(doc []byte) {
	w := walker{b: doc, i: bomLen(doc), o: o}
	w.value("")
}

type walker struct {
	b []byte
	i int
	o *offsets
}

func (w *walker) ws() {
	for w.i < len(w.b) && isSpace(w.b[w.i]) {
		w.i++
	}
}

// value walks the value starting at w.i (after whitespace), whose pointer
// is ptr.
func (w *walker) value(ptr string) bool {
	w.ws()
	if w.i >= len(w.b) {
		return false
	}
	if w.o.wantVal[ptr] {
		w.o.val[ptr] = w.i
	}
	if !w.o.prefixes[ptr] {
		return w.skip()
	}
	switch w.b[w.i] {
	case '{':
		w.i++
		w.ws()
		if w.i < len(w.b) && w.b[w.i] == '}' {
			w.i++
			return true
		}
		for {
			w.ws()
			start := w.i
			name, ok := w.str()
			if !ok {
				return false
			}
			child := ptr + "/" + escapeToken(name)
			if w.o.wantKey[child] {
				w.o.key[child] = start
			}
			w.ws()
			if w.i >= len(w.b) || w.b[w.i] != ':' {
				return false
			}
			w.i++
			if !w.value(child) {
				return false
			}
			w.ws()
			if w.i >= len(w.b) {
				return false
			}
			w.i++
			if w.b[w.i-1] == '}' {
				return true
			}
		}
	case '[':
		w.i++
		w.ws()
		if w.i < len(w.b) && w.b[w.i] == ']' {
			w.i++
			return true
		}
		for n := 0; ; n++ {
			if !w.value(ptr + "/" + strconv.Itoa(n)) {
				return false
			}
			w.ws()
			if w.i >= len(w.b) {
				return false
			}
			w.i++
			if w.b[w.i-1] == ']' {
				return true
			}
		}
	default:
		return w.skip()
	}
}

// skip moves past the value at w.i without recording anything.
func (w *walker) skip() bool {
	if w.i >= len(w.b) {
		return false
	}
	switch w.b[w.i] {
	case '"':
		_, ok := w.rawStr()
		return ok
	case '{', '[':
		depth := 0
		for w.i < len(w.b) {
			switch c := w.b[w.i]; c {
			case '"':
				if _, ok := w.rawStr(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					w.i++
					return true
				}
			}
			w.i++
		}
		return false
	default:
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return true
			}
			w.i++
		}
		return true
	}
}

// rawStr moves past the string at w.i and returns its raw bytes, quotes
// included.
func (w *walker) rawStr() ([]byte, bool) {
	start := w.i
	if w.i >= len(w.b) || w.b[w.i] != '"' {
		return nil, false
	}
	for w.i++; w.i < len(w.b); w.i++ {
		switch w.b[w.i] {
		case '\\':
			w.i++
		case '"':
			w.i++
			return w.b[start:w.i], true
		}
	}
	return nil, false
}

// str reads a string and decodes it the way encoding/json does (escapes,
// invalid UTF-8 replaced by U+FFFD), so property names match the decoded
// document.
func (w *walker) str() (string, bool) {
	raw, ok := w.rawStr()
	if !ok {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// escapeToken escapes one JSON pointer reference token (RFC 6901).
func escapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// pointer renders an instance location as a JSON pointer without "#".
func pointer(path []string) string {
	var sb strings.Builder
	for _, tok := range path {
		sb.WriteByte('/')
		sb.WriteString(escapeToken(tok))
	}
	return sb.String()
}
