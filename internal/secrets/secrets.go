// Package secrets finds credentials in free text: private key blocks, cloud
// and forge access tokens, API keys, password assignments and connection
// strings that carry a password. It reports what kind of secret it found and
// where, never the value, and can redact every value it finds.
//
// Foundry uses it twice: memory_write refuses a fact that contains a secret,
// and the MCP server redacts tool results before they leave the process.
// Detection is pattern based and errs on the side of flagging an
// assignment-shaped value; placeholders such as ${DB_PASSWORD}, <password>,
// $TOKEN or *** are never reported.
package secrets

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Kind names a class of secret. Its text is safe to show: it never contains
// any part of the secret.
type Kind string

// The kinds of secret Find reports.
const (
	PrivateKey       Kind = "private key block"
	AWSAccessKey     Kind = "AWS access key"
	GitHubToken      Kind = "GitHub token"
	GitLabToken      Kind = "GitLab token"
	BitbucketToken   Kind = "Bitbucket token"
	DigitalOceanKey  Kind = "DigitalOcean token"
	SlackToken       Kind = "Slack token"
	GoogleAPIKey     Kind = "Google API key"
	StripeKey        Kind = "Stripe key"
	APIKey           Kind = "API key"
	JWT              Kind = "JSON web token"
	NPMToken         Kind = "npm token"
	AWSSecretKey     Kind = "AWS secret access key"
	BearerToken      Kind = "bearer token"
	Password         Kind = "password assignment"
	ConnectionString Kind = "connection string with credentials"
	// SensitiveValue is the value of a key that names a credential
	// without matching a stricter pattern: a session id, a cookie, a
	// password hash, credentials. [Redact] hides it; [Find] does not report
	// it, so that prose about sessions stays writable.
	SensitiveValue Kind = "sensitive key assignment"
)

// Provider reports whether a kind is a provider-format token or a private
// key: a value that is a credential whatever the text around it says.
// Writes of shared artifacts refuse these; prose that talks of passwords
// (a password assignment, a connection string) is left to review.
func (k Kind) Provider() bool {
	switch k {
	case Password, ConnectionString, SensitiveValue:
		return false
	}
	return true
}

// Finding is one secret found in a text. Start and End are byte offsets of
// the secret value (the part Redact replaces); Line is 1-based.
type Finding struct {
	Kind  Kind `json:"kind"`
	Line  int  `json:"line"`
	Start int  `json:"start"`
	End   int  `json:"end"`
}

// Placeholder replaces every secret value in the output of Redact.
const Placeholder = "[REDACTED]"

// detector finds one kind of secret. group is the submatch holding the value
// (0 for the whole match); check, when set, vetoes a candidate value.
// redactOnly detectors serve [Redact] alone.
// literals, when set, are lowercase strings one of which a text must hold
// (compared case-insensitively, or as they are when caseSensitive) for the
// detector to run at all: a cheap filter that spares the regular expression
// most texts. anchor (with span) says where in a text the expression can
// match, so that it runs there alone (see window.go).
type detector struct {
	kind          Kind
	re            *regexp.Regexp
	group         int
	check         func(match []string, value string) bool
	redactOnly    bool
	literals      []string
	caseSensitive bool
	anchor        anchor
	span          int
}

// assignment is the tail of a key = value pattern: an optional closing
// quote of the key (also JSON-escaped, \"), the separator (submatch) and
// the value (submatch): double, single, JSON-escaped double quoted, in
// angle brackets, or a bare run.
const assignment = `(?:\\?["'])?\s*(:=|=>|=|:)\s*(\\"(?:[^"\\\n]|\\[^"])*\\"|"[^"\n]*"|'[^'\n]*'|<[^>\n]*>|[^\s,;'"\\]+)`

// detectors lists the detectors in priority order: when two findings
// overlap, the one found by the earlier detector wins, so "password=ghp_…"
// is a GitHub token. They are compiled by the first scan, not at start-up:
// most commands never scan.
var detectors = sync.OnceValue(func() []detector {
	return []detector{
		{
			kind: PrivateKey,
			re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----` +
				`(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`),
			literals:      []string{"-----BEGIN"},
			caseSensitive: true,
		},
		{kind: AWSAccessKey, re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b`), literals: []string{"AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "APKA"}, caseSensitive: true},
		{kind: GitHubToken, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b`), literals: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, caseSensitive: true},
		{kind: GitLabToken, re: regexp.MustCompile(`\bgl(?:pat|dt|ptt|rt|cbt)-[A-Za-z0-9_-]{20,}`), literals: []string{"glpat-", "gldt-", "glptt-", "glrt-", "glcbt-"}, caseSensitive: true},
		{kind: BitbucketToken, re: regexp.MustCompile(`\bATBB[A-Za-z0-9_=.-]{28,}`), literals: []string{"ATBB"}, caseSensitive: true},
		{kind: DigitalOceanKey, re: regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}\b`), literals: []string{"_v1_"}},
		{kind: SlackToken, re: regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`), literals: []string{"xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"}, caseSensitive: true},
		{kind: GoogleAPIKey, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), literals: []string{"AIza"}, caseSensitive: true},
		{kind: StripeKey, re: regexp.MustCompile(`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b`), literals: []string{"k_live_", "k_test_"}, caseSensitive: true},
		{kind: APIKey, re: regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`), literals: []string{"sk-"}, caseSensitive: true},
		{kind: JWT, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), literals: []string{"eyJ"}, caseSensitive: true},
		{kind: NPMToken, re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`), literals: []string{"npm_"}, caseSensitive: true},
		{
			// A private key block, base64-encoded once more (a Kubernetes
			// secret, an environment variable): "-----BEGIN" encodes to
			// LS0tLS1CRUdJTi.
			kind:     PrivateKey,
			re:       regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/]{16,}={0,2}`),
			check:    func(_ []string, v string) bool { return base64PrivateKey(v) },
			literals: []string{"ls0tls1crudjti"},
		},
		{
			kind: BearerToken,
			// A token has a digit or mixes cases; a run of one case
			// without digits is a placeholder (YOUR_ACCESS_TOKEN) or words
			// (bearer authentication/authorization).
			re:       regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`),
			group:    1,
			check:    func(_ []string, v string) bool { return !placeholder(v) && randomLooking(v) },
			literals: []string{"bearer"},
		},
		{
			// A bare AWS secret access key: 40 characters of base64 mixing
			// upper case, lower case and digits, alone (not inside a longer
			// run), with a "/" or "+" (a URL-safe cursor or token has
			// neither, a hex digest no upper case) or on a line that speaks
			// of AWS.
			kind:     AWSSecretKey,
			re:       regexp.MustCompile(`(?:^|[^A-Za-z0-9/+=_-])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=_-])`),
			group:    1,
			check:    func(_ []string, v string) bool { return awsSecretShape(v) && strings.ContainsAny(v, "/+") },
			literals: []string{"/", "+"},
		},
		{
			kind:     AWSSecretKey,
			re:       regexp.MustCompile(`(?i)(?:\baws|\bAKIA[0-9A-Z]{16})[^\n]{0,80}?(?:^|[^A-Za-z0-9/+=_-])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=_-])`),
			group:    1,
			check:    func(_ []string, v string) bool { return awsSecretShape(v) },
			literals: []string{"aws", "akia"},
			// A match starts at its literal: \bAKIA and 16 more, 80
			// characters, a delimiter, 40 and a delimiter.
			anchor: atLiteral,
			span:   20 + 80*utf8.UTFMax + utf8.UTFMax + 40 + utf8.UTFMax,
		},
		{
			kind:     ConnectionString,
			re:       regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@'"]*:([^\s@/'"]+)@[^\s/'"]+`),
			group:    1,
			check:    func(_ []string, v string) bool { return !placeholder(v) },
			literals: []string{"://"},
		},
		{
			kind: Password,
			// The key may be glued to a prefix: PGPASSWORD, dbPassword (see
			// passwordValue).
			re: regexp.MustCompile(`(?i)\b(?:[a-z0-9]+[_-])*[a-z0-9]*?(password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?key|` +
				`access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key|account[_-]?key|token)` + assignment),
			group:    3,
			check:    passwordValue,
			literals: []string{"pass", "pwd", "secret", "key", "token"},
			anchor:   atAssignment,
		},
		{
			kind: SensitiveValue,
			re: regexp.MustCompile(`(?i)\b(?:[a-z0-9]+[_-])*[a-z0-9]*?(password[_-]?hash|pw[_-]?hash|session(?:[_-]?(?:id|key))?|` +
				`(?:set[_-]?)?cookie|credentials?|authorization|conn(?:ection)?[_-]?str(?:ing)?|dsn)` + assignment),
			group:      3,
			check:      passwordValue,
			redactOnly: true,
			literals:   []string{"hash", "session", "cookie", "credential", "authorization", "conn", "dsn"},
			anchor:     atAssignment,
		},
	}
})

// passwordValue reports whether an assignment's value looks like a real
// secret. With "=" (code, env files, connection strings) any concrete value
// counts; with ":" (prose as well as YAML) the value must be quoted or look
// like a password (a digit or a symbol), so "password: must be rotated" and
// "Password: bcrypt-hashed with cost 12" are not findings.
func passwordValue(m []string, v string) bool {
	if k := strings.ToLower(m[1]); k == "token" || k == "pwd" || k == "session" || k == "cookie" || k == "dsn" {
		// Glued to a prefix, keys count (PGPASSWORD, appSecret,
		// openaiApiKey) except these two: OLDPWD, progressToken and
		// pageToken name no secret.
		if i := strings.Index(strings.ToLower(m[0]), k); i > 0 && isAlnum(m[0][i-1]) {
			return false
		}
	}
	quoted := len(v) >= 2 && (v[0] == '"' || v[0] == '\'')
	if q := quoteLen(v); q > 0 {
		v = v[q : len(v)-q]
	}
	if v == "" || placeholder(v) {
		return false
	}
	if !quoted && strings.HasSuffix(v, "(") {
		return false // a call in code: clientSecret = os.Getenv("…")
	}
	if m[2] == "=" && strings.HasPrefix(v, "=") {
		return false // a comparison in code: token == nil
	}
	if m[2] != ":" || quoted {
		return true
	}
	if len(v) < 6 {
		return false
	}
	// Letters joined by - / . are words, paths and names in prose
	// ("Password: bcrypt-hashed", "Secret: kv/data/payments"), not passwords.
	for _, r := range v {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && r != '-' && r != '/' && r != '.' {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// variable reports whether v is a shell or template variable ($TOKEN,
// ${DB_PASSWORD}); a "$" before a digit starts a hash such as bcrypt's
// $2b$12$….
func variable(v string) bool {
	if len(v) < 2 || v[0] != '$' {
		return v == "$"
	}
	c := v[1]
	return c == '{' || c == '(' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// placeholder reports whether v stands for a secret rather than being one.
func placeholder(v string) bool {
	v = strings.Trim(v, `"'`)
	switch {
	case v == "":
		return true
	case variable(v), strings.HasPrefix(v, "%"),
		strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">"),
		strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}"),
		strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"),
		strings.HasPrefix(v, "env(") || strings.HasPrefix(v, "ENV["):
		return true
	case strings.Trim(v, "*xX.•-_") == "":
		return true
	}
	switch strings.ToLower(v) {
	case "null", "none", "nil", "true", "false", "redacted", "example", "placeholder", "required", "optional", "string":
		return true
	}
	return false
}

// Find returns the secrets in text, ordered by position. Overlapping
// candidates are reported once, under the most specific kind. Zero-width
// characters, fullwidth forms and JSON escapes (\u005f, \/) inside a token
// do not hide it. A key
// name longer than 256 bytes is read from its last 256 (see maxKeyName).
func Find(text string) []Finding { return find(text, false, true) }

// find returns the findings of Find, with those of [SensitiveValue] when
// redact is set. windowed runs the slow detectors on the windows where
// they can match (see window.go); without it they read the whole text.
func find(text string, redact, windowed bool) []Finding {
	norm, offsets := normalize(text)
	sc := newScan(norm, windowed)
	var out []Finding
	for i, d := range detectors() {
		if d.redactOnly && !redact || !sc.mayMatch(i) {
			continue
		}
		for _, idx := range sc.matches(i) {
			start, end := idx[2*d.group], idx[2*d.group+1]
			if start < 0 {
				continue
			}
			if d.check != nil {
				m := make([]string, len(idx)/2)
				for i := range m {
					if idx[2*i] >= 0 {
						m[i] = norm[idx[2*i]:idx[2*i+1]]
					}
				}
				if !d.check(m, norm[start:end]) {
					continue
				}
			}
			if d.kind == Password || d.kind == SensitiveValue {
				// Redact inside the quotes, keep the quotes.
				q := quoteLen(norm[start:end])
				start, end = start+q, end-q
			}
			if offsets != nil {
				start, end = offsets.at(start), offsets.at(end)
			}
			if overlaps(out, start, end) {
				continue
			}
			out = append(out, Finding{Kind: d.kind, Start: start, End: end, Line: 1 + strings.Count(text[:start], "\n")})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// containsAny reports whether s holds one of literals; no literals means
// yes.
func containsAny(s string, literals []string) bool {
	for _, l := range literals {
		if strings.Contains(s, l) {
			return true
		}
	}
	return len(literals) == 0
}

// quoteLen returns the length of the quote that opens and closes v: 1 for
// "…" and '…', 2 for a JSON-escaped \"…\", 0 when v is not quoted.
func quoteLen(v string) int {
	switch {
	case len(v) >= 4 && strings.HasPrefix(v, `\"`) && strings.HasSuffix(v, `\"`):
		return 2
	case len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0]:
		return 1
	}
	return 0
}

// normalize returns text without zero-width characters, with fullwidth
// ASCII forms folded to ASCII and with the JSON escapes of the characters
// a token is written with or hidden by decoded (see jsonEscape), and the
// map from byte offsets of the result back to text; the map is nil when
// text needs none of it. A token written inside a JSON string in prose (a
// fact body that quotes a config file) is then found, and redacted escapes
// and all.
func normalize(text string) (string, *offsetMap) {
	if !strings.ContainsFunc(text, hidingRune) && !hasJSONEscape(text) {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	m := &offsetMap{}
	for i := 0; i < len(text); {
		// Runs of plain ASCII are copied as they are.
		j := i
		for j < len(text) && text[j] < utf8.RuneSelf && text[j] != '\\' {
			j++
		}
		if j > i {
			b.WriteString(text[i:j])
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		e, n := jsonEscape(text[i:])
		if n > 0 {
			r, size = e, n // decoded where it hides or spells a token's character
		}
		start := b.Len()
		switch {
		case zeroWidth(r):
		case r >= 0xFF01 && r <= 0xFF5E:
			b.WriteByte(byte(r - 0xFEE0))
		case n > 0:
			b.WriteRune(r)
		default:
			b.WriteString(text[i : i+size]) // a byte that is not UTF-8 too, as it is
		}
		if b.Len()-start != size {
			m.anchors = append(m.anchors, offsetPair{start, i}, offsetPair{b.Len(), i + size})
		}
		i += size
	}
	return b.String(), m
}

// offsetMap maps byte offsets of a normalised text back to the text. Where
// normalize rewrote a character, an anchor pairs the offsets of both texts
// before and after it; between anchors both advance together. A text with
// a few escapes in megabytes needs a few anchors, not an offset per byte.
type offsetMap struct{ anchors []offsetPair }

// offsetPair is an offset of the normalised text and the text's there.
type offsetPair struct{ norm, orig int }

// at returns the offset in the text of offset n of the normalised text: of
// the character that wrote it, or, at a removed character, after it (so a
// token's redaction takes the zero-width characters trailing it).
func (m *offsetMap) at(n int) int {
	k := sort.Search(len(m.anchors), func(k int) bool { return m.anchors[k].norm > n })
	if k == 0 {
		return n
	}
	a := m.anchors[k-1]
	return a.orig + n - a.norm
}

// hasJSONEscape reports whether text holds an escape jsonEscape decodes:
// the escapes of other characters (\u00e9, as encoders that write ASCII
// only spell é) leave a text on normalize's fast path.
func hasJSONEscape(text string) bool {
	for i := strings.IndexByte(text, '\\'); i >= 0; {
		if _, n := jsonEscape(text[i:]); n > 0 {
			return true
		}
		j := strings.IndexByte(text[i+1:], '\\')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// jsonEscape decodes the JSON escape at the start of s when it spells a
// character a token can be written with or hidden by: printable ASCII
// (\u005f, \/), a zero-width character (\u200b) or a fullwidth form
// (\uff47); it returns the character and the escape's length, n 0 for
// anything else (\u00e9 stays as written).
func jsonEscape(s string) (r rune, n int) {
	switch {
	case len(s) < 2 || s[0] != '\\':
		return 0, 0
	case s[1] == '/':
		return '/', 2
	case s[1] != 'u' || len(s) < 6:
		return 0, 0
	}
	v, err := strconv.ParseUint(s[2:6], 16, 16)
	if r = rune(v); err == nil && (r >= 0x20 && r <= 0x7e || hidingRune(r)) {
		return r, 6
	}
	return 0, 0
}

func zeroWidth(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u180e':
		return true
	}
	return false
}

func hidingRune(r rune) bool { return zeroWidth(r) || r >= 0xFF01 && r <= 0xFF5E }

// base64PrivateKey reports whether v decodes to a private key block.
func base64PrivateKey(v string) bool {
	v = strings.TrimRight(v, "=")
	v = v[:len(v)/4*4]
	b, err := base64.StdEncoding.DecodeString(v)
	return err == nil && strings.Contains(string(b), "PRIVATE KEY")
}

// randomLooking reports whether v has a digit or both upper and lower case
// letters, as a generated token does.
func randomLooking(v string) bool {
	return strings.ContainsAny(v, "0123456789") ||
		strings.ContainsFunc(v, func(r rune) bool { return 'a' <= r && r <= 'z' }) &&
			strings.ContainsFunc(v, func(r rune) bool { return 'A' <= r && r <= 'Z' })
}

// awsSecretShape reports whether a 40-character base64 run mixes upper
// case, lower case and digits as a random key does.
func awsSecretShape(v string) bool {
	var upper, lower, digit bool
	for _, c := range v {
		switch {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

func overlaps(fs []Finding, start, end int) bool {
	for _, f := range fs {
		if start < f.End && f.Start < end {
			return true
		}
	}
	return false
}

// Kinds returns the distinct kinds among findings, in order of first
// appearance.
func Kinds(findings []Finding) []Kind {
	var out []Kind
	seen := map[Kind]bool{}
	for _, f := range findings {
		if !seen[f.Kind] {
			seen[f.Kind] = true
			out = append(out, f.Kind)
		}
	}
	return out
}

// Redact returns text with every secret value Find reports, and every
// value of a key that names a credential ([SensitiveValue]), replaced by
// [Placeholder]. Text without secrets comes back unchanged.
func Redact(text string) string {
	fs := find(text, true, true)
	if len(fs) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, f := range fs {
		b.WriteString(text[last:f.Start])
		b.WriteString(Placeholder)
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String()
}
