package contracts

// This file defines the strict RFC 3986 "uri" format checker contracts use:
// the JSON Schema library's own accepts whatever net/url parses, which lets
// spaces, backslashes and other characters RFC 3986 forbids through.

import (
	"errors"
	"net/netip"
	"strings"
)

var (
	errURIScheme    = errors.New("missing or invalid scheme")
	errURIAuthority = errors.New("invalid authority")
	errURIChar      = errors.New("invalid character")
	errURIPercent   = errors.New("invalid percent-encoding")
)

// checkURI reports whether s is an absolute URI per RFC 3986 section 3:
//
//	URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
//
// IRIs (unescaped non-ASCII characters) and relative references are
// rejected.
func checkURI(s string) error {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isScheme(s[:colon]) {
		return errURIScheme
	}
	rest := s[colon+1:]
	var fragment, query string
	hasFragment, hasQuery := false, false
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest, fragment, hasFragment = rest[:i], rest[i+1:], true
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query, hasQuery = rest[:i], rest[i+1:], true
	}
	if hasFragment {
		if err := checkChars(fragment, isQueryChar); err != nil {
			return err
		}
	}
	if hasQuery {
		if err := checkChars(query, isQueryChar); err != nil {
			return err
		}
	}
	path := rest
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		authority := after
		path = ""
		if i := strings.IndexByte(after, '/'); i >= 0 {
			authority, path = after[:i], after[i:]
		}
		if err := checkAuthority(authority); err != nil {
			return err
		}
	}
	// path-abempty, path-absolute, path-rootless and path-empty all reduce
	// to segments of pchar separated by "/" once the authority is gone;
	// "//" at the start without an authority cannot occur here.
	return checkChars(path, func(c byte) bool { return c == '/' || isPChar(c) })
}

func isScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// checkAuthority checks authority = [ userinfo "@" ] host [ ":" port ].
func checkAuthority(a string) error {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		if err := checkChars(a[:i], func(c byte) bool { return c == ':' || isUnreserved(c) || isSubDelim(c) }); err != nil {
			return errURIAuthority
		}
		a = a[i+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return errURIAuthority
		}
		host, port = a[:end+1], a[end+1:]
		if port != "" && port[0] != ':' {
			return errURIAuthority
		}
		if !isIPLiteral(host[1 : len(host)-1]) {
			return errURIAuthority
		}
	} else {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			host, port = a[:i], a[i:]
		}
		// reg-name (an IPv4 address is a valid reg-name too).
		if err := checkChars(host, func(c byte) bool { return isUnreserved(c) || isSubDelim(c) }); err != nil {
			return errURIAuthority
		}
	}
	for i := 1; i < len(port); i++ {
		if !isDigit(port[i]) {
			return errURIAuthority
		}
	}
	return nil
}

// isIPLiteral checks the inside of "[...]": IPv6address or IPvFuture.
func isIPLiteral(s string) bool {
	if len(s) > 1 && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		for i := dot + 1; i < len(s); i++ {
			c := s[i]
			if !isUnreserved(c) && !isSubDelim(c) && c != ':' {
				return false
			}
		}
		return true
	}
	if !strings.Contains(s, ":") || strings.Contains(s, "%") {
		return false // zone identifiers are not part of RFC 3986
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Is6()
}

// checkChars checks that s holds only bytes ok accepts or valid
// percent-encoded triplets.
func checkChars(s string, ok func(byte) bool) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return errURIPercent
			}
			i += 2
			continue
		}
		if !ok(c) {
			return errURIChar
		}
	}
	return nil
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isUnreserved(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

func isPChar(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' }

func isQueryChar(c byte) bool { return isPChar(c) || c == '/' || c == '?' }
