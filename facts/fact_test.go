package facts

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleFact() Fact {
	return Fact{
		ID: "fact-0004", Type: Decision, Title: "Persistence layer uses Flyway, not Liquibase",
		Scope: "project", Tags: []string{"database", "migrations"}, Confidence: High,
		Source: "adr-0007", Created: "2025-03-14", Status: Active,
		Body: "Chosen for the plain-SQL migration format the team already reads.\nWhy: reviews read SQL.\nHow to apply: add V<n>__name.sql files.",
	}
}

func TestFormatGolden(t *testing.T) {
	t.Parallel()
	f := sampleFact()
	f.Expires = "2026-01-31"
	f.Supersedes = "fact-0002"
	want := `---
id: fact-0004
type: decision
title: Persistence layer uses Flyway, not Liquibase
scope: project
tags: [database, migrations]
confidence: high
source: adr-0007
created: 2025-03-14
expires: 2026-01-31
supersedes: fact-0002
status: active
---
Chosen for the plain-SQL migration format the team already reads.
Why: reviews read SQL.
How to apply: add V<n>__name.sql files.
`
	if diff := cmp.Diff(want, string(Format(f))); diff != "" {
		t.Errorf("Format (-want +got):\n%s", diff)
	}
}

func TestParseFormatRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		modify func(*Fact)
	}{
		{"sample", func(*Fact) {}},
		{"title with colon and hash", func(f *Fact) { f.Title = "Rule: never # comment the schema" }},
		{"title that looks like a bool", func(f *Fact) { f.Title = "true" }},
		{"title with quotes", func(f *Fact) { f.Title = `"Quoted" and 'single' words here` }},
		{"title starting with dash", func(f *Fact) { f.Title = "- starts with a dash" }},
		{"unicode", func(f *Fact) { f.Title = "Währung ist immer EUR — nie USD"; f.Tags = []string{"währung"} }},
		{"no tags", func(f *Fact) { f.Tags = []string{} }}, // parsed as [], never nil: JSON says "tags": []
		{"tags needing quotes", func(f *Fact) { f.Tags = []string{"a, b", "[x]", "c#"} }},
		{"scope module", func(f *Fact) { f.Scope = "module:billing" }},
		{"external source", func(f *Fact) { f.Source = "external:https://example.com/a?b=c#d" }},
		{"superseded", func(f *Fact) { f.Status = Superseded; f.SupersededBy = "fact-0016" }},
		{"body with front matter delimiter", func(f *Fact) { f.Body = "line one\n---\nline three" }},
		{"empty body", func(f *Fact) { f.Body = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := sampleFact()
			tt.modify(&f)
			data := Format(f)
			got, err := Parse("x.md", data)
			if err != nil {
				t.Fatalf("Parse(Format(f)): %v\n%s", err, data)
			}
			if diff := cmp.Diff(f, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s\nfile:\n%s", diff, data)
			}
			if again := Format(got); string(again) != string(data) {
				t.Errorf("Format not stable:\n%s\n---\n%s", data, again)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const p = ".foundry/memory/fact-0003-x.md"
	tests := []struct {
		name, in, want string
	}{
		{"no front matter", "just text\n", p + ":1: missing front matter: the file must start with a \"---\" line"},
		{"unclosed", "---\nid: fact-0003\n", p + ":3: front matter is not closed by a \"---\" line"},
		{"yaml scanner error", "---\nid: x\ntitle: a: b\n---\n", p + ":3: front matter: not valid YAML: the value holds \": \"; put it in quotes"},
		{"yaml parser error", "---\nid: fact-0003\ntitle: [unclosed\n---\n", p + ":3: front matter: not valid YAML: \"[\" is not closed on this line"},
		{"yaml error after a value over two lines", "---\ntags: [a,\n  b]\nid: fact-0003\ntitle: a: b\nscope: x\n---\n", p + ":5: front matter: not valid YAML: the value holds \": \"; put it in quotes"},
		{"unclosed quote", "---\nid: fact-0003\ntitle: \"open\nscope: x\n---\n", p + ":3: front matter: not valid YAML: the quoted value is not closed on this line"},
		{"unclosed brace", "---\nscope: {a: 1\n---\n", p + ":2: front matter: not valid YAML: \"{\" is not closed on this line"},
		{"bad indentation", "---\nid: fact-0003\n  title: x\n---\n", p + ":3: front matter: not valid YAML"},
		{"error far down a long front matter", "---\n" + strings.Repeat("# comment\n", 3000) + "title: a: b\n" + strings.Repeat("# more\n", 100) + "---\n", p + ":3002: front matter: not valid YAML: the value holds \": \"; put it in quotes"},
		{"not a mapping", "---\n- a\n- b\n---\n", p + ":2: front matter is not a mapping of keys to values"},
		{"empty", "---\n---\nbody\n", p + ":2: front matter is empty"},
		{"unknown key", "---\nid: fact-0003\nowner: bob\n---\n", p + ":3: unknown key \"owner\" (known: id, type, title, scope, tags, confidence, source, created, expires, supersedes, supersededBy, status, retiredReason)"},
		{"duplicate key", "---\nid: fact-0003\nid: fact-0004\n---\n", p + ":3: duplicate key \"id\""},
		{"missing id", "---\ntype: decision\ntitle: A B C\n---\n", p + ":2: missing id"},
		{"bad id", "---\nid: fact-3\ntype: decision\ntitle: A B C\n---\n", p + ":2: id \"fact-3\" is not of the form fact-NNNN"},
		{"unknown type", "---\nid: fact-0003\ntype: opinion\ntitle: A B C\n---\n", p + ":3: unknown type \"opinion\""},
		{"missing title", "---\nid: fact-0003\ntype: decision\n---\n", p + ":2: missing title"},
		{"mapping value", "---\nid: fact-0003\ntype: decision\ntitle:\n  a: b\n---\n", p + ":5: title: want a single value"},
		{"bad date", "---\nid: fact-0003\ntype: domain\ntitle: A B C\ncreated: 2025-02-30\n---\n", p + ":5: created \"2025-02-30\" is not a YYYY-MM-DD date"},
		{"bad confidence", "---\nid: fact-0003\ntype: domain\ntitle: A B C\nconfidence: sure\n---\n", p + ":5: unknown confidence \"sure\""},
		{"bad tags", "---\nid: fact-0003\ntype: domain\ntitle: A B C\ntags: {a: b}\n---\n", p + ":5: tags: want a list of words"},
		{"bad status", "---\nid: fact-0003\ntype: domain\ntitle: A B C\nstatus: gone\n---\n", p + ":5: unknown status \"gone\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(p, []byte(tt.in))
			if err == nil {
				t.Fatal("Parse: no error")
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v does not match ErrMalformed", err)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseLenient(t *testing.T) {
	t.Parallel()
	in := "\ufeff---\r\nid: fact-0012\r\ntype: glossary\r\ntitle: 123\r\ntags: single\r\nexpires:\r\n---\r\n\r\n  Body text.  \r\n\r\n"
	got, err := Parse("f.md", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Fact{ID: "fact-0012", Type: Glossary, Title: "123", Tags: []string{"single"}, Body: "Body text."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

// TestParseTags: every way of writing no tag gives no tag, so that a fact
// reads back as Format writes it.
func TestParseTags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tags string
		want []string
	}{
		{"single", []string{"single"}},
		{"' spaced '", []string{"spaced"}},
		{"[a, 'b']", []string{"a", "b"}},
		{"[a, '', ' ']", []string{"a"}},
		{"[]", nil},
		{"", nil},
		{"~", nil},
		{"''", nil},
		{"' '", nil},
		{"!custom", nil},
		{"!custom ''", nil},
	}
	for _, tt := range tests {
		in := "---\nid: fact-0001\ntype: risk\ntitle: x\ntags: " + tt.tags + "\n---\n"
		got, err := Parse("f.md", []byte(in))
		if err != nil {
			t.Errorf("tags: %s: %v", tt.tags, err)
			continue
		}
		if !slices.Equal(got.Tags, tt.want) {
			t.Errorf("tags: %s gives %q, want %q", tt.tags, got.Tags, tt.want)
		}
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Persistence layer uses Flyway, not Liquibase", "persistence-layer-uses-flyway-not-liquibase"},
		{"Don't log PII", "dont-log-pii"},
		{"  ", "fact"},
		{"Ünïcödé only ✓", "n-c-d-only"},
		{"A very long title that goes on and on and on past the fifty character cut", "a-very-long-title-that-goes-on-and-on-and-on-past"},
		{strings.Repeat("x", 60), strings.Repeat("x", 50)},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIDs(t *testing.T) {
	t.Parallel()
	for id, n := range map[string]int{"fact-0016": 16, "fact-12345": 12345, "fact-016": -1, "fact-x016": -1, "Fact-0016": -1} {
		if got := IDNumber(id); got != n {
			t.Errorf("IDNumber(%q) = %d, want %d", id, got, n)
		}
	}
	if got := FormatID(7); got != "fact-0007" {
		t.Errorf("FormatID(7) = %q", got)
	}
	if got := FormatID(10000); got != "fact-10000" {
		t.Errorf("FormatID(10000) = %q", got)
	}
}

func FuzzParseFact(f *testing.F) {
	f.Add(string(Format(sampleFact())))
	f.Add("---\nid: fact-0001\ntype: risk\ntitle: x\n---\n")
	f.Add("---\nid: fact-0001\ntype: risk\ntitle: &a x\ntags: *a\n---\n")
	f.Add("---\n: \n---\n")
	f.Add("---\nid: [fact-0001]\n---\n")
	f.Add("---\r\nid: fact-0001\r\ntype: glossary\r\ntitle: '---'\r\n---\r\nbody")
	f.Add("---\nid: fact-0001\ntype: domain\ntitle: x: y\ntags: [a, 'b']\n---\n")
	f.Add("---\nid: fact-0001\ntype: domain\ntitle: 0x1F\ntags: [~, null]\nscope: ~\n---\n")
	f.Fuzz(func(t *testing.T, in string) {
		// The fast path, when it accepts front matter, must agree with YAML.
		if lines := strings.SplitAfter(in, "\n"); len(lines) > 2 {
			front := lines[1 : len(lines)-1]
			if fast, fastLines, ok := parseFrontFast(front); ok {
				slow, slowLines, err := parseFrontYAML("fuzz.md", strings.Join(front, ""))
				if err != nil {
					t.Fatalf("fast path accepts what YAML rejects (%v): %q", err, in)
				}
				if !cmp.Equal(fast, slow) || !cmp.Equal(fastLines, slowLines) {
					t.Fatalf("fast and YAML paths differ for %q:\n%s%s", in, cmp.Diff(slow, fast), cmp.Diff(slowLines, fastLines))
				}
			}
		}
		got, err := Parse("fuzz.md", []byte(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		data := Format(got)
		again, err := Parse("fuzz.md", data)
		if err != nil {
			t.Fatalf("Parse(Format(Parse(in))): %v\nin: %q\nformatted: %q", err, in, data)
		}
		if diff := cmp.Diff(normalizeForRoundTrip(got), again); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s\nin: %q\nformatted: %q", diff, in, data)
		}
		if string(Format(again)) != string(data) {
			t.Fatalf("Format not stable for %q", in)
		}
	})
}

// normalizeForRoundTrip applies what Format fills in or drops: a missing
// status becomes active, and values that only differ by surrounding space
// are trimmed on the way back.
func normalizeForRoundTrip(f Fact) Fact {
	if f.Status == "" {
		f.Status = Active
	}
	return f
}

func TestParseFrontFastAgreesWithYAML(t *testing.T) {
	t.Parallel()
	values := []string{
		"yes", "No", "1e3", "0x1F", "0o17", ".5", "5.", "a:b", "a :b", "a#b", "a #b", "Don't log PII",
		"Ünïcode ß title", "a\u00a0b", "a  b", "!important", "*x", "&x", "%x", "@x", "`x", "a,b", "a[b]", "{x}",
		"- x", "? x", "a - b", "a ? b", "a | b", "a > b", "<<", "1:2", "2025-03-14", "2025-3-4", "~", "null",
		"Null", "NULL", "true", "a\tb", "x:", "x: ", "http://a.b/c?d=e#f", "module:billing", "(paren) start",
		"trailing ", "a'b'c", `a"b"c`, "=", "=x", "0", "-1", "+1", "1_000", "a \\ b", "…", "∞ loop here",
	}
	for _, v := range values {
		for _, front := range []string{
			"id: fact-0001\ntitle: " + v + "\n",
			"id: fact-0001\ntags: [" + v + ", z]\n",
			"id: fact-0001\nscope: " + v + "\n",
		} {
			lines := strings.SplitAfter(front, "\n")
			lines = lines[:len(lines)-1]
			fast, fastLines, ok := parseFrontFast(lines)
			if !ok {
				continue
			}
			slow, slowLines, err := parseFrontYAML("x.md", front)
			if err != nil {
				t.Errorf("fast path accepts %q, YAML rejects it: %v", front, err)
				continue
			}
			if !cmp.Equal(fast, slow) || !cmp.Equal(fastLines, slowLines) {
				t.Errorf("paths differ for %q:\n%s", front, cmp.Diff(slow, fast))
			}
		}
	}
}

func TestJaccardSortedMatchesSets(t *testing.T) {
	t.Parallel()
	titles := []string{"", "Migrations use Flyway", "Flyway runs the migrations", "The orders service relies on postgres",
		"The orders service relies on kafka for events", "use the the use", "Postgres Postgres orders"}
	for _, a := range titles {
		for _, b := range titles {
			want := jaccard(termSet(a, nil), termSet(b, nil))
			if got := jaccardSorted(sortedTerms(a, nil), sortedTerms(b, nil)); got != want {
				t.Errorf("jaccard(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestFormatPlainMatchesYAML: the fast formatter, where it formats a fact,
// writes the YAML encoder's bytes; it formats the usual fact, and leaves to
// the encoder every value the encoder would quote or could read otherwise.
func TestFormatPlainMatchesYAML(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		edit  func(*Fact)
		plain bool
	}{
		{"the usual fact", func(*Fact) {}, true},
		{"every optional key", func(f *Fact) {
			f.Expires, f.Supersedes, f.SupersededBy, f.Status, f.RetiredReason = "2027-02-03", "fact-0002", "fact-0009", Retired, "The queue was removed"
		}, true},
		{"no tags", func(f *Fact) { f.Tags = nil }, true},
		{"no status", func(f *Fact) { f.Status = "" }, true},
		{"no body", func(f *Fact) { f.Body = "" }, true},
		{"a body with CRLF and space around", func(f *Fact) { f.Body = "\r\n  line one\r\nline two  \r\n" }, true},
		{"punctuation YAML reads as text", func(f *Fact) { f.Title = "Don't retry: backoff is x2, (a/b) & c - d! e? [f] {g} #h ~i" }, false},
		{"a title with no mapping indicator", func(f *Fact) { f.Title = "Retry (twice) at most; a/b & c - d! e? f% g@h" }, true},
		{"a colon inside a word", func(f *Fact) { f.Title = "Use http://example.test for tests" }, true},
		{"a colon before a space", func(f *Fact) { f.Title = "Rule: retry twice" }, false},
		{"a final colon", func(f *Fact) { f.Title = "Rule:" }, false},
		{"a comment", func(f *Fact) { f.Title = "Retry #twice" }, false},
		{"a hash in a word", func(f *Fact) { f.Title = "Use C# for tools" }, true},
		{"a boolean", func(f *Fact) { f.Source = "true" }, false},
		{"a YAML 1.1 boolean", func(f *Fact) { f.Source = "yes" }, true},
		{"null", func(f *Fact) { f.Scope = "Null" }, false},
		{"a number", func(f *Fact) { f.Title = "42" }, false},
		{"a float", func(f *Fact) { f.Title = ".5" }, false},
		{"a date", func(f *Fact) { f.Title = "2025-01-01" }, false},
		{"a leading indicator", func(f *Fact) { f.Title = "- item" }, false},
		{"a leading quote", func(f *Fact) { f.Title = "'quoted'" }, false},
		{"a trailing space", func(f *Fact) { f.Title = "Trailing " }, false},
		{"a tab", func(f *Fact) { f.Title = "Tab\there" }, false},
		{"not ASCII", func(f *Fact) { f.Title = "Café opens at nine" }, false},
		{"a line separator", func(f *Fact) { f.Title = "One\u2028two" }, false},
		{"an empty scope", func(f *Fact) { f.Scope = "" }, false},
		{"an empty source", func(f *Fact) { f.Source = "" }, false},
		{"a comma in a tag", func(f *Fact) { f.Tags = []string{"a,b"} }, false},
		{"a colon in a tag", func(f *Fact) { f.Tags = []string{"a:b"} }, false},
		{"a bracket in a tag", func(f *Fact) { f.Tags = []string{"a]"} }, false},
		{"a boolean tag", func(f *Fact) { f.Tags = []string{"false"} }, false},
		{"no date", func(f *Fact) { f.Created = "" }, false},
		{"not a date", func(f *Fact) { f.Created = "2025-02-30" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := sampleFact()
			tt.edit(&f)
			got, ok := formatPlain(f)
			if ok != tt.plain {
				t.Fatalf("formatPlain ok = %v, want %v", ok, tt.plain)
			}
			want := formatYAML(f)
			if ok && !bytes.Equal(got, want) {
				t.Fatalf("formatPlain differs from the YAML encoder:\n%s", cmp.Diff(string(want), string(got)))
			}
			if got := Format(f); !bytes.Equal(got, want) {
				t.Fatalf("Format differs from the YAML encoder:\n%s", cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// FuzzFormatPlain: wherever the fast formatter formats a fact, its bytes
// are the YAML encoder's, and they read back as the fact.
func FuzzFormatPlain(f *testing.F) {
	s := sampleFact()
	f.Add(s.ID, s.Title, s.Scope, "database", "migrations", s.Source, s.Created, "", "", "", "active", s.Body)
	f.Add("fact-0001", "Rule: x", "project", "a,b", "", "true", "2025-01-01", "2025-02-01", "fact-0002", "Retired reason", "retired", "")
	f.Add("fact-0001", "Yes", "No", "on", "off", "y", "2025-01-01", "", "fact-0003", "~", "superseded", "body")
	f.Fuzz(func(t *testing.T, id, title, scope, tag1, tag2, source, created, expires, link, reason, status, body string) {
		fact := Fact{ID: id, Type: Decision, Title: title, Scope: scope, Tags: []string{tag1, tag2}, Confidence: High,
			Source: source, Created: created, Expires: expires, Supersedes: link, SupersededBy: link, RetiredReason: reason,
			Status: Status(status), Body: body}
		if tag2 == "" {
			fact.Tags = fact.Tags[:1]
		}
		got, ok := formatPlain(fact)
		if !ok {
			return
		}
		if want := formatYAML(fact); !bytes.Equal(got, want) {
			t.Fatalf("formatPlain differs from the YAML encoder:\n%s", cmp.Diff(string(want), string(got)))
		}
		front, _, _ := strings.Cut(strings.TrimPrefix(string(got), delimiter+"\n"), "\n"+delimiter+"\n")
		back, _, err := parseFrontYAML("fuzz.md", front+"\n")
		if err != nil {
			t.Fatalf("formatPlain's bytes do not read back: %v\n%s", err, got)
		}
		if back.Title != fact.Title || back.Scope != fact.Scope || back.Source != fact.Source || back.Supersedes != fact.Supersedes ||
			back.RetiredReason != fact.RetiredReason || !slices.Equal(back.Tags, fact.Tags) {
			t.Fatalf("formatPlain's bytes read back as\n%+v\nnot\n%+v", back, fact)
		}
	})
}
