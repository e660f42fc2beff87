package facts

// This file defines the write rules of a fact: the limits of the seed, the
// forms of type, scope, confidence, source and expires, and the secret check.

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/conflict"
	"github.com/foundryhq/foundry/internal/ctrl"
	"github.com/foundryhq/foundry/internal/lazyre"
	"github.com/foundryhq/foundry/internal/secrets"
)

// The limits of a fact, from the seed and the fact.v1 contract.
const (
	MaxTitleChars = 80
	MinTitleWords = 3
	MaxBodyWords  = 120
	MaxBodyChars  = 900
	MaxTagChars   = 40
)

// Defaults applied by [Store.Write] to fields left empty.
const (
	DefaultScope      = "project"
	DefaultConfidence = Medium
	DefaultSource     = "conversation"
)

// RuleError is a write rule a fact breaks. It matches [ErrInvalid] with
// errors.Is; Rule is a stable name for the rule ("title-length", "scope", …)
// and the error text says what is wrong and how to fix it.
type RuleError struct {
	Rule string
	Msg  string
}

func (e *RuleError) Error() string { return e.Msg }

// Is makes a *RuleError match [ErrInvalid].
func (e *RuleError) Is(target error) bool { return target == ErrInvalid }

// SecretError is a fact refused because a field holds a secret. It matches
// [ErrSecret]; its text names the field and the kind, never the value.
type SecretError struct {
	Field string
	Kinds []secrets.Kind
}

func (e *SecretError) Error() string {
	names := make([]string, len(e.Kinds))
	for i, k := range e.Kinds {
		names[i] = string(k)
	}
	return fmt.Sprintf("%s contains a secret (%s); secrets are never stored in memory", e.Field, strings.Join(names, ", "))
}

// Is makes a *SecretError match [ErrSecret].
func (e *SecretError) Is(target error) bool { return target == ErrSecret }

func ruleErr(rule, format string, args ...any) *RuleError {
	return &RuleError{Rule: rule, Msg: fmt.Sprintf(format, args...)}
}

var (
	scopePattern  = lazyre.New(`^(?:project|(?:module|vertical):[A-Za-z0-9][A-Za-z0-9._/-]*)$`)
	adrPattern    = lazyre.New(`^adr-[0-9]{1,}$`)
	tagPattern    = lazyre.New(`^[\p{L}\p{N}][\p{L}\p{N}._:/+#-]*$`)
	whyPattern    = lazyre.New(`(?im)^[\s>*_-]*why\s*[*_]*:`)
	howPattern    = lazyre.New(`(?im)^[\s>*_-]*how to apply\s*[*_]*:`)
	typeList      = "decision, constraint, convention, domain, risk, metric, glossary"
	errScopeHint  = "use project, module:<name> or vertical:<name>"
	errSourceHint = "use adr-NNNN, conversation, code or external:<url>"
)

// WriteRequest is what a caller asks [Store.Write] to store. Empty optional
// fields take the defaults of the seed: scope project, confidence medium,
// source conversation, no tags, no expiry.
type WriteRequest struct {
	Title      string     `json:"title"`
	Body       string     `json:"body"`
	Type       Type       `json:"type"`
	Scope      string     `json:"scope,omitempty"`
	Tags       []string   `json:"tags,omitempty"`
	Confidence Confidence `json:"confidence,omitempty"`
	Source     string     `json:"source,omitempty"`
	Expires    string     `json:"expires,omitempty"` // YYYY-MM-DD
	Supersedes string     `json:"supersedes,omitempty"`

	// given says which metadata the request set before normalize filled
	// in the defaults: only those can differ from a fact that states the
	// request's text (see differsFrom).
	given struct{ confidence, source, tags, expires bool }
}

// normalize trims the request and fills the defaults.
func (r WriteRequest) normalize() WriteRequest {
	r.Title = strings.TrimSpace(r.Title)
	r.Body = strings.TrimSpace(strings.ReplaceAll(r.Body, "\r\n", "\n"))
	r.Type = Type(strings.TrimSpace(string(r.Type)))
	r.Scope = strings.TrimSpace(r.Scope)
	if r.Scope == "" {
		r.Scope = DefaultScope
	}
	r.Confidence = Confidence(strings.TrimSpace(string(r.Confidence)))
	r.given.confidence = r.Confidence != ""
	if r.Confidence == "" {
		r.Confidence = DefaultConfidence
	}
	r.Source = strings.TrimSpace(r.Source)
	r.given.source = r.Source != ""
	if r.Source == "" {
		r.Source = DefaultSource
	}
	r.Expires = strings.TrimSpace(r.Expires)
	r.Supersedes = strings.TrimSpace(r.Supersedes)
	tags := []string{}
	seen := map[string]bool{}
	for _, t := range r.Tags {
		for _, part := range strings.Split(t, ",") {
			part = strings.TrimSpace(part)
			if part != "" && !seen[part] {
				seen[part] = true
				tags = append(tags, part)
			}
		}
	}
	r.Tags = tags
	r.given.tags = len(tags) > 0
	r.given.expires = r.Expires != ""
	return r
}

// tagSet returns tags sorted, each once: a hand-written fact may list one
// twice.
func tagSet(tags []string) []string { return slices.Compact(slices.Sorted(slices.Values(tags))) }

// differsFrom returns the metadata that the normalised request sets to
// other values than fact f holds, by their field names: a request that
// states f's text with another confidence, source, tags or expiry
// supersedes f, where one that leaves them out or repeats them leaves f
// unchanged.
func (r WriteRequest) differsFrom(f Fact) []string {
	var out []string
	conf, source := f.Confidence, f.Source
	if conf == "" {
		conf = DefaultConfidence
	}
	if source == "" {
		source = DefaultSource
	}
	if r.given.confidence && r.Confidence != conf {
		out = append(out, "confidence")
	}
	if r.given.source && r.Source != source {
		out = append(out, "source")
	}
	if r.given.tags && !slices.Equal(tagSet(r.Tags), tagSet(f.Tags)) {
		out = append(out, "tags")
	}
	if r.given.expires && r.Expires != f.Expires {
		out = append(out, "expires")
	}
	return out
}

// RuleErrors is every write rule one fact breaks, in the order the rules
// are checked, so a writer fixes them all in one go. It matches
// [ErrInvalid], and errors.As finds each *[RuleError].
type RuleErrors []*RuleError

// Error lists the rules one a line:
//
//	2 rules broken:
//	- a decision body needs a "Why:" line
//	- a decision body needs a "How to apply:" line
func (e RuleErrors) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rules broken:", len(e))
	for _, r := range e {
		b.WriteString("\n- " + r.Msg)
	}
	return b.String()
}

// Unwrap returns each broken rule.
func (e RuleErrors) Unwrap() []error {
	errs := make([]error, len(e))
	for i, r := range e {
		errs[i] = r
	}
	return errs
}

// rules returns nil for no broken rule, the one *RuleError for one, and
// RuleErrors for several.
func rules(errs []*RuleError) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return RuleErrors(errs)
}

// CheckForm checks the fields of req whose form is fixed — type,
// confidence and tags (enums and patterns), scope, source, the form of
// expires and of supersedes — and returns every one that is malformed
// (a *[RuleError] or [RuleErrors]), or nil. A command line checks them
// before anything else: a value its flag's syntax rejects is a usage error,
// while [Store.Write] also enforces the content rules (title, body, a date
// in the past, secrets).
func CheckForm(req WriteRequest) error {
	return rules(req.normalize().formErrors())
}

func (r WriteRequest) formErrors() []*RuleError {
	var errs []*RuleError
	switch {
	case r.Type == "":
		errs = append(errs, ruleErr("type", "type is required; use one of %s", typeList))
	case !r.Type.Valid():
		errs = append(errs, ruleErr("type", "unknown type %q; use one of %s", r.Type, typeList))
	}
	if !scopePattern().MatchString(r.Scope) {
		errs = append(errs, ruleErr("scope", "invalid scope %q; %s", r.Scope, errScopeHint))
	}
	if !r.Confidence.Valid() {
		errs = append(errs, ruleErr("confidence", "invalid confidence %q; use high, medium or low", r.Confidence))
	}
	if !validSource(r.Source) {
		errs = append(errs, ruleErr("source", "invalid source %q; %s", r.Source, errSourceHint))
	}
	for _, t := range r.Tags {
		if utf8.RuneCountInString(t) > MaxTagChars || !tagPattern().MatchString(t) {
			errs = append(errs, ruleErr("tag", "invalid tag %q; a tag is one word of at most %d characters (letters, digits, . _ : / + # -), starting with a letter or digit", t, MaxTagChars))
		}
	}
	if r.Expires != "" && !ValidDate(r.Expires) {
		errs = append(errs, ruleErr("expires", "invalid expires %q; use a real date as YYYY-MM-DD", r.Expires))
	}
	if r.Supersedes != "" && !ValidID(r.Supersedes) {
		errs = append(errs, ruleErr("supersedes", "invalid supersedes %q; use a fact id such as fact-0009", r.Supersedes))
	}
	return errs
}

// validate checks a normalised request against every write rule and returns
// all the rules it breaks (a *[RuleError] or [RuleErrors]) or, when it breaks
// none, a *[SecretError] for a secret it holds. today is the caller's date,
// YYYY-MM-DD, for the expiry check.
func (r WriteRequest) validate(today string) error {
	// Facts are UTF-8 text: other bytes would not survive the YAML front
	// matter, and a fact file that cannot be read back is lost.
	for _, f := range []struct{ name, text string }{
		{"title", r.Title}, {"body", r.Body}, {"type", string(r.Type)}, {"scope", r.Scope},
		{"source", r.Source}, {"tags", strings.Join(r.Tags, " ")},
	} {
		if !utf8.ValidString(f.text) {
			return ruleErr(f.name, "%s is not valid UTF-8 text", f.name)
		}
		// A stored escape sequence would drive the terminal of whoever
		// lists the fact later.
		if err := ctrl.Check(f.name, f.text); err != nil {
			return ruleErr(f.name, "%v", err)
		}
	}
	// The type comes first (it decides the body rules), then title and
	// body, then the other fields.
	form := r.formErrors()
	var errs []*RuleError
	if len(form) > 0 && form[0].Rule == "type" {
		errs, form = append(errs, form[0]), form[1:]
	}
	errs = append(errs, checkTitle(r.Title)...)
	errs = append(errs, checkBody(r.Type, r.Body)...)
	if b := conflict.Find([]byte(r.Body)); len(b) > 0 {
		// Parse refuses a file with conflict markers: the fact would be
		// written and never read.
		errs = append(errs, ruleErr("body", "body line %d is a git conflict marker; resolve the conflict first", b[0].Start))
	}
	errs = append(errs, form...)
	if r.Expires != "" && ValidDate(r.Expires) && r.Expires < today {
		errs = append(errs, ruleErr("expires", "expires %s is already past; the fact would never be loaded", r.Expires))
	}
	if err := rules(errs); err != nil {
		return err
	}
	fields := []struct{ name, text string }{
		{"title", r.Title}, {"body", r.Body}, {"scope", r.Scope}, {"source", r.Source}, {"tags", strings.Join(r.Tags, " ")},
	}
	for _, f := range fields {
		if found := secrets.Find(f.text); len(found) > 0 {
			return &SecretError{Field: f.name, Kinds: secrets.Kinds(found)}
		}
	}
	return nil
}

func checkTitle(title string) []*RuleError {
	n := utf8.RuneCountInString(title)
	switch {
	case title == "":
		return []*RuleError{ruleErr("title", "title is required")}
	case strings.ContainsAny(title, "\n\r"):
		return []*RuleError{ruleErr("title", "title must be a single line")}
	case n > MaxTitleChars:
		return []*RuleError{ruleErr("title-length", "title is %d characters; the limit is %d", n, MaxTitleChars)}
	case len(strings.Fields(title)) < MinTitleWords:
		return []*RuleError{ruleErr("title-statement", "title %q names a topic; state the fact itself in at least %d words, e.g. \"Persistence layer uses Flyway, not Liquibase\"", title, MinTitleWords)}
	}
	return nil
}

func checkBody(t Type, body string) []*RuleError {
	if body == "" {
		return []*RuleError{ruleErr("body", "body is required")}
	}
	var errs []*RuleError
	if words := len(strings.Fields(body)); words > MaxBodyWords {
		errs = append(errs, ruleErr("body-words", "body is %d words; the limit is %d", words, MaxBodyWords))
	}
	if chars := utf8.RuneCountInString(body); chars > MaxBodyChars {
		errs = append(errs, ruleErr("body-length", "body is %d characters; the limit is %d", chars, MaxBodyChars))
	}
	if t == Decision || t == Risk {
		if !whyPattern().MatchString(body) {
			errs = append(errs, ruleErr("body-why", "a %s body needs a \"Why:\" line", t))
		}
		if !howPattern().MatchString(body) {
			errs = append(errs, ruleErr("body-how", "a %s body needs a \"How to apply:\" line", t))
		}
	}
	return errs
}

func validSource(s string) bool {
	switch {
	case s == "conversation", s == "code", adrPattern().MatchString(s):
		return true
	case strings.HasPrefix(s, "external:"):
		u, err := url.Parse(strings.TrimPrefix(s, "external:"))
		return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "") && !strings.ContainsAny(s, " \t\n")
	}
	return false
}
