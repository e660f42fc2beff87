package facts

import (
	"context"
	"errors"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func searchStore(t *testing.T, facts ...Fact) *Store {
	t.Helper()
	m := fstest.MapFS{}
	for _, f := range facts {
		if f.Scope == "" {
			f.Scope = "project"
		}
		if f.Source == "" {
			f.Source = "conversation"
		}
		if f.Confidence == "" {
			f.Confidence = Medium
		}
		m[path.Join(Dir, FileName(f.ID, f.Title))] = &fstest.MapFile{Data: Format(f)}
	}
	return NewStore(m, Options{Now: fixedNow})
}

func TestSearchRender(t *testing.T) {
	t.Parallel()
	s := searchStore(t,
		Fact{ID: "fact-0004", Type: Decision, Title: "Persistence layer uses Flyway, not Liquibase", Confidence: High, Source: "adr-0007",
			Body: "Chosen for the plain-SQL migration format the team already reads."},
		Fact{ID: "fact-0005", Type: Convention, Title: "Migrations are reviewed by a DBA", Scope: "module:orders", Body: "Every migration gets a DBA review."},
	)
	res, err := s.Search(context.Background(), Query{Text: "Flyway"})
	if err != nil {
		t.Fatal(err)
	}
	want := `### fact-0004 · decision · confidence high
**Persistence layer uses Flyway, not Liquibase**
Chosen for the plain-SQL migration format the team already reads.
_source: adr-0007 · scope: project_
`
	if diff := cmp.Diff(want, res.Render()); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
	res, err = s.Search(context.Background(), Query{Text: "how do we write MIGRATIONS"})
	if err != nil {
		t.Fatal(err)
	}
	want = `### fact-0005 · convention · confidence medium
**Migrations are reviewed by a DBA**
Every migration gets a DBA review.
_source: conversation · scope: module:orders_

### fact-0004 · decision · confidence high
**Persistence layer uses Flyway, not Liquibase**
Chosen for the plain-SQL migration format the team already reads.
_source: adr-0007 · scope: project_
`
	if diff := cmp.Diff(want, res.Render()); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
}

// TestSearchFactID: a query that is the id of a fact answers that fact when
// it is active and of the type asked for, and nothing else: not a fact out
// of search (superseded, retired, expired), and not the facts that happen to
// contain the word "fact". An id no fact has is searched as keywords.
func TestSearchFactID(t *testing.T) {
	t.Parallel()
	s := searchStore(t,
		Fact{ID: "fact-0001", Type: Domain, Title: "Billing runs on the SOAP gateway", Body: "Decommissioned.", Status: Retired, RetiredReason: "gone"},
		Fact{ID: "fact-0002", Type: Domain, Title: "Every fact states one thing", Body: "A fact is atomic."},
		Fact{ID: "fact-0003", Type: Decision, Title: "Old queue was RabbitMQ", Body: "Replaced.", Status: Superseded, SupersededBy: "fact-0004"},
		Fact{ID: "fact-0004", Type: Decision, Title: "Queue is Kafka", Body: "Events go through Kafka topics.", Supersedes: "fact-0003"},
	)
	tests := []struct {
		q          Query
		want       []string
		unfiltered int
	}{
		{Query{Text: "fact-0004"}, []string{"fact-0004"}, 0},
		{Query{Text: "fact-0001"}, []string{}, 0},
		{Query{Text: "fact-0003"}, []string{}, 0},
		{Query{Text: "fact-0004", Type: Decision}, []string{"fact-0004"}, 0},
		{Query{Text: "fact-0004", Type: Domain}, []string{}, 1},
		{Query{Text: "fact-0009"}, []string{"fact-0002"}, 0},
	}
	for _, tt := range tests {
		res, err := s.Search(context.Background(), tt.q)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if !slices.Equal(got, tt.want) || res.Unfiltered != tt.unfiltered || res.Hits == nil {
			t.Errorf("Search(%+v) = hits %v (nil %v), unfiltered %d; want %v, %d", tt.q, got, res.Hits == nil, res.Unfiltered, tt.want, tt.unfiltered)
		}
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	s := searchStore(t,
		Fact{ID: "fact-0001", Type: Decision, Title: "Persistence layer uses Flyway", Body: "Migration files are plain SQL.", Tags: []string{"database"}},
		Fact{ID: "fact-0002", Type: Convention, Title: "Branch names start with the ticket key", Body: "Example: PAY-123-add-refunds."},
		Fact{ID: "fact-0003", Type: Constraint, Title: "Customer data stays in the EU", Body: "Databases and backups run in eu-west-1.", Tags: []string{"gdpr"}},
		Fact{ID: "fact-0004", Type: Decision, Title: "Old queue was RabbitMQ", Body: "Replaced.", Status: Superseded, SupersededBy: "fact-0005"},
		Fact{ID: "fact-0005", Type: Decision, Title: "Queue is Kafka", Body: "Events go through Kafka topics.", Supersedes: "fact-0004"},
		Fact{ID: "fact-0006", Type: Metric, Title: "Checkout conversion is 3.1 percent", Body: "Measured in Q4.", Expires: "2025-01-31"},
		Fact{ID: "fact-0007", Type: Glossary, Title: "Tenant means a paying organisation", Body: "Not a user. A tenant has many databases."},
		Fact{ID: "fact-0008", Type: Convention, Title: "Consumers are idempotent by design", Body: "Every queue consumer dedups."},
		Fact{ID: "fact-0009", Type: Domain, Title: "Billing runs on the SOAP gateway", Body: "Decommissioned.", Status: Retired, RetiredReason: "gone"},
	)
	ids := func(res SearchResult) []string {
		out := []string{}
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		return out
	}
	tests := []struct {
		name    string
		q       Query
		want    []string
		wantErr string
	}{
		{"stemmed plural", Query{Text: "migrations"}, []string{"fact-0001"}, ""},
		{"case folded", Query{Text: "FLYWAY"}, []string{"fact-0001"}, ""},
		{"tag outranks body", Query{Text: "database"}, []string{"fact-0001", "fact-0007", "fact-0003"}, ""},
		{"title outranks body", Query{Text: "queues"}, []string{"fact-0005", "fact-0008"}, ""},
		{"tag matches", Query{Text: "gdpr rules"}, []string{"fact-0003"}, ""},
		{"type filter", Query{Text: "database", Type: Glossary}, []string{"fact-0007"}, ""},
		{"limit", Query{Text: "database", Limit: 1}, []string{"fact-0001"}, ""},
		{"superseded excluded", Query{Text: "rabbitmq"}, []string{}, ""},
		{"expired excluded", Query{Text: "checkout conversion"}, []string{}, ""},
		{"fact id", Query{Text: "FACT-0005"}, []string{"fact-0005"}, ""},
		// A fact out of search stays out when its id is the query.
		{"superseded id excluded", Query{Text: "fact-0004"}, []string{}, ""},
		{"expired id excluded", Query{Text: "fact-0006"}, []string{}, ""},
		{"retired id excluded", Query{Text: "fact-0009"}, []string{}, ""},
		{"stop words only", Query{Text: "the of and"}, []string{}, ""},
		{"empty query", Query{Text: "  "}, nil, "query is required"},
		{"limit too big", Query{Text: "x", Limit: 26}, nil, "limit 26 is out of range; use 1 to 25"},
		{"limit negative", Query{Text: "x", Limit: -1}, nil, "limit -1 is out of range; use 1 to 25"},
		{"unknown type", Query{Text: "x", Type: "opinion"}, nil, `unknown type "opinion"; use one of decision, constraint, convention, domain, risk, metric, glossary`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := s.Search(context.Background(), tt.q)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ids(res)); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if res.Active != 6 {
				t.Errorf("Active = %d, want 6", res.Active)
			}
		})
	}
	res, _ := s.Search(context.Background(), Query{Text: "checkout conversion"})
	if got := res.Render(); got != "No stored fact matches \"checkout conversion\". Memory holds 6 active facts.\n" {
		t.Errorf("no-hit text = %q", got)
	}
	// Without the type filter, a fact id as the query matches that one fact.
	res, _ = s.Search(context.Background(), Query{Text: "fact-0005", Type: Glossary})
	if got, want := res.Render(), "No stored glossary fact matches \"fact-0005\"; without the type filter 1 fact matches. Memory holds 6 active facts.\n"; got != want {
		t.Errorf("filtered id text = %q, want %q", got, want)
	}
}
