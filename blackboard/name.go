package blackboard

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/atomicfile"
	"github.com/foundryhq/foundry/internal/confined"
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
	// The rules apply to the name as given ("git~1", a trailing space)
	// and as stored.
	for _, n := range []string{name, s} {
		if reason := gitUnsafe(n); reason != "" {
			return "", &NameError{Name: name, Reason: reason}
		}
	}
	return s, nil
}

// gitUnsafe says why git (or a checkout on Windows or macOS) would not
// carry the file or folder name s, or "" when it would: an artifact
// written under such a name is never committed, so the hand-off is lost.
func gitUnsafe(s string) string {
	lower := strings.ToLower(s)
	base, _, _ := strings.Cut(lower, ".")
	switch {
	case lower == ".git" || strings.TrimRight(lower, ". ") == ".git":
		return `names git's own folder (".git" in any case, also with trailing dots), which git never commits`
	case strings.HasSuffix(s, ".") || strings.HasSuffix(s, " "):
		return "ends with a dot or a space, which Windows drops and git refuses"
	case lower == "git~1":
		return `is "git~1", the short name of .git on Windows, which git refuses`
	case confined.WindowsDevice(base):
		return fmt.Sprintf("is the reserved device name %s on Windows (CON, PRN, AUX, NUL, COM1–9, LPT1–9, with or without an extension)", strings.ToUpper(base))
	}
	return ""
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
