package facts

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/tokens"
)

func indexFacts() []Fact {
	return []Fact{
		{ID: "fact-0001", Type: Glossary, Title: "SKU means stock keeping unit", Confidence: High, Created: "2025-01-02", Scope: "project"},
		{ID: "fact-0002", Type: Decision, Title: "Persistence layer uses Flyway, not Liquibase", Confidence: Medium, Created: "2025-01-03", Scope: "project"},
		{ID: "fact-0003", Type: Decision, Title: "Events are published through the outbox table", Confidence: High, Created: "2025-01-01", Scope: "module:orders"},
		{ID: "fact-0004", Type: Constraint, Title: "Customer data stays in the EU region", Confidence: Low, Created: "2025-02-01", Scope: "project"},
		{ID: "fact-0005", Type: Decision, Title: "Old decision replaced later on", Confidence: High, Created: "2024-01-01", Status: Superseded, SupersededBy: "fact-0006"},
		{ID: "fact-0006", Type: Decision, Title: "Newer decision with the same date", Confidence: High, Created: "2025-01-01"},
		{ID: "fact-0007", Type: Metric, Title: "Checkout p95 latency is 300 ms", Created: "2025-01-05", Expires: "2025-03-01"},
		{ID: "fact-0008", Type: Risk, Title: "Payment provider has no failover", Confidence: Medium, Created: "2025-01-05"},
	}
}

func TestBuildIndex(t *testing.T) {
	t.Parallel()
	got := BuildIndex(indexFacts(), "2025-03-14", 4000)
	want := `# Memory index

6/6 facts listed, ~170 tokens.
Active facts, most important first. Use memory_search for a fact's body; do not read fact files.

- fact-0004 · constraint · low · 2025-02-01 · Customer data stays in the EU region
- fact-0006 · decision · high · 2025-01-01 · Newer decision with the same date
- fact-0003 · decision · high · 2025-01-01 · Events are published through the outbox table (module:orders)
- fact-0002 · decision · medium · 2025-01-03 · Persistence layer uses Flyway, not Liquibase
- fact-0008 · risk · medium · 2025-01-05 · Payment provider has no failover
- fact-0001 · glossary · high · 2025-01-02 · SKU means stock keeping unit
`
	if diff := cmp.Diff(want, string(got.Content)); diff != "" {
		t.Errorf("INDEX.md (-want +got):\n%s", diff)
	}
	if got.Tokens != tokens.Estimate(len(got.Content)) {
		t.Errorf("Tokens = %d, file is %d tokens", got.Tokens, tokens.Estimate(len(got.Content)))
	}
	if s := got.Summary(); s != "6/6 facts listed, ~170 tokens." {
		t.Errorf("Summary = %q", s)
	}
	// Input order does not matter: byte-identical output.
	rev := indexFacts()
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if again := BuildIndex(rev, "2025-03-14", 4000); string(again.Content) != string(got.Content) {
		t.Error("BuildIndex depends on input order")
	}
}

func TestBuildIndexEmpty(t *testing.T) {
	t.Parallel()
	got := BuildIndex(nil, "2025-03-14", 4000)
	if !strings.Contains(string(got.Content), "0/0 facts listed") || !strings.Contains(string(got.Content), emptyLine) {
		t.Errorf("empty index:\n%s", got.Content)
	}
}

func TestBuildIndexBudget(t *testing.T) {
	t.Parallel()
	var fs []Fact
	for i := 1; i <= 300; i++ {
		fs = append(fs, Fact{ID: FormatID(i), Type: Types[i%len(Types)], Title: fmt.Sprintf("Fact number %d states something useful", i), Confidence: High, Created: "2025-01-01"})
	}
	for _, budget := range []int{60, 100, 500, 1000, 4000} {
		got := BuildIndex(fs, "2025-03-14", budget)
		if got.Tokens > budget {
			t.Errorf("budget %d: %d tokens", budget, got.Tokens)
		}
		if got.Tokens != tokens.Estimate(len(got.Content)) {
			t.Errorf("budget %d: Tokens = %d, file is %d tokens", budget, got.Tokens, tokens.Estimate(len(got.Content)))
		}
		if got.Listed+got.Omitted != 300 || got.Omitted == 0 {
			t.Errorf("budget %d: listed %d omitted %d", budget, got.Listed, got.Omitted)
		}
		want := fmt.Sprintf("%d/300 facts listed, ~%d tokens, %d omitted.", got.Listed, got.Tokens, got.Omitted)
		if got.Summary() != want || !strings.Contains(string(got.Content), "\n"+want+"\n") {
			t.Errorf("budget %d: summary %q, want %q in file", budget, got.Summary(), want)
		}
		if !strings.HasSuffix(string(got.Content), fmt.Sprintf("\n%d more facts omitted over the %d-token budget; find them with memory_search.\n", got.Omitted, budget)) {
			t.Errorf("budget %d: no omitted line:\n%s", budget, got.Content)
		}
		// One more line would not have fit.
		if lines := strings.Count(string(got.Content), "\n- fact-"); lines != got.Listed {
			t.Errorf("budget %d: %d lines, Listed %d", budget, lines, got.Listed)
		}
	}
	if w := (IndexResult{Listed: 13, Active: 16, Omitted: 3, Tokens: 1980}).WriteSummary(); w != "Index: 13/16 facts listed, ~1980 tokens, 3 omitted over budget." {
		t.Errorf("WriteSummary = %q", w)
	}
	if w := (IndexResult{Listed: 13, Active: 16, Omitted: 3, Tokens: 1980}).Summary(); w != "13/16 facts listed, ~1980 tokens, 3 omitted." {
		t.Errorf("Summary = %q", w)
	}
}

func TestParseIndexLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		want   IndexEntry
		wantOK bool
	}{
		{"- fact-0004 · decision · high · 2025-03-14 · Persistence · layer", IndexEntry{ID: "fact-0004", Type: Decision, Confidence: High, Created: "2025-03-14", Line: "- fact-0004 · decision · high · 2025-03-14 · Persistence · layer"}, true},
		{"- fact-12345 · glossary · low · - · Term means thing", IndexEntry{ID: "fact-12345", Type: Glossary, Confidence: Low, Line: "- fact-12345 · glossary · low · - · Term means thing"}, true},
		{"# Memory index", IndexEntry{}, false},
		{"- fact-04 · decision · high · 2025-03-14 · x", IndexEntry{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseIndexLine(tt.in)
		if ok != tt.wantOK || !cmp.Equal(tt.want, got) {
			t.Errorf("ParseIndexLine(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestMergeIndex(t *testing.T) {
	t.Parallel()
	today := "2025-03-14"
	base := indexFacts()[:4]
	ours := append(append([]Fact(nil), base...),
		Fact{ID: "fact-0005", Type: Decision, Title: "Ours adds a decision here", Confidence: High, Created: "2025-03-01"})
	theirs := append([]Fact(nil), base...)
	theirs[1].Status = Superseded // theirs superseded fact-0002 with their fact-0005
	theirs = append(theirs, Fact{ID: "fact-0005", Type: Decision, Title: "Theirs replaces the Flyway decision", Confidence: High, Created: "2025-03-02", Supersedes: "fact-0002"})

	got, err := MergeIndex(BuildIndex(base, today, 4000).Content, BuildIndex(ours, today, 4000).Content, BuildIndex(theirs, today, 4000).Content, 4000)
	if err != nil {
		t.Fatal(err)
	}
	// What the merge should give: all facts of both sides, fact-0002 gone.
	all := append(append([]Fact(nil), theirs...), ours[4])
	want := BuildIndex(all, today, 4000)
	if diff := cmp.Diff(string(want.Content), string(got)); diff != "" {
		t.Errorf("merged index (-want +got):\n%s", diff)
	}

	// Budget re-applied to the union.
	small, err := MergeIndex(nil, BuildIndex(ours, today, 4000).Content, BuildIndex(theirs, today, 4000).Content, 70)
	if err != nil {
		t.Fatal(err)
	}
	if tok := tokens.Estimate(len(small)); tok > 70 || !strings.Contains(string(small), "omitted over the 70-token budget") {
		t.Errorf("budgeted merge (%d tokens):\n%s", tok, small)
	}

	// Conflict markers and broken lines are refused.
	for _, bad := range []string{"<<<<<<< ours\n", "- fact-0001 broken line\n"} {
		if _, err := MergeIndex(nil, []byte(bad), nil, 4000); !errors.Is(err, ErrBadIndex) {
			t.Errorf("MergeIndex(%q): %v, want ErrBadIndex", bad, err)
		}
	}
}

// TestMergeIndexCounts holds the merged summary to the facts the merge
// leaves, where every version lists all of its facts: a fact both sides
// added, the same edit made on both sides, two sides superseding two
// facts, and one id added twice with different text (two facts, a
// duplicate id). Over a budget the count stays an estimate.
func TestMergeIndexCounts(t *testing.T) {
	t.Parallel()
	const today = "2025-03-14"
	base := indexFacts()[:4]
	with := func(fs []Fact, edit func([]Fact) []Fact) []Fact { return edit(append([]Fact(nil), fs...)) }
	same := Fact{ID: "fact-0005", Type: Decision, Title: "Both sides learn the same fact", Confidence: High, Created: "2025-03-01"}
	replace := func(i int, f Fact) func([]Fact) []Fact {
		return func(fs []Fact) []Fact {
			fs[i].Status = Superseded
			return append(fs, f)
		}
	}
	add := func(f Fact) func([]Fact) []Fact { return func(fs []Fact) []Fact { return append(fs, f) } }
	other := same
	other.Title = "The other side's fact five"
	for _, tc := range []struct {
		name         string
		ours, theirs []Fact
		want         string
	}{
		{"both sides add the same fact", with(base, add(same)), with(base, add(same)), "5/5 facts listed"},
		{"the same edit on both sides", with(base, replace(1, same)), with(base, replace(1, same)), "4/4 facts listed"},
		{"each side supersedes a fact", with(base, replace(1, same)), with(base, replace(2, Fact{ID: "fact-0006", Type: Decision, Title: "Events go through a queue now", Created: "2025-03-02"})), "4/4 facts listed"},
		{"one id added twice", with(base, add(same)), with(base, add(other)), "6/6 facts listed"},
	} {
		got, err := MergeIndex(BuildIndex(base, today, 4000).Content, BuildIndex(tc.ours, today, 4000).Content, BuildIndex(tc.theirs, today, 4000).Content, 4000)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), tc.want) {
			t.Errorf("%s: merged index\n%s\nwant %q", tc.name, got, tc.want)
		}
	}

	// Ten facts over a budget that lists a few: the lines that move into
	// the list on both sides are no facts both sides added.
	var ten []Fact
	for i := range 10 {
		ten = append(ten, Fact{ID: fmt.Sprintf("fact-%04d", i+1), Type: Domain, Title: fmt.Sprintf("Orders service fact number %d holds", i+1), Created: fmt.Sprintf("2025-01-%02d", i+1)})
	}
	const budget = 150
	for _, tc := range []struct {
		name         string
		ours, theirs []Fact
		want         int
	}{
		{"the same edit on both sides", with(ten, replace(9, Fact{ID: "fact-0011", Type: Domain, Title: "Orders service fact eleven replaces ten", Created: "2025-02-01"})),
			with(ten, replace(9, Fact{ID: "fact-0011", Type: Domain, Title: "Orders service fact eleven replaces ten", Created: "2025-02-01"})), 10},
		{"each side supersedes a fact", with(ten, func(fs []Fact) []Fact { fs[9].Status = Superseded; return fs }),
			with(ten, func(fs []Fact) []Fact { fs[8].Status = Superseded; return fs }), 8},
	} {
		got, err := MergeIndex(BuildIndex(ten, today, budget).Content, BuildIndex(tc.ours, today, budget).Content, BuildIndex(tc.theirs, today, budget).Content, budget)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("/%d facts listed", tc.want); !strings.Contains(string(got), want) || !strings.Contains(string(got), "omitted") {
			t.Errorf("%s, over the budget: merged index\n%s\nwant %q and facts omitted", tc.name, got, want)
		}
	}
}

// Every budget at which the whole list fits lists every fact, even when the
// last fact's line is shorter than the "omitted" line that listing one
// fact fewer would need.
func TestBuildIndexAllFitDespiteOmittedLine(t *testing.T) {
	t.Parallel()
	facts := []Fact{
		{ID: "fact-0001", Type: Constraint, Title: "Orders are kept for seven years after the last refund", Confidence: High, Created: "2025-03-01", Status: Active},
		{ID: "fact-0002", Type: Decision, Title: "Persistence layer uses Flyway, not Liquibase", Confidence: High, Created: "2025-03-02", Status: Active},
		{ID: "fact-0003", Type: Glossary, Title: "SKU", Confidence: Low, Created: "2025-01-01", Status: Active},
	}
	all := BuildIndex(facts, "2025-03-14", 100000)
	if all.Listed != 3 {
		t.Fatalf("with a large budget %d facts listed, want 3", all.Listed)
	}
	for budget := all.Tokens; budget < all.Tokens+30; budget++ {
		got := BuildIndex(facts, "2025-03-14", budget)
		if got.Listed != 3 || got.Omitted != 0 {
			t.Errorf("budget %d (the full index takes %d tokens): %d listed, %d omitted; want all 3 listed", budget, all.Tokens, got.Listed, got.Omitted)
		}
		if got.Tokens > budget {
			t.Errorf("budget %d: index takes %d tokens", budget, got.Tokens)
		}
	}
}

// TestIndexLineLen checks that the length of an index line computed without
// rendering it is the rendered line's, for every generated fact and for
// titles with odd spacing, non-ASCII text, scopes and missing fields.
func TestIndexLineLen(t *testing.T) {
	t.Parallel()
	cases := []Fact{
		{ID: "fact-0001", Type: Decision, Title: "Plain title"},
		{ID: "fact-0002", Type: Risk, Title: "  Spaces\tand\ttabs\n inside  ", Confidence: High, Created: "2025-01-02"},
		{ID: "fact-0003", Type: Glossary, Title: "Ünïcödé\u00a0no-break\u2003em space", Scope: "module:billing"},
		{ID: "fact-12345", Type: Metric, Title: "x", Scope: DefaultScope, Confidence: Low},
		{ID: "fact-0004", Type: Domain, Title: "", Scope: "vertical:eu"},
		{ID: "fact-0005", Type: Constraint, Title: "\u3000ideographic\u3000space\u3000"},
		{ID: "fact-0006", Type: Decision, Title: "Deploys \x1b[31mred\x1b[0m on \u202eFridays", Scope: "module:a\x07b"},
		{ID: "fact-0007", Type: Risk, Title: "A lone\rreturn and a \x7f delete", Created: "2025-01-02"},
	}
	cases = append(cases, genFacts(t, 300)...)
	for _, f := range cases {
		if got, want := indexLineLen(f), len(indexLine(f)); got != want {
			t.Errorf("indexLineLen(%q) = %d, want %d (%q)", f.Title, got, want, indexLine(f))
		}
	}
}

// TestIndexLineEscapesControls checks that a control character a
// hand-written fact's front matter spells as an escape reaches INDEX.md as a
// visible \uXXXX escape, in every field the line shows, and that text
// (other scripts, the implicit direction marks) is left as it is.
func TestIndexLineEscapesControls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    Fact
		want string
	}{
		{"ESC in the title", Fact{ID: "fact-0001", Type: Decision, Confidence: High, Created: "2025-01-02", Title: "Deploys \x1b[2Jwipe the screen"},
			"- fact-0001 · decision · high · 2025-01-02 · Deploys \\u001b[2Jwipe the screen"},
		{"override in the title", Fact{ID: "fact-0002", Type: Risk, Created: "2025-01-02", Title: "Access is \u202edenied\u202c for guests"},
			"- fact-0002 · risk · medium · 2025-01-02 · Access is \\u202edenied\\u202c for guests"},
		{"BEL in the scope", Fact{ID: "fact-0003", Type: Domain, Created: "2025-01-02", Title: "Orders are shipped daily", Scope: "module:ord\x07ers"},
			"- fact-0003 · domain · medium · 2025-01-02 · Orders are shipped daily (module:ord\\u0007ers)"},
		{"C1 control and DEL", Fact{ID: "fact-0004", Type: Metric, Created: "2025-01-02", Title: "Latency \u009b31m under \x7f budget"},
			"- fact-0004 · metric · medium · 2025-01-02 · Latency \\u009b31m under \\u007f budget"},
		{"text is kept", Fact{ID: "fact-0005", Type: Glossary, Created: "2025-01-02", Title: "שלום means \u200fpeace\u200e in Hebrew"},
			"- fact-0005 · glossary · medium · 2025-01-02 · שלום means \u200fpeace\u200e in Hebrew"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := indexLine(tc.f); got != tc.want {
				t.Errorf("indexLine = %q\nwant          %q", got, tc.want)
			}
			if got, want := indexLineLen(tc.f), len(tc.want); got != want {
				t.Errorf("indexLineLen = %d, want %d", got, want)
			}
		})
	}
}
