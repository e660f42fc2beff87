package contracts

import (
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestRegexpCompiledOnce: a compiler compiles each pattern once (the
// metaschema check, format "regex", and the compilation both ask for it):
// two schemas with one pattern hold the same expression.
func TestRegexpCompiledOnce(t *testing.T) {
	t.Parallel()
	c := newCompiler(compileOptions{assertFormat: true, loader: setLoader{&set{}}})
	var got []jsonschema.Regexp
	for _, name := range []string{"a.schema.json", "b.schema.json"} {
		doc, err := parse([]byte(`{"properties": {"id": {"type": "string", "pattern": "^F-[0-9]+$"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(baseURL+name, doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(baseURL + name)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Properties["id"].Pattern)
	}
	if got[0] == nil || got[0] != got[1] {
		t.Errorf("the schemas hold patterns %p and %p, want one expression", got[0], got[1])
	}
}

// TestRegexpCacheBounded: patterns a document chooses (its values of format
// "regex") fill the cache up to its bound, and a bad one is an error.
func TestRegexpCacheBounded(t *testing.T) {
	t.Parallel()
	cache := &regexpCache{m: map[string]*ecmaRegexp{}}
	for i := range 2 * regexpCacheMax {
		if _, err := cache.compile(fmt.Sprintf("^a{%d}$", i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(cache.m) != regexpCacheMax {
		t.Errorf("%d patterns kept, want %d", len(cache.m), regexpCacheMax)
	}
	if re, err := cache.compile("("); err == nil || re != nil {
		t.Errorf("compile of a bad pattern = %v, %v; want an error", re, err)
	}
}
