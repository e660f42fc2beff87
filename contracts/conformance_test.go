package contracts

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/foundryhq/foundry/internal/testenv"
)

// suiteDir locates the official JSON-Schema-Test-Suite: $FOUNDRY_TESTDATA
// or ../shared/testdata seen from the repository root. Absent, the test
// skips, except when CI is set to any non-empty value: then it fails.
func suiteDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FOUNDRY_TESTDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "testdata")
	}
	suite := filepath.Join(dir, "json-schema-test-suite")
	if _, err := os.Stat(filepath.Join(suite, "tests", "draft2020-12")); err != nil {
		testenv.Missing(t, "the JSON-Schema-Test-Suite (set FOUNDRY_TESTDATA)", err)
	}
	return suite
}

// remotes serves the suite's remotes/ folder as http://localhost:1234/, the
// way the suite expects; nothing goes to the network.
type remotes string

func (dir remotes) Load(url string) (any, error) {
	rel, ok := strings.CutPrefix(url, "http://localhost:1234/")
	if !ok {
		return nil, errors.New("no network in tests: " + url)
	}
	b, err := os.ReadFile(filepath.Join(string(dir), "remotes", filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

type suiteGroup struct {
	Description string
	Schema      json.RawMessage
	Tests       []struct {
		Description string
		Data        json.RawMessage
		Valid       bool
	}
}

// runSuiteFile runs every case of one suite file through the package's own
// entry points: compile, then validation of the raw bytes (with the
// position pass) and of the decoded value. It returns passed and total.
func runSuiteFile(t *testing.T, suite, file string, opts compileOptions) (passed, total int) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var groups []suiteGroup
	if err := json.Unmarshal(b, &groups); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	opts.loader = remotes(suite)
	for _, g := range groups {
		s, err := compile(g.Schema, opts)
		if err != nil {
			total += len(g.Tests)
			t.Errorf("%s: %s: %v", filepath.Base(file), g.Description, err)
			continue
		}
		for _, c := range g.Tests {
			total++
			name := filepath.Base(file) + ": " + g.Description + ": " + c.Description
			vs, err := s.ValidateJSON(c.Data)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := len(vs) == 0; got != c.Valid {
				t.Errorf("%s: valid = %v, want %v; violations: %v", name, got, c.Valid, vs)
				continue
			}
			for _, v := range vs {
				if !strings.HasPrefix(v.Pointer, "#") || v.Message == "" {
					t.Errorf("%s: violation without pointer or text: %+v", name, v)
				}
			}
			if err := checkPositions(c.Data, vs); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			val, err := parse(c.Data)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s.Validate(val)) == 0; got != c.Valid {
				t.Errorf("%s: decoded value: valid = %v, want %v", name, got, c.Valid)
				continue
			}
			passed++
		}
	}
	return passed, total
}

// TestConformance runs every case of the suite's tests/draft2020-12/*.json
// (not optional/), with format as an annotation as the suite expects.
// Run with -v to see the "N/N passed" line.
func TestConformance(t *testing.T) {
	t.Parallel()
	suite := suiteDir(t)
	files, err := filepath.Glob(filepath.Join(suite, "tests", "draft2020-12", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files in %s: %v", suite, err)
	}
	passed, total := 0, 0
	for _, f := range files {
		p, n := runSuiteFile(t, suite, f, compileOptions{})
		passed += p
		total += n
	}
	t.Logf("JSON-Schema-Test-Suite draft2020-12: %d/%d passed", passed, total)
	if passed != total {
		t.Errorf("conformance: %d/%d passed, want all", passed, total)
	}
}

// TestConformanceFormats runs the suite's optional format cases for the
// formats contracts assert, with assertion on (the contracts' mode).
func TestConformanceFormats(t *testing.T) {
	t.Parallel()
	runOptional(t, "format date, date-time, uri (asserted)", "format/date", "format/date-time", "format/uri")
}

// TestConformanceRegex runs the suite's optional cases of ECMA-262 regular
// expressions (\s, ., \cX, \p{…} and surrogate pairs as ECMA-262 reads
// them) and of format "regex", asserted.
func TestConformanceRegex(t *testing.T) {
	t.Parallel()
	runOptional(t, "ECMA-262 regular expressions", "ecmascript-regex", "non-bmp-regex", "format/regex")
}

// runOptional runs the suite's optional files names (slash paths under
// tests/draft2020-12/optional, without .json) with format asserted, the
// contracts' mode, and wants every case to pass.
func runOptional(t *testing.T, what string, names ...string) {
	t.Helper()
	suite := suiteDir(t)
	passed, total := 0, 0
	for _, name := range names {
		f := filepath.Join(suite, "tests", "draft2020-12", "optional", filepath.FromSlash(name)+".json")
		p, n := runSuiteFile(t, suite, f, compileOptions{assertFormat: true})
		if n == 0 {
			t.Errorf("%s: no cases", f)
		}
		passed += p
		total += n
	}
	t.Logf("JSON-Schema-Test-Suite optional %s: %d/%d passed", what, passed, total)
	if passed != total {
		t.Errorf("%s: %d/%d passed, want all", what, passed, total)
	}
}
