package blackboard

import (
	"strings"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/atomicfile"
)

// MaxNameLen is the length at which wave and agent names are cut.
const MaxNameLen = 80

// Sanitize returns the folder or file name a wave or agent name is stored
// under: every character outside [A-Za-z0-9._-] becomes "-" (one per
// character; a byte that is not UTF-8 counts as one), and the result is cut
// to [MaxNameLen] characters. That keeps every name inside the blackboard:
// "../../etc" becomes the harmless "..-..-etc". A name that sanitises to
// nothing, "." or "..", a name with a NUL byte and one that would look
// like an in-flight temporary file are refused with a [*NameError].
func Sanitize(name string) (string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return "", &NameError{Name: name, Reason: "contains a NUL byte"}
	}
	var b strings.Builder
	for i := 0; i < len(name) && b.Len() < MaxNameLen; {
		r, size := utf8.DecodeRuneInString(name[i:])
		i += size
		if r < utf8.RuneSelf && allowed(byte(r)) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	switch {
	case s == "":
		return "", &NameError{Name: name, Reason: "is empty"}
	case s == "." || s == "..":
		return "", &NameError{Name: name, Reason: `"." and ".." name no folder inside the blackboard`}
	case strings.HasPrefix(s, atomicfile.TempPrefix):
		return "", &NameError{Name: name, Reason: "starts like a temporary file (" + atomicfile.TempPrefix + ")"}
	}
	return s, nil
}

// sanitizeField is Sanitize with the field named in the error.
func sanitizeField(field, name string) (string, error) {
	s, err := Sanitize(name)
	if ne, ok := err.(*NameError); ok {
		ne.Field = field
	}
	return s, err
}

func allowed(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}
