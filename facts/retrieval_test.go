package facts

import (
	"context"
	"os"
	"path"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"
)

// retrievalCorpus is testdata/retrieval.yaml.
type retrievalCorpus struct {
	Facts []struct {
		Key   string   `yaml:"key"`
		Type  Type     `yaml:"type"`
		Title string   `yaml:"title"`
		Body  string   `yaml:"body"`
		Tags  []string `yaml:"tags"`
	} `yaml:"facts"`
	Queries []struct {
		Q    string `yaml:"q"`
		Want string `yaml:"want"`
		Type Type   `yaml:"type"`
		Kind string `yaml:"kind"` // "prefix" or "typo": found only by the forgiving matches
	} `yaml:"queries"`
}

func loadRetrievalCorpus(t testing.TB) (retrievalCorpus, fstest.MapFS, map[string]string) {
	t.Helper()
	data, err := os.ReadFile("testdata/retrieval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c retrievalCorpus
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	idOf := map[string]string{}
	for i, f := range c.Facts {
		id := FormatID(i + 1)
		if _, dup := idOf[f.Key]; dup {
			t.Fatalf("duplicate key %s", f.Key)
		}
		idOf[f.Key] = id
		fact := Fact{ID: id, Type: f.Type, Title: f.Title, Scope: "project", Tags: f.Tags, Confidence: Medium,
			Source: "conversation", Created: "2025-01-01", Status: Active, Body: f.Body}
		req := WriteRequest{Title: f.Title, Body: f.Body, Type: f.Type, Tags: f.Tags}.normalize()
		if err := req.validate("2025-01-01"); err != nil {
			t.Fatalf("corpus fact %s breaks a write rule: %v", f.Key, err)
		}
		m[path.Join(Dir, FileName(id, f.Title))] = &fstest.MapFile{Data: Format(fact)}
	}
	return c, m, idOf
}

// TestRetrievalQuality measures recall@8 of memory_search on a realistic
// corpus; run with -v to see the figure.
func TestRetrievalQuality(t *testing.T) {
	t.Parallel()
	c, m, idOf := loadRetrievalCorpus(t)
	if len(c.Facts) < 100 || len(c.Queries) < 40 {
		t.Fatalf("corpus has %d facts and %d queries; want at least 100 and 40", len(c.Facts), len(c.Queries))
	}
	s := NewStore(m, Options{Now: fixedNow})
	ctx := context.Background()
	found, first, forgiving := 0, 0, 0
	for _, q := range c.Queries {
		want, ok := idOf[q.Want]
		if !ok {
			t.Fatalf("query %q expects unknown fact %s", q.Q, q.Want)
		}
		f, _ := s.Get(ctx, want)
		switch q.Kind {
		case "":
			if !sharesTerm(q.Q, f) {
				t.Errorf("query %q shares no content word with %s; keyword search cannot find it", q.Q, q.Want)
			}
		case "prefix", "typo":
			if sharesTerm(q.Q, f) {
				t.Errorf("query %q of kind %s shares a content word with %s; it would not test the forgiving matches", q.Q, q.Kind, q.Want)
			}
			forgiving++
		default:
			t.Fatalf("query %q: unknown kind %q", q.Q, q.Kind)
		}
		res, err := s.Search(ctx, Query{Text: q.Q, Type: q.Type, Limit: 8})
		if err != nil {
			t.Fatal(err)
		}
		rank := 0
		for i, h := range res.Hits {
			if h.ID == want {
				rank = i + 1
			}
		}
		if rank == 1 {
			first++
		}
		if rank > 0 {
			found++
		} else {
			t.Logf("miss: %q (want %s %q)", q.Q, want, f.Title)
		}
	}
	recall, recall1 := float64(found)/float64(len(c.Queries)), float64(first)/float64(len(c.Queries))
	t.Logf("recall@8 = %.3f (%d/%d queries, %d with typos or prefixes, %d facts); recall@1 = %.3f", recall, found, len(c.Queries), forgiving, len(c.Facts), recall1)
	if recall < 1 {
		t.Errorf("recall@8 = %.3f, want 1", recall)
	}
	if recall1 < 0.9 {
		t.Errorf("recall@1 = %.3f, want at least 0.9", recall1)
	}
	if forgiving < 10 {
		t.Errorf("%d queries with typos or prefixes; want at least 10", forgiving)
	}
}

func sharesTerm(q string, f Fact) bool {
	have := map[string]bool{}
	for _, t := range terms(f.Title + " " + f.Body + " " + joinTags(f.Tags)) {
		have[t] = true
	}
	for _, t := range terms(q) {
		if have[t] {
			return true
		}
	}
	return false
}

func joinTags(tags []string) string {
	out := ""
	for _, t := range tags {
		out += " " + t
	}
	return out
}
